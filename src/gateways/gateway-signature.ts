import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * `X-Gateway-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`. The timestamp is
 * signed with the body, so a captured callback cannot be replayed once it is older than the tolerance.
 */
export const GATEWAY_SIGNATURE_HEADER = 'X-Gateway-Signature';
export const GATEWAY_SIGNATURE_TOLERANCE_SECONDS = 300;

const hmacHex = (secret: string, timestamp: number, body: Buffer | string): string =>
  createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');

/** The header value a gateway sends for `body` at `timestamp` (unix seconds; now by default). */
export function signGatewayBody(
  secret: string,
  body: Buffer | string,
  timestamp = Math.floor(Date.now() / 1000),
): string {
  return `t=${timestamp},v1=${hmacHex(secret, timestamp, body)}`;
}

/** `t` and every `v1` of a header (a gateway rotating its secret may send one per secret); null if malformed. */
function parse(header: string): { timestamp: number; signatures: string[] } | null {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [key, value, ...rest] = part.trim().split('=');
    if (value === undefined || rest.length > 0) return null;
    if (key === 't' && /^\d{1,12}$/.test(value) && timestamp === undefined) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value.toLowerCase());
    else if (key === 't' || key === 'v1') return null;
    // Other schemes are ignored, so a gateway can add a newer one beside v1.
  }
  return timestamp === undefined || signatures.length === 0 ? null : { timestamp, signatures };
}

export type GatewaySignatureCheck = 'valid' | 'invalid' | 'stale';

/** Constant-time check of a signature header against the raw body, and of its timestamp against `now`. */
export function checkGatewaySignature(
  secret: string,
  body: Buffer,
  header: string | undefined,
  now: Date = new Date(),
): GatewaySignatureCheck {
  const parsed = header === undefined ? null : parse(header);
  if (!parsed) return 'invalid';
  const expected = Buffer.from(hmacHex(secret, parsed.timestamp, body), 'utf8');
  const matches = parsed.signatures.some((given) => timingSafeEqual(expected, Buffer.from(given, 'utf8')));
  if (!matches) return 'invalid';
  const skew = Math.abs(now.getTime() / 1000 - parsed.timestamp);
  return skew > GATEWAY_SIGNATURE_TOLERANCE_SECONDS ? 'stale' : 'valid';
}
