/** Drizzle mirror of the buyer's page tables (migration 0940). */
import { sql } from 'drizzle-orm';
import { bigserial, pgTable, text } from 'drizzle-orm/pg-core';
import { ts } from './schema-columns.js';

const createdAt = () =>
  ts('created_at')
    .notNull()
    .default(sql`clock_timestamp()`);

/** A mailed sign-in link: its token's SHA-256 only; single use, 15 minutes. */
export const buyerSignInLinks = pgTable('buyer_sign_in_links', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  email: text('email').notNull(),
  tokenHash: text('token_hash').notNull(),
  expiresAt: ts('expires_at').notNull(),
  usedAt: ts('used_at'),
  createdAt: createdAt(),
});

/** A buyer's session: its cookie value's SHA-256 and the e-mail address it signed in. */
export const buyerSessions = pgTable('buyer_sessions', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  sessionHash: text('session_hash').notNull(),
  email: text('email').notNull(),
  expiresAt: ts('expires_at').notNull(),
  revokedAt: ts('revoked_at'),
  createdAt: createdAt(),
});
