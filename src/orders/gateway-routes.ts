import express, { Router } from 'express';
import { Joi } from 'celebrate';
import type { AppContext } from '../shared/context.js';
import { AuthenticationError, ValidationError, type FieldErrors } from '../shared/errors.js';
import { toOrderWire } from '../payment-links/mappers.js';
import { GATEWAY_SIGNATURE_HEADER, isValidGatewaySignature } from './gateway-signature.js';
import { PAYMENT_METHODS, type PaymentMethod } from './repository.js';
import { confirmPayment } from './service.js';

export const GATEWAY_CALLBACK_PATH = '/gateway/callback';

const callbackBody = Joi.object({
  order_code: Joi.string().guid().required(),
  status: Joi.string().valid('paid').required(),
  payment_method: Joi.string()
    .valid(...PAYMENT_METHODS)
    .required(),
  paid_at: Joi.date().iso(),
})
  // Gateways add fields of their own; only these four matter here.
  .unknown(true)
  .required();

interface CallbackBody {
  order_code: string;
  status: 'paid';
  payment_method: PaymentMethod;
  paid_at?: Date;
}

function parseBody(raw: Buffer): CallbackBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ValidationError('The body must be JSON');
  }
  const { value, error } = callbackBody.validate(parsed, { abortEarly: false });
  if (error) {
    const fields: FieldErrors = {};
    for (const d of error.details) {
      const key = d.path.length > 0 ? d.path.join('.') : 'body';
      (fields[key] ??= []).push(d.message.replace(/^"[^"]*" /, ''));
    }
    throw new ValidationError(`Invalid callback: ${Object.keys(fields).join(', ')}`, fields);
  }
  return value as CallbackBody;
}

/**
 * `POST {checkout_url}/gateway/callback`: the payment gateway confirms a paid order. Authenticated
 * by an HMAC of the raw body (so it is read raw, before any parser), answered in JSON with the
 * error envelope. Mounted only when GATEWAY_WEBHOOK_SECRET is configured.
 */
export function gatewayCallbackRouter(ctx: AppContext, secret: string): Router {
  const router = Router();
  router.post(
    GATEWAY_CALLBACK_PATH,
    express.raw({ type: () => true, limit: ctx.config.limits.bodyBytes }),
    async (req, res) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (!isValidGatewaySignature(secret, raw, req.get(GATEWAY_SIGNATURE_HEADER))) {
        throw new AuthenticationError(`Missing or invalid ${GATEWAY_SIGNATURE_HEADER}`);
      }
      const body = parseBody(raw);
      const { order, changed } = await confirmPayment(ctx, {
        orderCode: body.order_code,
        paymentMethod: body.payment_method,
        paidAt: body.paid_at ?? new Date(),
      });
      res.json({ received: true, replayed: !changed, order: toOrderWire(order) });
    },
  );
  return router;
}
