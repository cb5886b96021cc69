/**
 * Mercado Pago's notifications (webhooks) to the buyer pages' MP endpoint: `POST
 * …?data.id=<id>&type=payment` with a JSON body `{action, type, data: {id}, user_id, …}`, signed in
 * `x-signature: ts=<unix>,v1=<hex>`: HMAC-SHA256 with the application's webhook secret of
 * `id:<data.id from the query, lower-cased>;request-id:<x-request-id>;ts:<ts>;`.
 *
 * The signature covers the resource id alone, so nothing else in the notification is believed: the
 * payment is read back from MP before anything changes (see src/orders/settlement.ts).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AuthenticationError } from '../../shared/errors.js';
import type { GatewayNotice } from '../port.js';

export interface MpNotificationRequest {
  query: Record<string, unknown>;
  rawBody: Buffer;
  header(name: string): string | undefined;
}

/** `ts=…,v1=…` (in any order, spaces allowed) → its parts. */
function signatureParts(header: string): { ts?: string; v1?: string } {
  const parts: { ts?: string; v1?: string } = {};
  for (const piece of header.split(',')) {
    const [key, value] = piece.split('=', 2).map((s) => s.trim());
    if (key === 'ts' && value) parts.ts = value;
    if (key === 'v1' && value) parts.v1 = value;
  }
  return parts;
}

const single = (value: unknown): string | undefined =>
  typeof value === 'string'
    ? value
    : Array.isArray(value) && typeof value[0] === 'string'
      ? value[0]
      : undefined;

function verify(secret: string, request: MpNotificationRequest, dataId: string): void {
  const header = request.header('x-signature');
  const requestId = request.header('x-request-id');
  const { ts, v1 } = signatureParts(header ?? '');
  if (!ts || !v1 || !requestId || !/^[0-9a-f]{64}$/i.test(v1))
    throw new AuthenticationError('Missing or malformed x-signature');
  const manifest = `id:${dataId.toLowerCase()};request-id:${requestId};ts:${ts};`;
  const expected = createHmac('sha256', secret).update(manifest).digest();
  if (!timingSafeEqual(expected, Buffer.from(v1, 'hex')))
    throw new AuthenticationError('Invalid x-signature');
}

/**
 * The topics followed, by the `type` MP puts in the query: payments, and chargebacks under both the
 * names MP's Webhooks guide uses for them (`chargebacks`, and `topic_chargebacks_wh` of the
 * "Chargebacks" topic configured in Your integrations).
 */
const TOPICS: Record<string, GatewayNotice['topic']> = {
  payment: 'payment',
  chargebacks: 'chargebacks',
  topic_chargebacks_wh: 'chargebacks',
};

function bodyAccount(rawBody: Buffer): string | null {
  try {
    const body: unknown = JSON.parse(rawBody.toString('utf8'));
    if (typeof body !== 'object' || body === null) return null;
    const userId = (body as { user_id?: unknown }).user_id;
    if (
      (typeof userId === 'string' && /^\d{1,20}$/.test(userId)) ||
      (typeof userId === 'number' && Number.isSafeInteger(userId))
    )
      return String(userId);
    return null;
  } catch {
    return null;
  }
}

/**
 * Verifies a notification (401 when the signature does not hold, before anything is read) and says
 * what it is about; undefined for a topic the service does not follow (answered 200 and dropped).
 */
export function readMpNotification(
  secret: string,
  request: MpNotificationRequest,
): GatewayNotice | undefined {
  const dataId = single(request.query['data.id']);
  if (dataId === undefined || !/^[A-Za-z0-9_-]{1,64}$/.test(dataId))
    throw new AuthenticationError('Missing or malformed data.id: the signature cannot be checked');
  verify(secret, request, dataId);
  const topic = TOPICS[single(request.query.type) ?? ''];
  if (!topic) return undefined;
  return { provider: 'mercadopago', topic, resourceId: dataId, accountId: bodyAccount(request.rawBody) };
}
