import { jobIds } from '../../queues/index.js';
import { findItemById, type CatalogItem } from '../catalog/repository.js';
import { recordEvent } from '../events/outbox.js';
import { publishAfterCommit } from '../events/publish.js';
import type { AppContext } from '../shared/context.js';
import type { Executor } from '../shared/db/index.js';
import type { BillingCycle } from '../shared/enums/billing-cycles.js';
import { newUuid } from '../shared/ids.js';
import { orderEventData } from './payload.js';
import { firstOrderOfSubscription, insertOrder, type OrderRow } from './repository.js';
import {
  advancePeriod,
  findSubscription,
  insertSubscription,
  overdueRenewals,
  type SubscriptionRow,
} from './subscription-repository.js';

async function planOf(tx: Executor, planId: number): Promise<CatalogItem & { billingCycle: BillingCycle }> {
  const plan = await findItemById(tx, 'plan', planId);
  if (!plan?.billingCycle) throw new Error(`plan ${planId} of a subscription is missing`);
  return { ...plan, billingCycle: plan.billingCycle };
}

/** A paid plan order starts a subscription in the caller's transaction; its first period starts now. */
export async function startSubscription(
  tx: Executor,
  order: OrderRow,
  paidAt: Date,
): Promise<SubscriptionRow> {
  if (order.planId === null) throw new Error('only a plan order starts a subscription');
  const plan = await planOf(tx, order.planId);
  return insertSubscription(tx, {
    companyId: order.companyId,
    livemode: order.livemode,
    planId: plan.id,
    paymentLinkId: order.paymentLinkId,
    startedAt: paidAt,
    cycle: plan.billingCycle,
  });
}

/**
 * Schedules the renewal into `period` at the subscription's current period end. Never throws: the
 * renewal sweep renews subscriptions whose job was lost.
 */
export function scheduleRenewal(
  ctx: Pick<AppContext, 'producers' | 'logger'>,
  subscription: SubscriptionRow,
  period: number,
): void {
  const delay = Math.max(0, subscription.currentPeriodEnd.getTime() - Date.now());
  ctx.producers
    .add(
      'renewals',
      jobIds.renewals(subscription.id, period),
      { subscriptionId: subscription.id, period },
      { delay },
    )
    .catch((err: unknown) => {
      ctx.logger.warn(
        { err, subscriptionId: subscription.id, period },
        'could not schedule renewal; the sweep will renew it',
      );
    });
}

/**
 * Renews a subscription into `period` once it is due at `asOf` (spec 1.7): a paid order for the
 * same subscription at the plan's current price (coupons apply to the first purchase only), with
 * the first order's buyer and payment method, and its `order.paid` event, in one transaction; then
 * the next period is scheduled. Idempotent: a period already renewed (or a canceled subscription,
 * or a period not yet due) does nothing. Returns the event id of a renewal made now.
 */
export async function renewSubscription(
  ctx: AppContext,
  subscriptionId: number,
  period: number,
  asOf: Date = new Date(),
): Promise<string | undefined> {
  const renewed = await ctx.db.transaction(async (tx) => {
    const current = await findSubscription(tx, subscriptionId);
    if (!current) return undefined;
    const plan = await planOf(tx, current.planId);
    const subscription = await advancePeriod(tx, subscriptionId, plan.billingCycle, period, asOf);
    if (!subscription) return undefined;
    const first = await firstOrderOfSubscription(tx, subscriptionId);
    const order = await insertOrder(tx, {
      code: newUuid(),
      companyId: subscription.companyId,
      livemode: subscription.livemode,
      paymentLinkId: null,
      subscriptionId,
      productId: plan.productId,
      offerId: null,
      planId: plan.id,
      status: 'paid',
      amount: plan.price,
      paymentMethod: first?.paymentMethod ?? 'credit_card',
      paidAt: new Date(),
      customer: first?.customer ?? null,
    });
    const { productId, data } = await orderEventData(tx, order, null, subscription);
    const event = await recordEvent(tx, {
      companyId: subscription.companyId,
      type: 'order.paid',
      livemode: subscription.livemode,
      test: false,
      productId,
      data,
    });
    return { subscription, eventId: event.id };
  });
  if (!renewed) return undefined;
  publishAfterCommit(ctx, [renewed.eventId]);
  scheduleRenewal(ctx, renewed.subscription, period + 1);
  return renewed.eventId;
}

/**
 * The safety net of renewals (Redis holds jobs in flight, never the only copy of anything): renews
 * subscriptions whose renewal job was lost. Each renewal is idempotent, so racing a late job is harmless.
 */
export async function sweepRenewals(ctx: AppContext, graceMs = 60_000, batch = 100): Promise<number> {
  let renewed = 0;
  for (const { subscriptionId, period } of await overdueRenewals(ctx.db, graceMs, batch)) {
    if (await renewSubscription(ctx, subscriptionId, period)) renewed += 1;
  }
  return renewed;
}
