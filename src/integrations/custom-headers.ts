/**
 * Custom headers of webhook integrations (docs/webhooks.md, "Filters and headers"): at most ten,
 * sent with every attempt, never one of ours. Their values are credentials (a receiver's gateway
 * token), so they are stored sealed under CREDENTIALS_ENCRYPTION_KEY (src/shared/credentials.ts, as
 * the gateway tokens are) and every answer shows them masked; a PATCH that sends the mask back keeps
 * the stored value.
 */
import { credentialSealer } from '../shared/credentials.js';
import { ValidationError } from '../shared/errors.js';

/** What every answer shows in place of a header's value, and what a PATCH sends to keep it. */
export const HEADER_MASK = '••••';

export const HEADER_LIMITS = { count: 10, nameLength: 100, valueLength: 1024 } as const;

/** A header name as HTTP allows it (RFC 9110 token). */
export const HEADER_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Visible ASCII, spaces and tabs inside: nothing that could end the header or start another. */
export const HEADER_VALUE_PATTERN = /^[\x21-\x7e]([\t\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * Names a custom header may not take: the ones every attempt sets itself (`content-type`,
 * `content-length`, `host`, `user-agent`, the Standard Webhooks `webhook-*`, the trace context), and
 * those HTTP reserves to the connection, which the HTTP client would refuse at every attempt.
 */
const FORBIDDEN = new Set([
  'content-type',
  'content-length',
  'host',
  'user-agent',
  'traceparent',
  'tracestate',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
]);

/** Why a name is not one a custom header may take, or undefined when it may. */
export function forbiddenHeaderName(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (lower.startsWith('webhook-')) return 'webhook-* headers are the signature’s';
  if (lower.startsWith('proxy-')) return 'proxy-* headers are the connection’s';
  if (FORBIDDEN.has(lower)) return `${lower} is set by every attempt`;
  return undefined;
}

/** Header name → sealed value, as the `headers` column holds them. */
export type SealedHeaders = Record<string, string>;

const purpose = (integrationId: number, name: string): string =>
  `integration:${integrationId}:header:${name.toLowerCase()}`;

/**
 * The headers to store: each value sealed, or the stored sealed value kept where the request sent
 * the mask back. A mask for a header that has no stored value, two names differing only in case, or
 * a deployment without CREDENTIALS_ENCRYPTION_KEY are 400s under `config.headers`.
 */
export function sealHeaders(
  key: Buffer | undefined,
  integrationId: number,
  given: Record<string, string>,
  stored: SealedHeaders | null,
): SealedHeaders | null {
  const entries = Object.entries(given);
  if (entries.length === 0) return null;
  const lowered = entries.map(([name]) => name.toLowerCase());
  if (new Set(lowered).size !== lowered.length)
    throw ValidationError.field('config.headers', 'names the same header twice (names ignore case)');
  if (key === undefined)
    throw ValidationError.field(
      'config.headers',
      'cannot be stored: the server has no CREDENTIALS_ENCRYPTION_KEY to encrypt them with',
    );
  const sealer = credentialSealer(key);
  const storedByName = new Map(
    Object.entries(stored ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
  );
  const sealed: SealedHeaders = {};
  for (const [name, value] of entries) {
    if (value === HEADER_MASK) {
      const kept = storedByName.get(name.toLowerCase());
      if (kept === undefined)
        throw ValidationError.field('config.headers', `${name} has no stored value to keep: send its value`);
      sealed[name] = kept;
    } else {
      sealed[name] = sealer.seal(value, purpose(integrationId, name));
    }
  }
  return sealed;
}

/** The values to send, opened; throws CredentialUnreadableError when one does not open. */
export function openHeaders(
  key: Buffer | undefined,
  integrationId: number,
  stored: SealedHeaders | null,
): Record<string, string> {
  if (!stored) return {};
  const sealer = credentialSealer(key);
  return Object.fromEntries(
    Object.entries(stored).map(([name, value]) => [name, sealer.open(value, purpose(integrationId, name))]),
  );
}

/** The names with their values masked: what every answer and page shows. */
export const maskedHeaders = (stored: SealedHeaders | null): Record<string, string> =>
  Object.fromEntries(Object.keys(stored ?? {}).map((name) => [name, HEADER_MASK]));
