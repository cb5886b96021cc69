/**
 * Refunds through the order's gateway (docs/api.md, "Orders in the panel" and "The buyer's page"). A
 * PSP that refunds (Mercado Pago) is asked first, once per order (an idempotency key fixed per order),
 * and the order changes here only once it accepted, with `order.refunded` in the same transaction.
 * When the PSP does not answer, the panel answers 502 (the seller asks again: its wire shape is a
 * refunded order or an error), while a buyer's refund is queued on `refunds`: the order stays `paid`
 * with the refund asked (who, why, when), and the queue's job refunds it when the PSP answers.
 */
import { ensureJob, jobIds } from '../../queues/index.js';
import { gatewayOfCharge } from '../gateways/index.js';
import { GatewayUnavailableError, RefundRefusedError } from '../gateways/port.js';
import type { AppContext } from '../shared/context.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import { findCharge } from './charge-repository.js';
import {
  dropQueuedRefund,
  findOrderByCode,
  markRefundQueued,
  waitingRefunds,
  type RefundRequest,
} from './repository.js';
import { refundOrder } from './service.js';

/**
 * Refunds an order's payment at its PSP, in full, once per order; nothing for an order with no PSP
 * payment (the dev gateway, the signed callback). Throws RefundRefusedError or GatewayUnavailableError.
 */
export async function refundAtGateway(ctx: AppContext, code: string): Promise<void> {
  const charge = await findCharge(ctx.db, code);
  if (!charge?.reference) return;
  const gateway = await gatewayOfCharge(ctx, charge);
  await gateway.refund?.(charge.reference, `refund-${code}`);
}

export const refundRefused = (err: RefundRefusedError) =>
  new ConflictError(`The payment gateway refused the refund: ${err.message}`);

/** Adds the job of a queued refund; a Redis outage leaves it to the sweep (the order records it). */
async function enqueueRefund(ctx: AppContext, code: string): Promise<void> {
  try {
    await ensureJob(ctx.producers, 'refunds', jobIds.refunds(code), { orderCode: code });
  } catch (err) {
    ctx.logger.warn({ err, orderCode: code }, 'a queued refund was not enqueued; the sweep adds it');
  }
}

/**
 * A buyer's refund of a paid order of the company: made at once (`refunded`), or, when the PSP did not
 * answer, queued (`queued`: the order still `paid`, refunded by the `refunds` queue when the PSP
 * answers). Asked again while queued, it stays queued. The PSP refusing is a 409, the order unchanged.
 */
export async function refundForBuyer(
  ctx: AppContext,
  target: { companyId: number; code: string },
  request: RefundRequest,
): Promise<'refunded' | 'queued'> {
  const order = await findOrderByCode(ctx.db, target.code);
  if (!order || order.companyId !== target.companyId) throw new NotFoundError(`No order ${target.code}`);
  if (order.status === 'paid' && order.refundQueuedAt) return 'queued';
  if (order.status === 'paid') {
    try {
      await refundAtGateway(ctx, target.code);
    } catch (err) {
      if (err instanceof RefundRefusedError) throw refundRefused(err);
      if (!(err instanceof GatewayUnavailableError)) throw err;
      ctx.logger.warn(
        { orderCode: target.code, reason: err.message },
        'refund queued: the gateway did not answer',
      );
      await markRefundQueued(ctx.db, target, request);
      await enqueueRefund(ctx, target.code);
      return 'queued';
    }
  }
  await refundOrder(ctx, target, request);
  return 'refunded';
}

/**
 * The `refunds` job: refunds a queued refund's order at its PSP, then marks it refunded with
 * `order.refunded` (one transaction). The PSP not answering throws (BullMQ retries it with backoff);
 * the PSP refusing ends the queued refund (logged; the order stays paid and the buyer may ask again).
 * An order refunded meanwhile (by the panel: the same idempotency key, one refund at the PSP), charged
 * back, or unknown, is left as it is.
 */
export async function runQueuedRefund(
  ctx: AppContext,
  code: string,
): Promise<'refunded' | 'refused' | 'nothing'> {
  const order = await findOrderByCode(ctx.db, code);
  if (!order || order.status !== 'paid' || !order.refundQueuedAt) return 'nothing';
  try {
    await refundAtGateway(ctx, code);
  } catch (err) {
    if (!(err instanceof RefundRefusedError)) throw err;
    ctx.logger.warn({ orderCode: code, reason: err.message }, 'the gateway refused a queued refund');
    await dropQueuedRefund(ctx.db, order.id);
    return 'refused';
  }
  await refundOrder(
    ctx,
    { code, companyId: order.companyId },
    { by: order.refundRequestedBy ?? 'buyer', reason: order.refundReason },
  );
  return 'refunded';
}

/** The sweep's part: adds the job again of queued refunds waiting past `graceMs` whose job ended or was lost. */
export async function sweepQueuedRefunds(ctx: AppContext, graceMs: number, batch: number): Promise<number> {
  let added = 0;
  for (const code of await waitingRefunds(ctx.db, graceMs, batch))
    if (await ensureJob(ctx.producers, 'refunds', jobIds.refunds(code), { orderCode: code })) added += 1;
  return added;
}
