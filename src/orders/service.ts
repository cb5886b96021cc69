import type { AppContext } from '../shared/context.js';
import type { Executor } from '../shared/db/index.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import type { EventKind } from '../events/kinds.js';
import { publishAfterCommit } from '../events/publish.js';
import { markLinkPaid } from '../payment-links/transitions.js';
import { findLinkById, type LinkRow } from '../payment-links/repository.js';
import { recordAccessChange } from './access.js';
import { recordOrderEventOf, recordSubscriptionEvent } from './order-events.js';
import { renewalOrderFailed, renewalOrderPaid, scheduleNext } from './renewals.js';
import { scheduleRenewal, startSubscription } from './subscription-periods.js';
import {
  findSubscription,
  lockSubscription,
  markCanceled,
  type SubscriptionRow,
} from './subscription-repository.js';
import {
  lockOrderByCode,
  markOrderChargedBack,
  markOrderFailed,
  markOrderPaid,
  markOrderRefunded,
  type RefundRequest,
  type OrderRow,
} from './repository.js';
import type { PaymentMethod } from '../shared/enums/payment-methods.js';

async function linkOf(tx: Executor, linkId: string | null): Promise<LinkRow | null> {
  if (linkId === null) return null;
  return (await findLinkById(tx, linkId))?.link ?? null;
}

async function subscriptionOf(tx: Executor, order: OrderRow): Promise<SubscriptionRow | null> {
  if (order.subscriptionId === null) return null;
  return (await findSubscription(tx, order.subscriptionId)) ?? null;
}

/**
 * Records an event about `order` in the caller's transaction (the one that changed it). The link and
 * subscription are read unless the caller already holds them as they are now.
 */
export async function recordOrderEvent(
  tx: Executor,
  type: EventKind,
  order: OrderRow,
  known: { link?: LinkRow | null; subscription?: SubscriptionRow | null } = {},
): Promise<string> {
  const link = known.link !== undefined ? known.link : await linkOf(tx, order.paymentLinkId);
  const subscription =
    known.subscription !== undefined ? known.subscription : await subscriptionOf(tx, order);
  return (await recordOrderEventOf(tx, type, order, link, subscription)).id;
}

/** Which order a change is about; the panel scopes it to the caller's company (another's is not found). */
export interface OrderTarget {
  code: string;
  companyId?: number;
}

async function lockTarget(tx: Executor, target: OrderTarget): Promise<OrderRow> {
  const order = await lockOrderByCode(tx, target.code);
  if (!order || (target.companyId !== undefined && order.companyId !== target.companyId))
    throw new NotFoundError(`No order ${target.code}`);
  return order;
}

export interface OrderChange {
  order: OrderRow;
  /** False when the order was already in the target state: a repeated request changes nothing. */
  changed: boolean;
}

/**
 * One step of the lifecycle under the order's row lock: an order already in the target state is
 * returned unchanged (a replay), one in a state the step does not start from is a 409, otherwise the
 * step's conditional update and its event commit together, and the event is published afterwards.
 */
async function step(
  ctx: AppContext,
  target: OrderTarget,
  rule: {
    to: OrderRow['status'];
    from: ReadonlyArray<OrderRow['status']>;
    apply: (
      tx: Executor,
      order: OrderRow,
    ) => Promise<{ order: OrderRow; eventIds: string[]; after?: () => void }>;
  },
): Promise<OrderChange> {
  const result = await ctx.db.transaction(async (tx) => {
    const order = await lockTarget(tx, target);
    if (order.status === rule.to) return { order };
    if (!rule.from.includes(order.status))
      throw new ConflictError(`Order ${order.code} is ${order.status}; it cannot become ${rule.to}`);
    return rule.apply(tx, order);
  });
  if (!('eventIds' in result)) return { order: result.order, changed: false };
  publishAfterCommit(ctx, result.eventIds);
  result.after?.();
  return { order: result.order, changed: true };
}

const moved = (order: OrderRow | undefined, to: string): OrderRow => {
  if (!order) throw new Error(`order left its state under its row lock (moving to ${to})`);
  return order;
};

export interface Confirmation {
  orderCode: string;
  paymentMethod: PaymentMethod;
  paidAt: Date;
}

/**
 * The gateway confirmed a payment (signed callback, or the dev gateway). In one transaction: the
 * order goes pending (or abandoned: a late confirmation still pays) → paid, its link active → paid (a
 * reusable link stays payable and shows this order), a plan order starts its subscription, and
 * `order.paid` is recorded. Idempotent.
 *
 * The gateway has taken the money by now, so the order is recorded as paid even when its link can
 * no longer take the payment (canceled or paid by someone else meanwhile); that is logged, and the
 * link keeps its state.
 */
export function confirmPayment(ctx: AppContext, confirmation: Confirmation): Promise<OrderChange> {
  return step(
    ctx,
    { code: confirmation.orderCode },
    {
      to: 'paid',
      from: ['pending', 'abandoned'],
      apply: async (tx, payable) => {
        // A renewal charged through a PSP: its subscription enters the period it paid for.
        if (payable.subscriptionId !== null) {
          const order = moved(
            await markOrderPaid(tx, payable.id, {
              paymentMethod: confirmation.paymentMethod,
              paidAt: confirmation.paidAt,
              subscriptionId: payable.subscriptionId,
            }),
            'paid',
          );
          const done = await renewalOrderPaid(tx, order);
          return { order, eventIds: done.events.map((e) => e.id), after: () => scheduleNext(ctx, done) };
        }
        // The first period starts at confirmation, not at the reported paid_at: a stale or skewed gateway
        // time must not put the subscription periods behind (a burst of catch-up renewals) or ahead.
        const subscription: SubscriptionRow | null =
          payable.planId !== null ? await startSubscription(tx, payable, new Date()) : null;
        const order = moved(
          await markOrderPaid(tx, payable.id, {
            paymentMethod: confirmation.paymentMethod,
            paidAt: confirmation.paidAt,
            subscriptionId: subscription?.id ?? null,
          }),
          'paid',
        );
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
        const eventIds = [await recordOrderEvent(tx, 'order.paid', order, { link, subscription })];
        if (subscription)
          eventIds.push((await recordSubscriptionEvent(tx, 'subscription.created', subscription)).id);
        eventIds.push(...(await recordAccessChange(tx, 'access.granted', order)));
        return {
          order,
          eventIds,
          after: () => {
            if (subscription) scheduleRenewal(ctx, subscription, 2);
          },
        };
      },
    },
  );
}

/**
 * The gateway reported a failed payment: pending → failed with `order.failed`; the link stays payable.
 * A renewal order's failure is its subscription's failed charge (past_due, a retry, or the end).
 */
export function failPayment(ctx: AppContext, target: OrderTarget): Promise<OrderChange> {
  return step(ctx, target, {
    to: 'failed',
    from: ['pending'],
    apply: async (tx, pending) => {
      const order = moved(await markOrderFailed(tx, pending.id), 'failed');
      if (order.subscriptionId !== null) {
        const done = await renewalOrderFailed(
          tx,
          ctx.config.renewalRetryScheduleSeconds,
          order,
          'order.failed',
        );
        return { order, eventIds: done.events.map((e) => e.id), after: () => scheduleNext(ctx, done) };
      }
      return { order, eventIds: [await recordOrderEvent(tx, 'order.failed', order)] };
    },
  });
}

/**
 * A refund (the panel, or the gateway reporting one): paid → refunded with `order.refunded`. The link
 * keeps its status, and a subscription keeps running (cancel it separately).
 */
export function refundOrder(
  ctx: AppContext,
  target: OrderTarget,
  request?: RefundRequest,
): Promise<OrderChange> {
  return step(ctx, target, {
    to: 'refunded',
    from: ['paid'],
    apply: async (tx, paid) => {
      const order = moved(await markOrderRefunded(tx, paid.id, request), 'refunded');
      const eventIds = [await recordOrderEvent(tx, 'order.refunded', order)];
      eventIds.push(...(await recordAccessChange(tx, 'access.revoked', order)));
      return { order, eventIds };
    },
  });
}

/**
 * The gateway reported a chargeback (the buyer disputed a paid order with the card issuer): paid →
 * charged_back with `order.chargeback`, and the order's subscription, if it still runs, is canceled
 * (`chargeback`, `subscription.canceled`), all in one transaction. A charged-back order cannot be
 * refunded (the money went back through the dispute).
 */
export function chargeBack(ctx: AppContext, target: OrderTarget): Promise<OrderChange> {
  return step(ctx, target, {
    to: 'charged_back',
    from: ['paid'],
    apply: async (tx, paid) => {
      const order = moved(await markOrderChargedBack(tx, paid.id), 'charged_back');
      const held = order.subscriptionId === null ? null : await lockSubscription(tx, order.subscriptionId);
      const ending = held && held.status !== 'canceled' ? held : undefined;
      const subscription = ending ? await markCanceled(tx, ending.id, 'chargeback') : (held ?? null);
      // The order's event first, then the subscription's, as every change that sends both.
      const eventIds = [await recordOrderEvent(tx, 'order.chargeback', order, { subscription })];
      if (ending && subscription)
        eventIds.push((await recordSubscriptionEvent(tx, 'subscription.canceled', subscription)).id);
      eventIds.push(...(await recordAccessChange(tx, 'access.revoked', order)));
      return { order, eventIds };
    },
  });
}
