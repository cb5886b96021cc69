/**
 * Custom headers of webhook integrations (docs/webhooks.md, "Filters and headers"): at most ten,
 * sent with every attempt, never one of ours. Their values are credentials (a receiver's gateway
 * token), so they are a sealed group of the integration (`../sealed.ts`): stored sealed, masked in
 * every answer, kept by a PATCH that sends the mask back.
 */
import { SECRET_MASK } from '../sealed.js';

/** What every answer shows in place of a header's value, and what a PATCH sends to keep it. */
export const HEADER_MASK = SECRET_MASK;

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
