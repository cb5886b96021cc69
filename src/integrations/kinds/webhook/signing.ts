import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

const keys = new Map<string, KeyObject>();

/**
 * The HMAC key of a Standard Webhooks secret (docs/api.md, "Signatures"): a `whsec_<base64>` secret
 * signs with its decoded bytes, any other secret with its UTF-8 bytes.
 */
function signingKey(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    key = createSecretKey(
      secret.startsWith('whsec_')
        ? Buffer.from(secret.slice('whsec_'.length), 'base64')
        : Buffer.from(secret, 'utf8'),
    );
    // Bounded: a secret is read from PostgreSQL at every attempt, so a rotated one simply misses.
    if (keys.size >= 1000) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, with Node's native HMAC. */
export function sign(secret: string, eventId: string, timestamp: string, body: string): string {
  return `v1,${createHmac('sha256', signingKey(secret)).update(`${eventId}.${timestamp}.${body}`).digest('base64')}`;
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Fresh timestamp and signature for one attempt; the id stays the event id across retries. During a
 * secret rotation's overlap each secret adds its signature, space-separated (Standard Webhooks), so a
 * receiver verifying with either secret accepts the delivery.
 */
export function signedHeaders(
  secrets: readonly string[],
  eventId: string,
  body: string,
  now = new Date(),
): SignedHeaders {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  return {
    'webhook-id': eventId,
    'webhook-timestamp': timestamp,
    'webhook-signature': secrets.map((secret) => sign(secret, eventId, timestamp, body)).join(' '),
  };
}
