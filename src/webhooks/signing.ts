import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks signature (decisions, "Signatures"): a `whsec_<base64>` secret signs with its
 * decoded bytes, any other secret with its UTF-8 bytes.
 */
export function signer(secret: string): Webhook {
  if (secret.startsWith('whsec_')) return new Webhook(secret);
  return new Webhook(new TextEncoder().encode(secret), { format: 'raw' });
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** Fresh timestamp and signature for one attempt; the id stays the event id across retries. */
export function signedHeaders(secret: string, eventId: string, body: string, now = new Date()): SignedHeaders {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signer(secret).sign(eventId, now, body),
  };
}
