/**
 * The gateway integrations waiting for their company's OAuth authorization (gateway_authorizations,
 * migration 0923): a row from the integration's creation (or its move to another provider, or a
 * refresh the PSP refused) until the round trip completes. Its state is single-use; its PKCE
 * verifier is stored as the caller sealed it.
 */
import { and, eq, isNotNull, sql, type SQL } from 'drizzle-orm';
import { schema, type Executor } from '../../shared/db/index.js';

const { gatewayAuthorizations } = schema;

export type AuthorizationRow = typeof gatewayAuthorizations.$inferSelect;
/** A fresh state: the columns that start (or restart) an authorization. */
export type NewState = Pick<AuthorizationRow, 'state' | 'stateExpiresAt' | 'codeVerifier'>;

/** The integration waits for an authorization with this state (replacing any state it had). */
export async function awaitAuthorization(
  tx: Executor,
  integrationId: number,
  state: NewState,
): Promise<void> {
  await tx
    .insert(gatewayAuthorizations)
    .values({ integrationId, ...state })
    .onConflictDoUpdate({ target: gatewayAuthorizations.integrationId, set: state });
}

async function oneRow(db: Executor, where: SQL, lock: boolean): Promise<AuthorizationRow | undefined> {
  const query = db.select().from(gatewayAuthorizations).where(where);
  const [row] = await (lock ? query.for('update') : query);
  return row;
}

/** The integration's pending authorization, if it waits for one. */
export const findAuthorization = (
  db: Executor,
  integrationId: number,
): Promise<AuthorizationRow | undefined> =>
  oneRow(db, eq(gatewayAuthorizations.integrationId, integrationId), false);

/** The same, locked (its state is renewed, claimed and resealed under this lock). */
export const lockAuthorization = (
  db: Executor,
  integrationId: number,
): Promise<AuthorizationRow | undefined> =>
  oneRow(db, eq(gatewayAuthorizations.integrationId, integrationId), true);

/** The authorization waiting for the callback that carries `state`, locked for its claim. */
export const lockByState = (db: Executor, state: string): Promise<AuthorizationRow | undefined> =>
  oneRow(db, eq(gatewayAuthorizations.state, state), true);

/** Writes a pending authorization's state columns (a renewal, a claim, a reseal). */
export async function setState(
  tx: Executor,
  integrationId: number,
  values: Partial<NewState>,
): Promise<AuthorizationRow | undefined> {
  const [row] = await tx
    .update(gatewayAuthorizations)
    .set(values)
    .where(eq(gatewayAuthorizations.integrationId, integrationId))
    .returning();
  return row;
}

/** The integration no longer waits (its round trip completed, or it is no longer a gateway). */
export async function endAuthorization(tx: Executor, integrationId: number): Promise<void> {
  await tx.delete(gatewayAuthorizations).where(eq(gatewayAuthorizations.integrationId, integrationId));
}

/** The ids of authorizations holding a sealed verifier after `afterId`, in order: a batch of the reseal. */
export async function sealedAuthorizationIdsAfter(
  db: Executor,
  afterId: number,
  limit: number,
): Promise<number[]> {
  const rows = await db
    .select({ id: gatewayAuthorizations.integrationId })
    .from(gatewayAuthorizations)
    .where(
      and(
        sql`${gatewayAuthorizations.integrationId} > ${afterId}`,
        isNotNull(gatewayAuthorizations.codeVerifier),
      ),
    )
    .orderBy(gatewayAuthorizations.integrationId)
    .limit(limit);
  return rows.map((r) => r.id);
}
