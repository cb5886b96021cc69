/**
 * The companies' connections to their PSP accounts (gateway_accounts): what a gateway integration's
 * OAuth round trip stored (connection.ts). Tokens are kept sealed (src/shared/credentials.ts); this module seals on
 * the way in and opens on the way out, so no caller ever holds a sealed value or writes a plain one.
 */
import { and, eq, isNull, ne, notExists, sql } from 'drizzle-orm';
import { credentialSealer, type KeyRing } from '../../shared/credentials.js';
import { schema, type Executor } from '../../shared/db/index.js';
import { insertedRow } from '../../shared/db/inserted.js';

const { gatewayAccounts, gatewayAuthorizations } = schema;

type AccountRow = typeof gatewayAccounts.$inferSelect;

/** An account as the gateways use it, tokens opened. */
export interface GatewayAccount {
  id: number;
  companyId: number;
  provider: AccountRow['provider'];
  /** The account at the PSP (Mercado Pago's user_id). */
  accountId: string;
  integrationId: number | null;
  publicKey: string;
  accessToken: string;
  refreshToken: string;
  tokenExpiresAt: Date;
  tokenLifetimeSeconds: number;
  connectedAt: Date;
  revokedAt: Date | null;
}

/** What an OAuth exchange or refresh gave. */
export interface TokenGrant {
  accessToken: string;
  refreshToken: string;
  expiresInSeconds: number;
  accountId: string;
  publicKey: string;
  liveMode: boolean;
}

const purpose = (id: number, column: 'access_token' | 'refresh_token'): string =>
  `gateway_account:${id}:${column}`;

function opened(key: KeyRing | undefined, row: AccountRow): GatewayAccount {
  const sealer = credentialSealer(key);
  return {
    id: row.id,
    companyId: row.companyId,
    provider: row.provider,
    accountId: row.accountId,
    integrationId: row.integrationId,
    publicKey: row.publicKey,
    accessToken: sealer.open(row.accessToken, purpose(row.id, 'access_token')),
    refreshToken: sealer.open(row.refreshToken, purpose(row.id, 'refresh_token')),
    tokenExpiresAt: row.tokenExpiresAt,
    tokenLifetimeSeconds: row.tokenLifetimeSeconds,
    connectedAt: row.connectedAt,
    revokedAt: row.revokedAt,
  };
}

const sealedTokens = (
  key: KeyRing | undefined,
  id: number,
  grant: Pick<TokenGrant, 'accessToken' | 'refreshToken' | 'expiresInSeconds'>,
  now: Date,
) => {
  const sealer = credentialSealer(key);
  return {
    accessToken: sealer.seal(grant.accessToken, purpose(id, 'access_token')),
    refreshToken: sealer.seal(grant.refreshToken, purpose(id, 'refresh_token')),
    tokenExpiresAt: new Date(now.getTime() + grant.expiresInSeconds * 1000),
    tokenLifetimeSeconds: Math.max(1, grant.expiresInSeconds),
  };
};

/**
 * Stores the grant of a completed connection in the caller's transaction: the company's row for that
 * PSP account (new, or the same account connected again) takes the tokens and becomes the
 * integration's account; an account the integration used before is let go (its orders still settle).
 */
export async function connectAccount(
  tx: Executor,
  key: KeyRing | undefined,
  values: { companyId: number; provider: AccountRow['provider']; integrationId: number; grant: TokenGrant },
  now = new Date(),
): Promise<GatewayAccount> {
  const { companyId, provider, integrationId, grant } = values;
  await tx
    .update(gatewayAccounts)
    .set({ integrationId: null })
    .where(
      and(eq(gatewayAccounts.integrationId, integrationId), ne(gatewayAccounts.accountId, grant.accountId)),
    );
  // The id is needed to seal (it is part of the purpose), so the row is claimed first, then filled.
  const placeholder = { accessToken: '', refreshToken: '', tokenExpiresAt: now, tokenLifetimeSeconds: 1 };
  const row = insertedRow(
    await tx
      .insert(gatewayAccounts)
      .values({
        companyId,
        provider,
        accountId: grant.accountId,
        publicKey: grant.publicKey,
        ...placeholder,
      })
      .onConflictDoUpdate({
        target: [gatewayAccounts.companyId, gatewayAccounts.provider, gatewayAccounts.accountId],
        set: { publicKey: grant.publicKey },
      })
      .returning(),
    'gateway_accounts',
  );
  const [updated] = await tx
    .update(gatewayAccounts)
    .set({
      ...sealedTokens(key, row.id, grant, now),
      integrationId,
      liveMode: grant.liveMode,
      connectedAt: now,
      refreshedAt: null,
      revokedAt: null,
    })
    .where(eq(gatewayAccounts.id, row.id))
    .returning();
  return opened(key, updated ?? row);
}

export async function findAccount(
  db: Executor,
  key: KeyRing | undefined,
  id: number,
): Promise<GatewayAccount | undefined> {
  const [row] = await db.select().from(gatewayAccounts).where(eq(gatewayAccounts.id, id));
  return row && opened(key, row);
}

/** The account row locked for a token refresh: one refresh at a time, the others use its result. */
export async function lockAccount(
  tx: Executor,
  key: KeyRing | undefined,
  id: number,
): Promise<GatewayAccount | undefined> {
  const [row] = await tx.select().from(gatewayAccounts).where(eq(gatewayAccounts.id, id)).for('update');
  return row && opened(key, row);
}

/**
 * The account an integration charges through: none while it waits for its authorization (a new one,
 * or again after its provider changed or the PSP refused a refresh), none once revoked.
 */
export async function connectedAccountOf(db: Executor, integrationId: number): Promise<number | undefined> {
  const waiting = db
    .select({ id: gatewayAuthorizations.integrationId })
    .from(gatewayAuthorizations)
    .where(eq(gatewayAuthorizations.integrationId, integrationId));
  const [row] = await db
    .select({ id: gatewayAccounts.id })
    .from(gatewayAccounts)
    .where(
      and(
        eq(gatewayAccounts.integrationId, integrationId),
        isNull(gatewayAccounts.revokedAt),
        notExists(waiting),
      ),
    );
  return row?.id;
}

/** Every company's row for one PSP account (a notification names only the account). */
export async function accountsAt(
  db: Executor,
  provider: AccountRow['provider'],
  accountId: string,
): Promise<number[]> {
  const rows = await db
    .select({ id: gatewayAccounts.id })
    .from(gatewayAccounts)
    .where(and(eq(gatewayAccounts.provider, provider), eq(gatewayAccounts.accountId, accountId)))
    .orderBy(gatewayAccounts.id);
  return rows.map((r) => r.id);
}

/** A refresh's new tokens (the PSP rotates the refresh token), in the caller's transaction. */
export async function storeRefreshedTokens(
  tx: Executor,
  key: KeyRing | undefined,
  id: number,
  grant: Pick<TokenGrant, 'accessToken' | 'refreshToken' | 'expiresInSeconds'>,
  now = new Date(),
): Promise<void> {
  await tx
    .update(gatewayAccounts)
    .set({ ...sealedTokens(key, id, grant, now), refreshedAt: now })
    .where(eq(gatewayAccounts.id, id));
}

/** The ids of accounts after `afterId`, in order, `limit` of them: a batch of `cli credentials reseal`. */
export async function accountIdsAfter(db: Executor, afterId: number, limit: number): Promise<number[]> {
  const rows = await db
    .select({ id: gatewayAccounts.id })
    .from(gatewayAccounts)
    .where(sql`${gatewayAccounts.id} > ${afterId}`)
    .orderBy(gatewayAccounts.id)
    .limit(limit);
  return rows.map((r) => r.id);
}

/**
 * Seals an account's tokens again under the ring's newest key, in the caller's transaction, under the
 * row's lock (a token refresh waits, and its own write seals with the newest key anyway). Answers
 * whether it wrote anything.
 */
export async function resealAccount(tx: Executor, key: KeyRing | undefined, id: number): Promise<boolean> {
  const [row] = await tx.select().from(gatewayAccounts).where(eq(gatewayAccounts.id, id)).for('update');
  const sealer = credentialSealer(key);
  if (!row || (sealer.isCurrent(row.accessToken) && sealer.isCurrent(row.refreshToken))) return false;
  const account = opened(key, row);
  await tx
    .update(gatewayAccounts)
    .set({
      accessToken: sealer.seal(account.accessToken, purpose(id, 'access_token')),
      refreshToken: sealer.seal(account.refreshToken, purpose(id, 'refresh_token')),
    })
    .where(eq(gatewayAccounts.id, id));
  return true;
}

/** The PSP refused a refresh: the tokens are dead until the company connects again. */
export async function markAccountRevoked(tx: Executor, id: number): Promise<void> {
  await tx
    .update(gatewayAccounts)
    .set({ revokedAt: sql`clock_timestamp()` })
    .where(eq(gatewayAccounts.id, id));
}

/** Lets an integration's account go (the provider changed): its orders still settle through it. */
export async function detachAccounts(tx: Executor, integrationId: number): Promise<void> {
  await tx
    .update(gatewayAccounts)
    .set({ integrationId: null })
    .where(eq(gatewayAccounts.integrationId, integrationId));
}
