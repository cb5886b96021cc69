import { Webhook } from 'standardwebhooks';

const signers = new Map<string, Webhook>();

/**
 * Standard Webhooks signature (docs/api.md, "Signatures"): a `whsec_<base64>` secret signs with its
 * decoded bytes, any other secret with its UTF-8 bytes.
 */
export function signer(secret: string): Webhook {
  let webhook = signers.get(secret);
  if (!webhook) {
    webhook = secret.startsWith('whsec_')
      ? new Webhook(secret)
      : new Webhook(new TextEncoder().encode(secret), { format: 'raw' });
    // Bounded: a secret is read from PostgreSQL at every attempt, so a rotated one simply misses.
    if (signers.size >= 1000) signers.clear();
    signers.set(secret, webhook);
  }
  return webhook;
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
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => signer(secret).sign(eventId, now, body)).join(' '),
  };
}
