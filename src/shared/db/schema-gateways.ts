/** Drizzle mirror of the gateways' own tables (migration 0923; gateway_accounts is in schema.ts, 0801). */
import { sql } from 'drizzle-orm';
import { integer, pgTable, text } from 'drizzle-orm/pg-core';
import { ts } from './schema-columns.js';

/**
 * A gateway integration waiting for its company's OAuth authorization at the PSP
 * (src/gateways/accounts/): the single-use state, its expiry, its PKCE verifier sealed.
 */
export const gatewayAuthorizations = pgTable('gateway_authorizations', {
  integrationId: integer('integration_id').primaryKey(),
  /** Null once a callback claimed it. */
  state: text('state'),
  stateExpiresAt: ts('state_expires_at'),
  /** Sealed with the credentials key ring, its purpose naming the state. */
  codeVerifier: text('code_verifier'),
  createdAt: ts('created_at')
    .notNull()
    .default(sql`clock_timestamp()`),
});
