import { createHash } from 'node:crypto';
import express, { Router } from 'express';
import { jobIds } from '../../queues/index.js';
import { mercadoPagoNotifications } from '../gateways/index.js';
import type { GatewayNotice } from '../gateways/port.js';
import { ServiceUnavailableError } from '../shared/errors.js';
import { toOrderWire } from '../payment-links/mappers.js';
import type { AppContext } from '../shared/context.js';
import { errorHandler } from '../shared/http/errors.js';
import { allowOnly } from '../shared/http/operation.js';
import type { GatewayReport, PaymentGateway } from '../gateways/port.js';
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

/** MP resends a notification with the same x-request-id: one job per notification it sent. */
export const noticeJobId = (notice: GatewayNotice, requestId: string): string =>
  jobIds.gatewayNotices(
    notice.provider,
    notice.topic,
    notice.resourceId,
    createHash('sha256').update(requestId).digest('hex').slice(0, 16),
  );

/**
 * `POST {checkout_url}/gateway/mercadopago/notifications`: Mercado Pago's webhooks. The signature is
 * checked over the query's `data.id` before anything else (401 otherwise, nothing read or changed);
 * a good one is answered 200 at once, and its job reads the payment from MP with the right
 * company's token and applies it (src/orders/settlement.ts). With Redis down the answer is a 503,
 * which MP retries. Mounted only when the deployment has an MP application.
 */
export function mercadoPagoNotificationsRouter(ctx: AppContext, webhookSecret: string): Router {
  const router = Router();
  router.post(
    mercadoPagoNotifications.path,
    express.raw({ type: () => true, limit: ctx.config.limits.bodyBytes }),
    async (req, res) => {
      const notice = mercadoPagoNotifications.read(webhookSecret, {
        query: req.query,
        rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
        header: (name) => req.get(name),
      });
      if (notice) {
        await ctx.producers
          .add('gatewayNotices', noticeJobId(notice, req.get('x-request-id') ?? ''), notice)
          .catch((err: unknown) => {
            ctx.logger.warn({ err, resourceId: notice.resourceId }, 'could not queue an MP notification');
            throw new ServiceUnavailableError('The notification could not be queued; send it again');
          });
      }
      res.json({ received: true });
    },
  );
  allowOnly(router, mercadoPagoNotifications.path, ['post']);
  router.use(mercadoPagoNotifications.path, errorHandler(ctx.logger));
  return router;
}
