import { sql } from 'drizzle-orm';

/** The secret a rotation replaced, while it still signs (until `previous_secret_expires_at`). */
export const PREVIOUS_SECRET = sql`(CASE WHEN i.previous_secret_expires_at > clock_timestamp() THEN i.previous_secret END) AS previous_secret`;

/** An integration row as the sending statements select it (`i.type, i.config, i.headers, previous_secret`). */
export interface SendingRow extends Record<string, unknown> {
  type: string;
  config: Record<string, unknown>;
  headers: Record<string, string> | null;
  previous_secret: string | null;
}

export interface SendingFacts {
  integrationType: string;
  url: string | null;
  /** The current secret first, then the one a rotation replaced while it still signs. */
  secrets: string[];
  /** Custom headers, values still sealed: opened at the attempt, never carried further. */
  sealedHeaders: Record<string, string> | null;
}

/** Where an integration's webhooks go and the secrets that sign them, from its row. */
export function sendingFacts(row: SendingRow): SendingFacts {
  const { url, secret } = row.config;
  return {
    integrationType: row.type,
    url: typeof url === 'string' ? url : null,
    secrets: [
      typeof secret === 'string' ? secret : '',
      ...(row.previous_secret ? [row.previous_secret] : []),
    ],
    sealedHeaders: row.headers,
  };
}

/** `bigint` columns arrive as strings from `pg`; ids here stay far below 2^53. */
export const toId = (value: string | number): number => Number(value);

/** Timestamps arrive from raw statements as text (drizzle's parsers): read them as dates. */
export const toDate = (value: Date | string | null): Date | null =>
  value === null ? null : value instanceof Date ? value : new Date(value);
