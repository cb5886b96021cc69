/**
 * The service's own callback format: a JSON body `{order_code, status, payment_method, paid_at?}`
 * signed with `X-Gateway-Signature` (see orders/gateway-signature.ts). The dev gateway speaks it, and
 * so can a bridge in front of any PSP (docs/api.md, "Gateway callback").
 */
import { GATEWAY_REPORT_STATUSES, type GatewayCallback, type GatewayReport } from './port.js';
import {
  checkGatewaySignature,
  GATEWAY_SIGNATURE_HEADER,
  GATEWAY_SIGNATURE_TOLERANCE_SECONDS,
} from './gateway-signature.js';
import { PAYMENT_METHODS } from '../shared/enums/payment-methods.js';
import { AuthenticationError, ValidationError } from '../shared/errors.js';
import { fieldErrors } from '../shared/validation/fields.js';
import { v, type Output } from '../shared/validation/typed.js';

const callbackBody = v.required(
  v
    .object({
      order_code: v.required(v.string().guid()),
      status: v.required(v.enum(GATEWAY_REPORT_STATUSES)),
      // A confirmation says how the buyer paid; a failure or a refund is about the order as it is.
      payment_method: v.when(
        'status',
        ['paid'],
        v.required(v.enum(PAYMENT_METHODS)),
        v.enum(PAYMENT_METHODS),
      ),
      paid_at: v.string().isoDate(),
    })
    // Gateways add fields of their own; only these four matter here.
    .unknown(true),
);
type CallbackBody = Output<typeof callbackBody>;

function parseBody(raw: Buffer): CallbackBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ValidationError('The body must be JSON');
  }
  const { value, error } = callbackBody.validate(parsed, { abortEarly: false });
  if (error) {
    const fields = fieldErrors(error, { root: 'body' });
    throw new ValidationError(`Invalid callback: ${Object.keys(fields).join(', ')}`, fields);
  }
  return value;
}

function reportOf(body: CallbackBody, receivedAt: Date): GatewayReport {
  if (body.status !== 'paid') return { status: body.status, orderCode: body.order_code };
  // callbackBody requires it with `paid`; this narrows the type.
  if (body.payment_method === undefined) throw ValidationError.field('payment_method', 'is required');
  return {
    status: 'paid',
    orderCode: body.order_code,
    paymentMethod: body.payment_method,
    paidAt: body.paid_at === undefined ? receivedAt : new Date(body.paid_at),
  };
}

/** Verifies a callback signed with `secret` (401 when forged or stale) and reads its report. */
export function readSignedCallback(secret: string, callback: GatewayCallback): GatewayReport {
  const check = checkGatewaySignature(
    secret,
    callback.rawBody,
    callback.header(GATEWAY_SIGNATURE_HEADER),
    callback.receivedAt,
  );
  if (check === 'stale') {
    throw new AuthenticationError(
      `${GATEWAY_SIGNATURE_HEADER} timestamp is more than ${GATEWAY_SIGNATURE_TOLERANCE_SECONDS} s from now`,
    );
  }
  if (check !== 'valid') throw new AuthenticationError(`Missing or invalid ${GATEWAY_SIGNATURE_HEADER}`);
  return reportOf(parseBody(callback.rawBody), callback.receivedAt);
}
