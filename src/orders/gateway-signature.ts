import { createHmac, timingSafeEqual } from 'node:crypto';

/** `X-Gateway-Signature: sha256=<hex HMAC-SHA256 of the raw body>`. */
export const GATEWAY_SIGNATURE_HEADER = 'X-Gateway-Signature';

export function signGatewayBody(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Constant-time check of a signature header against the raw body. */
export function isValidGatewaySignature(secret: string, body: Buffer, header: string | undefined): boolean {
  if (header === undefined || !/^sha256=[0-9a-f]{64}$/i.test(header.trim())) return false;
  const expected = Buffer.from(signGatewayBody(secret, body), 'utf8');
  const given = Buffer.from(header.trim().toLowerCase(), 'utf8');
  return expected.length === given.length && timingSafeEqual(expected, given);
}
