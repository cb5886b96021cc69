import { and, eq, isNull, sql } from 'drizzle-orm';
import { schema, type Executor } from '../shared/db/index.js';
import { insertedRow } from '../shared/db/inserted.js';

const { companies, users, panelTokens } = schema;

export type CompanyRow = typeof companies.$inferSelect;
export type UserRow = typeof users.$inferSelect;

export async function insertCompany(db: Executor, name: string, active: boolean): Promise<CompanyRow> {
  return insertedRow(await db.insert(companies).values({ name, active }).returning(), 'companies');
}

export async function insertUser(
  db: Executor,
  user: Pick<UserRow, 'companyId' | 'email' | 'name' | 'role'>,
): Promise<UserRow> {
  return insertedRow(await db.insert(users).values(user).returning(), 'users');
}

export async function findCompany(db: Executor, id: number): Promise<CompanyRow | undefined> {
  const [row] = await db.select().from(companies).where(eq(companies.id, id));
  return row;
}

export async function setCompanyActive(
  db: Executor,
  id: number,
  active: boolean,
): Promise<CompanyRow | undefined> {
  const [row] = await db.update(companies).set({ active }).where(eq(companies.id, id)).returning();
  return row;
}

/** Sets (or, with nulls, clears) the company's own platform fee. */
export async function setCompanyPlatformFee(
  db: Executor,
  id: number,
  fee: { percent: string | null; fixed: string | null },
): Promise<CompanyRow | undefined> {
  const [row] = await db
    .update(companies)
    .set({ platformFeePercent: fee.percent, platformFeeFixed: fee.fixed })
    .where(eq(companies.id, id))
    .returning();
  return row;
}

export async function findOwner(db: Executor, companyId: number): Promise<UserRow | undefined> {
  const [row] = await db
    .select()
    .from(users)
    .where(and(eq(users.companyId, companyId), eq(users.role, 'owner')))
    .orderBy(users.id)
    .limit(1);
  return row;
}

export async function findUser(db: Executor, id: number): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id));
  return row;
}

export async function insertPanelToken(
  db: Executor,
  token: { userId: number; tokenHash: string; prefix: string },
): Promise<void> {
  await db.insert(panelTokens).values(token);
}

export interface PanelTokenLookup {
  tokenId: number;
  userId: number;
  companyId: number;
  role: UserRow['role'];
  companyActive: boolean;
}

export async function findPanelTokenByHash(
  db: Executor,
  tokenHash: string,
): Promise<PanelTokenLookup | undefined> {
  const [row] = await db
    .select({
      tokenId: panelTokens.id,
      userId: users.id,
      companyId: users.companyId,
      role: users.role,
      companyActive: companies.active,
    })
    .from(panelTokens)
    .innerJoin(users, eq(users.id, panelTokens.userId))
    .innerJoin(companies, eq(companies.id, users.companyId))
    .where(and(eq(panelTokens.tokenHash, tokenHash), isNull(panelTokens.revokedAt)))
    .limit(1);
  return row;
}

export async function touchPanelTokenLastUsed(db: Executor, tokenId: number): Promise<void> {
  await db
    .update(panelTokens)
    .set({ lastUsedAt: sql`now()` })
    .where(
      and(
        eq(panelTokens.id, tokenId),
        sql`(${panelTokens.lastUsedAt} IS NULL OR ${panelTokens.lastUsedAt} < now() - interval '1 minute')`,
      ),
    );
}
