/**
 * Whether an error means a store (PostgreSQL or Redis) cannot be reached right now, as opposed to a
 * bug: such a request gets 503 with Retry-After, and the process keeps running.
 */

// Network failures of a connection (node's codes), and PostgreSQL's "connection exception" class (08),
// shutdowns in progress (57P01–57P03) and "too many connections" (53300).
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const PG_UNAVAILABLE = /^(08...|57P0[123]|53300)$/;

const MESSAGES = [
  /Connection terminated/i, // pg: the server went away mid-query
  /timeout exceeded when trying to connect/i, // pg-pool
  /Client has encountered a connection error/i, // pg
  /Connection is closed/i, // ioredis
  /Stream isn't writeable/i, // ioredis, fail-fast connection while Redis is down
  /Reached the max retries per request limit/i, // ioredis MaxRetriesPerRequestError
  /Redis not ready/i,
];

export function isStoreUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    if (typeof e !== 'object') return false;
    const { code, name, message } = e as { code?: unknown; name?: unknown; message?: unknown };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || PG_UNAVAILABLE.test(code))) return true;
    if (name === 'MaxRetriesPerRequestError') return true;
    if (typeof message === 'string' && MESSAGES.some((pattern) => pattern.test(message))) return true;
    e = 'cause' in e ? e.cause : undefined;
  }
  return false;
}
