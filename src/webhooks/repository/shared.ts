import { sql } from 'drizzle-orm';
import type { DeliveryTarget, SealedValues, StoredConfig } from '../../integrations/kinds/kind.js';

/** The secret a rotation replaced, while it still signs (until `previous_secret_expires_at`). */
export const PREVIOUS_SECRET = sql`(CASE WHEN i.previous_secret_expires_at > clock_timestamp() THEN i.previous_secret END) AS previous_secret`;

/** An integration row as the sending statements select it (`i.id, i.type, i.config, i.headers, i.secrets, previous_secret`). */
export interface SendingRow extends Record<string, unknown> {
  integration_id: number;
  type: string;
  config: StoredConfig;
  headers: SealedValues | null;
  secrets: SealedValues | null;
  previous_secret: string | null;
}

/** The columns a sending statement selects for `deliveryTarget` (the table aliased `i`). */
export const SENDING_COLUMNS = sql`i.id AS integration_id, i.type, i.config, i.headers, i.secrets, ${PREVIOUS_SECRET}`;

/** The integration a delivery goes to, from its row: what its kind's destination reads at each attempt. */
export function deliveryTarget(row: SendingRow): DeliveryTarget {
  return {
    id: row.integration_id,
    type: row.type,
    config: row.config,
    headers: row.headers,
    secrets: row.secrets,
    previousSecret: row.previous_secret,
  };
}

/**
 * Whether the event (the table aliased `e`) is still in the outbox, that is, no relay has claimed it
 * (docs/webhooks.md, "The outbox"): one primary-key lookup there.
 */
export const EVENT_UNCLAIMED = sql`EXISTS (SELECT 1 FROM event_outbox o WHERE o.seq = e.seq)`;

/** `bigint` columns arrive as strings from `pg`; ids here stay far below 2^53. */
export const toId = (value: string | number): number => Number(value);

/** Timestamps arrive from raw statements as text (drizzle's parsers): read them as dates. */
export const toDate = (value: Date | string | null): Date | null =>
  value === null ? null : value instanceof Date ? value : new Date(value);
