/**
 * A subscription's life after its first purchase: a renewal charge at each period end, retries of a
 * failed one on RENEWAL_RETRY_SCHEDULE, and the endings (asked for, at once or at the period end;
 * unpaid after the last retry; a chargeback). Each charge is a delayed job with a deterministic id,
 * and a sweep in every worker runs the charges whose job was lost; a charge runs under the
 * subscription's row lock and only while it is still the one due, so it runs once however many
 * jobs, sweeps and requests reach it.
 */
import { jobIds, type JobOf } from '../../queues/index.js';
import { findItemById, type CatalogItem } from '../catalog/repository.js';
import { publishAfterCommit } from '../events/publish.js';
import { linkCustomer } from '../payment-links/purchase-data.js';
import { findLinkById } from '../payment-links/repository.js';
import type { AppContext } from '../shared/context.js';
import type { Executor } from '../shared/db/index.js';
import type { BillingCycle } from '../shared/enums/billing-cycles.js';
import type { CancelReason, ChargeOutcome } from '../shared/enums/subscription-statuses.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import { newUuid } from '../shared/ids.js';
import { recordOrderEventOf, recordSubscriptionEvent, type Emitted } from './order-events.js';
import { firstOrderOfSubscription, insertOrder } from './repository.js';
import {
  enterPeriod,
  findSubscription,
  insertSubscription,
  lockSubscription,
  markCancelAtPeriodEnd,
  markCanceled,
  markPastDue,
  overdueCharges,
  type DueCharge,
  type SubscriptionRow,
} from './subscription-repository.js';

export type { ChargeOutcome, DueCharge };

/**
 * The answer to a charge made by a job or the sweep. The dev gateway approves every charge, and no
 * gateway adapter charges a stored card yet, so scheduled charges are paid; a failed one comes from
 * the test entry points (simulate `renewal_failed`, renew now with `outcome: failed`).
 */
const SCHEDULED_CHARGE_OUTCOME: ChargeOutcome = 'paid';

async function planOf(tx: Executor, planId: number): Promise<CatalogItem & { billingCycle: BillingCycle }> {
  const plan = await findItemById(tx, 'plan', planId);
  if (!plan?.billingCycle) throw new Error(`plan ${planId} of a subscription is missing`);
  return { ...plan, billingCycle: plan.billingCycle };
}

/** Who and what a subscription is of: a paid plan order, or (test mode) a link paid by a simulation. */
export interface SubscriptionOrigin {
  companyId: number;
  livemode: boolean;
  planId: number | null;
  paymentLinkId: string | null;
}

/** A paid plan purchase starts a subscription in the caller's transaction; its first period starts now. */
export async function startSubscription(
  tx: Executor,
  origin: SubscriptionOrigin,
  startedAt: Date,
): Promise<SubscriptionRow> {
  if (origin.planId === null) throw new Error('only a plan purchase starts a subscription');
  const plan = await planOf(tx, origin.planId);
  return insertSubscription(tx, {
    companyId: origin.companyId,
    livemode: origin.livemode,
    planId: plan.id,
    paymentLinkId: origin.paymentLinkId,
    startedAt,
    cycle: plan.billingCycle,
  });
}

/**
 * Cancels a subscription that is not canceled yet, with its `subscription.canceled`, in the caller's
 * transaction (a change that also records an event about an order records that one first).
 */
export async function endSubscription(
  tx: Executor,
  subscriptionId: number,
  reason: CancelReason,
): Promise<{ subscription: SubscriptionRow; event: Emitted }> {
  const subscription = await markCanceled(tx, subscriptionId, reason);
  return { subscription, event: await recordSubscriptionEvent(tx, 'subscription.canceled', subscription) };
}

/**
 * A cancel asked for by the company. At once (the default): canceled (`requested`) with
 * `subscription.canceled`. At the period end: an active subscription keeps running until
 * `current_period_end`, where the renewal due cancels it instead of charging; a past_due one's period
 * has already ended, so it is canceled at once. A canceled subscription stays as it is. Another
 * company's subscription is not found.
 */
export async function requestCancel(
  ctx: AppContext,
  companyId: number,
  subscriptionId: number,
  atPeriodEnd: boolean,
): Promise<void> {
  const eventIds = await ctx.db.transaction(async (tx) => {
    const current = await lockSubscription(tx, subscriptionId);
    if (!current || current.companyId !== companyId)
      throw new NotFoundError(`No subscription ${subscriptionId}`);
    if (current.status === 'canceled') return [];
    if (atPeriodEnd && current.status === 'active') {
      if (!current.cancelAtPeriodEnd) await markCancelAtPeriodEnd(tx, subscriptionId);
      return [];
    }
    return [(await endSubscription(tx, subscriptionId, 'requested')).event.id];
  });
  publishAfterCommit(ctx, eventIds);
}

/** The job of one charge: the renewal into `period` keeps its historical payload and id. */
function chargeJob(charge: DueCharge): { jobId: string; data: JobOf<'renewals'> } {
  const { subscriptionId, period, attempt } = charge;
  return attempt === 0
    ? { jobId: jobIds.renewals(subscriptionId, period), data: { subscriptionId, period } }
    : {
        jobId: jobIds.renewalRetries(subscriptionId, period, attempt),
        data: { subscriptionId, period, attempt },
      };
}

/**
 * Schedules `charge` at `at`. Never throws: the renewal sweep runs charges whose job was lost.
 */
export function scheduleCharge(
  ctx: Pick<AppContext, 'producers' | 'logger'>,
  charge: DueCharge,
  at: Date,
): void {
  const { jobId, data } = chargeJob(charge);
  const delay = Math.max(0, at.getTime() - Date.now());
  ctx.producers.add('renewals', jobId, data, { delay }).catch((err: unknown) => {
    ctx.logger.warn({ err, ...charge }, 'could not schedule a renewal charge; the sweep will run it');
  });
}

/** Schedules the renewal into `period` at the subscription's current period end. */
export function scheduleRenewal(
  ctx: Pick<AppContext, 'producers' | 'logger'>,
  subscription: SubscriptionRow,
  period: number,
): void {
  scheduleCharge(ctx, { subscriptionId: subscription.id, period, attempt: 0 }, subscription.currentPeriodEnd);
}

/** Whether `charge` is the one `subscription` is waiting for, and due at `asOf`. */
function isDue(subscription: SubscriptionRow, charge: DueCharge, asOf: Date): boolean {
  if (subscription.currentPeriod !== charge.period - 1) return false;
  if (charge.attempt === 0)
    return subscription.status === 'active' && subscription.currentPeriodEnd.getTime() <= asOf.getTime();
  return (
    subscription.status === 'past_due' &&
    subscription.failedCharges === charge.attempt &&
    subscription.nextRetryAt !== null &&
    subscription.nextRetryAt.getTime() <= asOf.getTime()
  );
}

/** The charge a subscription waits for and when it is due; none once it is canceled. */
function nextCharge(subscription: SubscriptionRow): { charge: DueCharge; dueAt: Date } | undefined {
  const period = subscription.currentPeriod + 1;
  if (subscription.status === 'active')
    return {
      charge: { subscriptionId: subscription.id, period, attempt: 0 },
      dueAt: subscription.currentPeriodEnd,
    };
  if (subscription.status === 'past_due' && subscription.nextRetryAt !== null)
    return {
      charge: { subscriptionId: subscription.id, period, attempt: subscription.failedCharges },
      dueAt: subscription.nextRetryAt,
    };
  return undefined;
}

/** What one charge did: the subscription as it left it, and its events in commit order. */
export interface ChargeResult {
  subscription: SubscriptionRow;
  events: Emitted[];
}

/**
 * One charge in one transaction, under the subscription's row lock, if it is still the one due:
 * - a subscription set to cancel at the period end is canceled there (`requested`) instead;
 * - paid: a paid order at the plan's current price (coupons apply to the first purchase only) with the
 *   first order's buyer and payment method, the next period, `order.paid` and `subscription.renewed`;
 * - failed: a failed order (`order.failed`); past_due with the next retry due after its delay on
 *   RENEWAL_RETRY_SCHEDULE (`subscription.past_due` on the first failure), or, when the last retry
 *   failed, canceled (`payment_failed`, `subscription.canceled`).
 * Then the next charge is scheduled. The events are the caller's to publish.
 */
async function commitCharge(
  ctx: AppContext,
  charge: DueCharge,
  asOf: Date,
  outcome: ChargeOutcome,
): Promise<ChargeResult | undefined> {
  const retries = ctx.config.renewalRetryScheduleSeconds;
  const done = await ctx.db.transaction(async (tx) => {
    const current = await lockSubscription(tx, charge.subscriptionId);
    if (!current || !isDue(current, charge, asOf)) return undefined;
    if (current.cancelAtPeriodEnd) {
      const ended = await endSubscription(tx, current.id, 'requested');
      return { subscription: ended.subscription, events: [ended.event], next: undefined };
    }
    const plan = await planOf(tx, current.planId);
    const first = await firstOrderOfSubscription(tx, current.id);
    const link =
      current.paymentLinkId === null ? null : ((await findLinkById(tx, current.paymentLinkId))?.link ?? null);
    const now = new Date();
    const order = await insertOrder(tx, {
      code: newUuid(),
      companyId: current.companyId,
      livemode: current.livemode,
      paymentLinkId: null,
      subscriptionId: current.id,
      productId: plan.productId,
      offerId: null,
      planId: plan.id,
      status: outcome,
      amount: plan.price,
      paymentMethod: first?.paymentMethod ?? 'credit_card',
      paidAt: outcome === 'paid' ? now : null,
      customer: first?.customer ?? (link ? linkCustomer(link) : null),
    });
    if (outcome === 'paid') {
      const renewed = await enterPeriod(tx, current.id, plan.billingCycle, charge.period);
      const events = [
        await recordOrderEventOf(tx, 'order.paid', order, null, renewed),
        await recordSubscriptionEvent(tx, 'subscription.renewed', renewed),
      ];
      const next = {
        charge: { subscriptionId: current.id, period: charge.period + 1, attempt: 0 },
        at: renewed.currentPeriodEnd,
      };
      return { subscription: renewed, events, next };
    }
    const delay = retries[charge.attempt];
    if (delay === undefined) {
      const canceled = await markCanceled(tx, current.id, 'payment_failed');
      const events = [
        await recordOrderEventOf(tx, 'order.failed', order, null, canceled),
        await recordSubscriptionEvent(tx, 'subscription.canceled', canceled),
      ];
      return { subscription: canceled, events, next: undefined };
    }
    const retryAt = new Date(now.getTime() + delay * 1000);
    const pastDue = await markPastDue(tx, current.id, charge.attempt + 1, retryAt);
    const events = [await recordOrderEventOf(tx, 'order.failed', order, null, pastDue)];
    if (current.status === 'active')
      events.push(await recordSubscriptionEvent(tx, 'subscription.past_due', pastDue));
    const next = { charge: { ...charge, attempt: charge.attempt + 1 }, at: retryAt };
    return { subscription: pastDue, events, next };
  });
  if (!done) return undefined;
  if (done.next) scheduleCharge(ctx, done.next.charge, done.next.at);
  return { subscription: done.subscription, events: done.events };
}

/**
 * Runs a charge that is due (its delayed job, the sweep): nothing when it is not the charge the
 * subscription waits for, or not due at `asOf`. The events are published after commit.
 */
export async function runRenewal(
  ctx: AppContext,
  charge: DueCharge,
  asOf: Date = new Date(),
): Promise<ChargeResult | undefined> {
  const result = await commitCharge(ctx, charge, asOf, SCHEDULED_CHARGE_OUTCOME);
  if (result)
    publishAfterCommit(
      ctx,
      result.events.map((e) => e.id),
    );
  return result;
}

/**
 * Runs the charge a subscription waits for now, with the gateway answering `outcome`, exactly as its
 * job would at its due time (renew now under the dev gateway; simulate `renewal_paid|failed`). Its
 * own job later finds it done. A canceled subscription is a 409. When `publish` is false the caller
 * dispatches the events itself (a simulation waits for their first attempts).
 */
export async function runNextChargeNow(
  ctx: AppContext,
  subscriptionId: number,
  outcome: ChargeOutcome,
  { publish }: { publish: boolean },
): Promise<ChargeResult> {
  const canceled = () => new ConflictError(`Subscription ${subscriptionId} is canceled`);
  const current = await findSubscription(ctx.db, subscriptionId);
  if (!current) throw new NotFoundError(`No subscription ${subscriptionId}`);
  const next = nextCharge(current);
  if (!next) throw canceled();
  const asOf = new Date(Math.max(Date.now(), next.dueAt.getTime()));
  const result = await commitCharge(ctx, next.charge, asOf, outcome);
  if (result) {
    if (publish)
      publishAfterCommit(
        ctx,
        result.events.map((e) => e.id),
      );
    return result;
  }
  // Another request, or the charge's own job, ran it first: that is its answer.
  const after = await findSubscription(ctx.db, subscriptionId);
  if (!after || after.status === 'canceled') throw canceled();
  return { subscription: after, events: [] };
}

/**
 * The safety net of renewals (Redis holds jobs in flight, never the only copy of anything): runs the
 * charges overdue by more than `graceMs` whose job was lost. Each charge runs once, so racing a late
 * job or another worker's sweep is harmless. Returns how many it ran.
 */
export async function sweepRenewals(ctx: AppContext, graceMs = 60_000, batch = 100): Promise<number> {
  let ran = 0;
  for (const charge of await overdueCharges(ctx.db, graceMs, batch)) {
    if (await runRenewal(ctx, charge)) ran += 1;
  }
  return ran;
}
