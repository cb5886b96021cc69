import express, { Router } from 'express';
import { toOrderWire } from '../payment-links/mappers.js';
import type { AppContext } from '../shared/context.js';
import { errorHandler } from '../shared/http/errors.js';
import { allowOnly } from '../shared/http/operation.js';
import { PAYMENT_METHODS } from '../shared/enums/payment-methods.js';
import { AuthenticationError, ValidationError } from '../shared/errors.js';
import { fieldErrors } from '../shared/validation/fields.js';
import { v, type Output } from '../shared/validation/typed.js';
import {
  checkGatewaySignature,
  GATEWAY_SIGNATURE_HEADER,
  GATEWAY_SIGNATURE_TOLERANCE_SECONDS,
} from './gateway-signature.js';
import { confirmPayment, failPayment, refundOrder, type OrderChange } from './service.js';

export const GATEWAY_CALLBACK_PATH = '/gateway/callback';

const callbackBody = v.required(
  v
    .object({
      order_code: v.required(v.string().guid()),
      status: v.required(v.enum(['paid', 'failed', 'refunded'] as const)),
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

/** What the gateway reports about an order, applied through the one function of that lifecycle step. */
function applyReport(ctx: AppContext, body: CallbackBody): Promise<OrderChange> {
  const target = { code: body.order_code };
  switch (body.status) {
    case 'paid':
      // callbackBody requires it with `paid`; this narrows the type.
      if (body.payment_method === undefined) throw ValidationError.field('payment_method', 'is required');
      return confirmPayment(ctx, {
        orderCode: body.order_code,
        paymentMethod: body.payment_method,
        paidAt: body.paid_at === undefined ? new Date() : new Date(body.paid_at),
      });
    case 'failed':
      return failPayment(ctx, target);
    case 'refunded':
      return refundOrder(ctx, target);
  }
}

/**
 * `POST {checkout_url}/gateway/callback`: the payment gateway reports a paid, failed or refunded
 * order. Authenticated by an HMAC of a timestamp and the raw body (so it is read raw, before any
 * parser), answered in JSON with the error envelope. Mounted only when GATEWAY_WEBHOOK_SECRET is set.
 */
export function gatewayCallbackRouter(ctx: AppContext, secret: string): Router {
  const router = Router();
  router.post(
    GATEWAY_CALLBACK_PATH,
    express.raw({ type: () => true, limit: ctx.config.limits.bodyBytes }),
    async (req, res) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const check = checkGatewaySignature(secret, raw, req.get(GATEWAY_SIGNATURE_HEADER));
      if (check === 'stale') {
        throw new AuthenticationError(
          `${GATEWAY_SIGNATURE_HEADER} timestamp is more than ${GATEWAY_SIGNATURE_TOLERANCE_SECONDS} s from now`,
        );
      }
      if (check !== 'valid') throw new AuthenticationError(`Missing or invalid ${GATEWAY_SIGNATURE_HEADER}`);
      const { order, changed } = await applyReport(ctx, parseBody(raw));
      res.json({ received: true, replayed: !changed, order: toOrderWire(order) });
    },
  );
  allowOnly(router, GATEWAY_CALLBACK_PATH, ['post']);
  // The gateway is an API client: its errors are JSON envelopes, not buyer pages.
  router.use(GATEWAY_CALLBACK_PATH, errorHandler(ctx.logger));
  return router;
}
