/** What a PostgreSQL error says, found through drizzle's wrapper (`cause`). */
export interface PgErrorInfo {
  code: string;
  constraint: string | undefined;
}

export function pgError(err: unknown): PgErrorInfo | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 3; depth++) {
    if (typeof e === 'object' && 'code' in e && typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) {
      const constraint = 'constraint' in e && typeof e.constraint === 'string' ? e.constraint : undefined;
      return { code: e.code, constraint };
    }
    e = typeof e === 'object' && 'cause' in e ? e.cause : undefined;
  }
  return undefined;
}

export const isUniqueViolation = (err: unknown, constraint?: string): boolean => {
  const info = pgError(err);
  return info?.code === '23505' && (constraint === undefined || info.constraint === constraint);
};

export const isForeignKeyViolation = (err: unknown): boolean => pgError(err)?.code === '23503';

/**
 * Drizzle puts the query parameters into its error message, and integration configs hold webhook
 * secrets; an unexpected failure is rethrown without them so the error log never carries a secret.
 */
export function withoutParameters(err: unknown): Error {
  const info = pgError(err);
  return new Error(
    `database error${info ? ` ${info.code}${info.constraint ? ` (${info.constraint})` : ''}` : ''}`,
  );
}

/** A deadlock or serialization failure: the statement did nothing and may simply be run again. */
export const isRetryableTransactionError = (err: unknown): boolean => {
  const code = pgError(err)?.code;
  return code === '40P01' || code === '40001';
};
