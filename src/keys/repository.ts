import { and, asc, count, eq, isNull, sql } from 'drizzle-orm';
import { PgTransaction } from 'drizzle-orm/pg-core';
import { schema, statementName, type Db, type Executor } from '../shared/db/index.js';
import { insertedRow } from '../shared/db/inserted.js';

const { apiKeys, companies } = schema;

export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type ApiKeyKind = ApiKeyRow['kind'];

export interface KeyLookup {
  id: number;
  companyId: number;
  kind: ApiKeyKind;
  test: boolean;
  revoked: boolean;
  companyActive: boolean;
}

function keyLookupQuery(db: Executor) {
  return db
    .select({
      id: apiKeys.id,
      companyId: apiKeys.companyId,
      kind: apiKeys.kind,
      test: apiKeys.test,
      revokedAt: apiKeys.revokedAt,
      companyActive: companies.active,
    })
    .from(apiKeys)
    .innerJoin(companies, eq(companies.id, apiKeys.companyId));
}

const prepareKeyLookup = (db: Db) =>
  keyLookupQuery(db)
    .where(eq(apiKeys.keyHash, sql.placeholder('keyHash')))
    .limit(1)
    .prepare(statementName(db, 'api_keys_find_by_hash'));
const preparedKeyLookups = new WeakMap<Db, ReturnType<typeof prepareKeyLookup>>();

/**
 * The hot-path lookup behind every authenticated request: one indexed join. On the pool it is a
 * named prepared statement, built once: building the query per request cost more CPU than running it.
 */
export async function findKeyByHash(db: Executor, keyHash: string): Promise<KeyLookup | undefined> {
  let rows;
  if (db instanceof PgTransaction) {
    rows = await keyLookupQuery(db).where(eq(apiKeys.keyHash, keyHash)).limit(1);
  } else {
    let prepared = preparedKeyLookups.get(db);
    if (!prepared) {
      prepared = prepareKeyLookup(db);
      preparedKeyLookups.set(db, prepared);
    }
    rows = await prepared.execute({ keyHash });
  }
  const [row] = rows;
  if (!row) return undefined;
  const { revokedAt, ...rest } = row;
  return { ...rest, revoked: revokedAt !== null };
}

export async function insertKey(
  db: Executor,
  key: Pick<ApiKeyRow, 'companyId' | 'name' | 'kind' | 'test' | 'keyHash' | 'prefix' | 'last4'>,
): Promise<ApiKeyRow> {
  return insertedRow(await db.insert(apiKeys).values(key).returning(), 'api_keys');
}

export async function countActiveKeys(db: Executor, companyId: number): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(apiKeys)
    .where(and(eq(apiKeys.companyId, companyId), isNull(apiKeys.revokedAt)));
  return row?.n ?? 0;
}

export function listKeys(db: Executor, companyId: number): Promise<ApiKeyRow[]> {
  return db.select().from(apiKeys).where(eq(apiKeys.companyId, companyId)).orderBy(asc(apiKeys.id));
}

/** Revokes a key of the company; returns the row, or undefined when the company has no such key. */
export async function revokeKey(
  db: Executor,
  companyId: number,
  keyId: number,
): Promise<ApiKeyRow | undefined> {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, now())` })
    .where(and(eq(apiKeys.companyId, companyId), eq(apiKeys.id, keyId)))
    .returning();
  return row;
}

/** Conditional so that, across every web process, a key's last use is written at most once a minute. */
export async function touchKeyLastUsed(db: Executor, keyId: number): Promise<void> {
  await db
    .update(apiKeys)
    .set({ lastUsedAt: sql`now()` })
    .where(
      and(
        eq(apiKeys.id, keyId),
        sql`(${apiKeys.lastUsedAt} IS NULL OR ${apiKeys.lastUsedAt} < now() - interval '1 minute')`,
      ),
    );
}
