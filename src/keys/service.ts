import type { RedisClient } from '../../queues/index.js';
import { announceKeyChange } from './key-changes.js';
import { eq } from 'drizzle-orm';
import { schema, type Db } from '../shared/db/index.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import { sha256Hex } from '../shared/ids.js';
import { generateApiKey } from './key-format.js';
import * as keys from './repository.js';

export const MAX_ACTIVE_KEYS = 10;

export interface NewKeyInput {
  companyId: number;
  name: string;
  kind: keys.ApiKeyKind;
  test: boolean;
}

export interface CreatedKey {
  row: keys.ApiKeyRow;
  /** The full key: returned once, never stored. */
  value: string;
}

/**
 * Creates a key within the company's limit of active keys. The company row is locked so that two
 * concurrent creations cannot both take the last slot.
 */
export async function createKey(db: Db, input: NewKeyInput): Promise<CreatedKey> {
  return db.transaction(async (tx) => {
    await tx
      .select({ id: schema.companies.id })
      .from(schema.companies)
      .where(eq(schema.companies.id, input.companyId))
      .for('no key update');
    const active = await keys.countActiveKeys(tx, input.companyId);
    if (active >= MAX_ACTIVE_KEYS) {
      throw new ConflictError(`A company can have at most ${MAX_ACTIVE_KEYS} active keys; revoke one first`);
    }
    const secret = generateApiKey(input.test);
    const row = await keys.insertKey(tx, {
      companyId: input.companyId,
      name: input.name,
      kind: input.kind,
      test: input.test,
      keyHash: sha256Hex(secret.value),
      prefix: secret.prefix,
      last4: secret.last4,
    });
    return { row, value: secret.value };
  });
}

/** Revokes a key; every web process stops accepting it from its next request on. */
export async function revokeKey(
  deps: { db: Db; redis: RedisClient | null },
  companyId: number,
  keyId: number,
): Promise<keys.ApiKeyRow> {
  const row = await keys.revokeKey(deps.db, companyId, keyId);
  if (!row) throw new NotFoundError(`No key ${keyId} in this company`);
  if (deps.redis) await announceKeyChange(deps.redis, row.keyHash);
  return row;
}

export const listKeys = (db: Db, companyId: number): Promise<keys.ApiKeyRow[]> =>
  keys.listKeys(db, companyId);
