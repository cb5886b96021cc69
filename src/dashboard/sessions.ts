/**
 * Dashboard sessions: a panel credential exchanged once for a random session id (the cookie), stored
 * hashed. Each request reads the session with its credential, user and company in one query, so a
 * revoked token or key, or an inactive company, ends every session opened with it at once.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { and, eq, gt, inArray, isNull, lt, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { resolvePanelCredential } from '../auth/panel-auth.js';
import { schema, type Db } from '../shared/db/index.js';
import type { PanelPrincipal } from '../shared/http/principal.js';
import { randomBase62, sha256Hex } from '../shared/ids.js';

const { apiKeys, companies, dashboardSessions, panelTokens, users } = schema;

/** How long a session lasts from sign-in. */
export const SESSION_TTL_MS = 8 * 3_600_000;

export interface DashboardSession {
  id: number;
  principal: PanelPrincipal;
  /** The value every form of this session carries. */
  csrfToken: string;
  expiresAt: Date;
}

/** The CSRF token of a session: derived from its secret id, so it is never stored and dies with it. */
const csrfOf = (sessionId: string): string =>
  createHmac('sha256', sessionId).update('dashboard-csrf').digest('base64url');

/** Whether `sent` is the CSRF token of the session whose id is `sessionId` (constant time). */
export function csrfMatches(sessionId: string, sent: unknown): boolean {
  if (typeof sent !== 'string') return false;
  const expected = Buffer.from(csrfOf(sessionId));
  const given = Buffer.from(sent);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * Signs in: the credential must be a panel token or a read-only key the panel API would accept
 * (the same errors otherwise). Returns the new session id, to send as the cookie, once.
 */
export async function openSession(
  db: Db,
  credential: string,
  now = new Date(),
): Promise<{ sessionId: string; expiresAt: Date }> {
  const { principal, tokenId } = await resolvePanelCredential(db, credential);
  const sessionId = `ds_${randomBase62(40)}`;
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await db.insert(dashboardSessions).values({
    sessionHash: sha256Hex(sessionId),
    companyId: principal.companyId,
    panelTokenId: tokenId,
    apiKeyId: principal.keyId,
    expiresAt,
  });
  return { sessionId, expiresAt };
}

const tokenUsers = alias(users, 'token_users');

/** The live session of a cookie value, or undefined (unknown, expired, revoked, or its credential gone). */
export async function findSession(db: Db, sessionId: string): Promise<DashboardSession | undefined> {
  const [row] = await db
    .select({
      id: dashboardSessions.id,
      companyId: dashboardSessions.companyId,
      expiresAt: dashboardSessions.expiresAt,
      apiKeyId: dashboardSessions.apiKeyId,
      keyRevokedAt: apiKeys.revokedAt,
      tokenRevokedAt: panelTokens.revokedAt,
      userId: tokenUsers.id,
      role: tokenUsers.role,
    })
    .from(dashboardSessions)
    .innerJoin(companies, and(eq(companies.id, dashboardSessions.companyId), eq(companies.active, true)))
    .leftJoin(panelTokens, eq(panelTokens.id, dashboardSessions.panelTokenId))
    .leftJoin(tokenUsers, eq(tokenUsers.id, panelTokens.userId))
    .leftJoin(apiKeys, eq(apiKeys.id, dashboardSessions.apiKeyId))
    .where(
      and(
        eq(dashboardSessions.sessionHash, sha256Hex(sessionId)),
        isNull(dashboardSessions.revokedAt),
        gt(dashboardSessions.expiresAt, sql`now()`),
      ),
    )
    .limit(1);
  if (!row) return undefined;
  let principal: PanelPrincipal;
  if (row.apiKeyId !== null) {
    if (row.keyRevokedAt !== null) return undefined;
    principal = {
      companyId: row.companyId,
      via: 'read_only_key',
      role: 'read_only',
      userId: null,
      keyId: row.apiKeyId,
    };
  } else {
    if (row.tokenRevokedAt !== null || row.userId === null || row.role === null) return undefined;
    principal = {
      companyId: row.companyId,
      via: 'panel_token',
      role: row.role,
      userId: row.userId,
      keyId: null,
    };
  }
  return { id: row.id, principal, csrfToken: csrfOf(sessionId), expiresAt: row.expiresAt };
}

/** Signs out: the session stops working at once, wherever its cookie still is. */
export async function revokeSession(db: Db, id: number): Promise<void> {
  await db
    .update(dashboardSessions)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(dashboardSessions.id, id), isNull(dashboardSessions.revokedAt)));
}

/**
 * Deletes the sessions that expired before `now`, revoked or not (a revoked one is dead already, and
 * gone once its expiry passes), a batch at a time so a long backlog never holds one long lock.
 * Returns how many were deleted; the retention sweep runs it every hour.
 */
export async function purgeExpiredSessions(db: Db, now = new Date(), batch = 1000): Promise<number> {
  let total = 0;
  for (;;) {
    const expired = db
      .select({ id: dashboardSessions.id })
      .from(dashboardSessions)
      .where(lt(dashboardSessions.expiresAt, now))
      .limit(batch);
    const deleted = await db
      .delete(dashboardSessions)
      .where(inArray(dashboardSessions.id, expired))
      .returning({ id: dashboardSessions.id });
    total += deleted.length;
    if (deleted.length < batch) return total;
  }
}
