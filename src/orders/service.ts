import type { AppContext } from '../shared/context.js';
import type { Executor } from '../shared/db/index.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import { recordEvent } from '../events/outbox.js';
import { publishAfterCommit } from '../events/publish.js';
import { markLinkPaid } from '../payment-links/transitions.js';
import { findLinkById, type LinkRow } from '../payment-links/repository.js';
import { scheduleRenewal, startSubscription } from './renewals.js';
import type { SubscriptionRow } from './subscription-repository.js';
import { orderEventData } from './payload.js';
import {
  insertOrder,
  lockOrderByCode,
  markOrderPaid,
  type NewOrderRow,
  type OrderRow,
} from './repository.js';
import type { PaymentMethod } from '../shared/enums/payment-methods.js';

async function linkOf(tx: Executor, linkId: string | null): Promise<LinkRow | null> {
  if (linkId === null) return null;
  return (await findLinkById(tx, linkId))?.link ?? null;
}

/**
 * A pending order and its `order.created` event, in the caller's transaction (the checkout's pay
 * step). Returns the order and the event id to publish after commit.
 */
export async function createPendingOrder(
  tx: Executor,
  values: Omit<NewOrderRow, 'status' | 'paymentMethod' | 'paidAt' | 'subscriptionId'> & {
    paymentMethod: PaymentMethod;
  },
  link: LinkRow | null,
): Promise<{ order: OrderRow; eventId: string }> {
  const order = await insertOrder(tx, { ...values, status: 'pending', paidAt: null, subscriptionId: null });
  const { productId, data } = await orderEventData(tx, order, link, null);
  const event = await recordEvent(tx, {
    companyId: order.companyId,
    type: 'order.created',
    livemode: order.livemode,
    test: false,
    productId,
    data,
  });
  return { order, eventId: event.id };
}

export interface Confirmation {
  orderCode: string;
  paymentMethod: PaymentMethod;
  paidAt: Date;
}

export interface Confirmed {
  order: OrderRow;
  /** False when the order was already paid: a repeated callback changes nothing. */
  changed: boolean;
}

/**
 * The gateway confirmed a payment (signed callback, or the dev gateway). In one transaction: the
 * order goes pending → paid, its link active → paid (a reusable link stays payable and shows this
 * order), a plan order starts its subscription, and `order.paid` is recorded. Idempotent.
 *
 * The gateway has taken the money by now, so the order is recorded as paid even when its link can
 * no longer take the payment (canceled or paid by someone else meanwhile); that is logged, and the
 * link keeps its state.
 */
export async function confirmPayment(ctx: AppContext, confirmation: Confirmation): Promise<Confirmed> {
  const result = await ctx.db.transaction(async (tx) => {
    const pending = await lockOrderByCode(tx, confirmation.orderCode);
    if (!pending) throw new NotFoundError(`No order ${confirmation.orderCode}`);
    if (pending.status === 'paid') return { order: pending, changed: false as const };
    if (pending.status !== 'pending')
      throw new ConflictError(`Order ${pending.code} is ${pending.status}, not pending`);

    // The first period starts at confirmation, not at the reported paid_at: a stale or skewed gateway
    // time must not put the subscription periods behind (a burst of catch-up renewals) or ahead.
    const subscription: SubscriptionRow | null =
      pending.planId !== null ? await startSubscription(tx, pending, new Date()) : null;
    const order = await markOrderPaid(tx, pending.id, {
      paymentMethod: confirmation.paymentMethod,
      paidAt: confirmation.paidAt,
      subscriptionId: subscription?.id ?? null,
    });
    if (!order) throw new Error(`order ${pending.code} left pending under its row lock`);

    let link = await linkOf(tx, order.paymentLinkId);
    if (link) {
      const paid = await markLinkPaid(tx, link.id, { paidAt: confirmation.paidAt, orderId: order.id });
      if (paid) link = paid;
      else
        ctx.logger.warn(
          { orderCode: order.code, linkId: link.id, linkStatus: link.status },
          'paid order for a link that can no longer take it',
        );
    }
    const { productId, data } = await orderEventData(tx, order, link, subscription);
    const event = await recordEvent(tx, {
      companyId: order.companyId,
      type: 'order.paid',
      livemode: order.livemode,
      test: false,
      productId,
      data,
    });
    return { order, changed: true as const, eventId: event.id, subscription };
  });
  if (result.changed) {
    publishAfterCommit(ctx, [result.eventId]);
    if (result.subscription) scheduleRenewal(ctx, result.subscription, 2);
  }
  return { order: result.order, changed: result.changed };
}
