import { eq, sql } from 'drizzle-orm';
import { jobIds, type Producers } from '../../queues/index.js';
import type { AppContext } from '../shared/context.js';
import { schema, type Executor } from '../shared/db/index.js';
import { newUuid } from '../shared/ids.js';
import { recordEvent } from '../events/outbox.js';
import { producersFor, publishAfterCommit } from '../events/publisher.js';
import { orderEventData } from '../orders/payload.js';
import { firstOrderOfSubscription, insertOrder, type OrderRow } from '../orders/repository.js';
import { advancePeriod, insertSubscription, type SubscriptionRow } from './repository.js';

const { plans } = schema;

async function planOf(tx: Executor, planId: number) {
  const [plan] = await tx.select().from(plans).where(eq(plans.id, planId));
  if (!plan) throw new Error(`plan ${planId} of a subscription is missing`);
  return plan;
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
  ctx: AppContext,
  subscription: SubscriptionRow,
  period: number,
  via: Producers = producersFor(ctx),
): void {
  const delay = Math.max(0, subscription.currentPeriodEnd.getTime() - Date.now());
  via
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
  producers: Producers,
  subscriptionId: number,
  period: number,
  asOf: Date = new Date(),
): Promise<string | undefined> {
  const renewed = await ctx.db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(schema.subscriptions)
      .where(eq(schema.subscriptions.id, subscriptionId));
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
  publishAfterCommit(ctx, [renewed.eventId], producers);
  scheduleRenewal(ctx, renewed.subscription, period + 1, producers);
  return renewed.eventId;
}

/**
 * Active subscriptions past their period end by more than `graceMs` (their renewal job was lost or
 * is late), with the period each is due to enter: every paid order of a subscription is one period.
 */
export async function overdueRenewals(
  db: Executor,
  graceMs: number,
  limit: number,
): Promise<Array<{ subscriptionId: number; period: number }>> {
  const rows = await db.execute<{ id: string | number; period: string | number }>(sql`
    SELECT s.id, (SELECT count(*) FROM orders o WHERE o.subscription_id = s.id AND o.status = 'paid') + 1 AS period
      FROM subscriptions s
     WHERE s.status = 'active' AND s.current_period_end < clock_timestamp() - make_interval(secs => ${graceMs / 1000})
     ORDER BY s.current_period_end LIMIT ${limit}`);
  return rows.rows.map((r) => ({ subscriptionId: Number(r.id), period: Number(r.period) }));
}

/**
 * The safety net of renewals (Redis holds jobs in flight, never the only copy of anything): renews
 * subscriptions whose renewal job was lost. Each renewal is idempotent, so racing a late job is harmless.
 */
export async function sweepRenewals(
  ctx: AppContext,
  producers: Producers,
  graceMs = 60_000,
  batch = 100,
): Promise<number> {
  let renewed = 0;
  for (const { subscriptionId, period } of await overdueRenewals(ctx.db, graceMs, batch)) {
    if (await renewSubscription(ctx, producers, subscriptionId, period)) renewed += 1;
  }
  return renewed;
}
