import express, { Router } from 'express';
import { toOrderWire } from '../payment-links/mappers.js';
import type { AppContext } from '../shared/context.js';
import { errorHandler } from '../shared/http/errors.js';
import { allowOnly } from '../shared/http/operation.js';
import type { GatewayReport, PaymentGateway } from './gateway.js';
import { chargeBack, confirmPayment, failPayment, refundOrder, type OrderChange } from './service.js';

export const GATEWAY_CALLBACK_PATH = '/gateway/callback';

/** What the gateway reports about an order, applied through the one function of that lifecycle step. */
function applyReport(ctx: AppContext, report: GatewayReport): Promise<OrderChange> {
  const target = { code: report.orderCode };
  switch (report.status) {
    case 'paid':
      return confirmPayment(ctx, {
        orderCode: report.orderCode,
        paymentMethod: report.paymentMethod,
        paidAt: report.paidAt,
      });
    case 'failed':
      return failPayment(ctx, target);
    case 'refunded':
      return refundOrder(ctx, target);
    case 'chargeback':
      return chargeBack(ctx, target);
  }
}

/**
 * `POST {checkout_url}/gateway/callback`: the payment gateway reports a paid, failed, refunded or
 * charged-back order. The gateway's adapter verifies and reads it from the raw body (signatures cover
 * the bytes, so it is read before any parser); answered in JSON with the error envelope. Mounted only
 * for a gateway that takes callbacks.
 */
export function gatewayCallbackRouter(
  ctx: AppContext,
  readCallback: NonNullable<PaymentGateway['readCallback']>,
): Router {
  const router = Router();
  router.post(
    GATEWAY_CALLBACK_PATH,
    express.raw({ type: () => true, limit: ctx.config.limits.bodyBytes }),
    async (req, res) => {
      const report = readCallback({
        rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
        header: (name) => req.get(name),
        receivedAt: new Date(),
      });
      const { order, changed } = await applyReport(ctx, report);
      res.json({ received: true, replayed: !changed, order: toOrderWire(order) });
    },
  );
  allowOnly(router, GATEWAY_CALLBACK_PATH, ['post']);
  // The gateway is an API client: its errors are JSON envelopes, not buyer pages.
  router.use(GATEWAY_CALLBACK_PATH, errorHandler(ctx.logger));
  return router;
}
