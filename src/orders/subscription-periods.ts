/** A subscription's start, its periods and their charges' delayed jobs, a failed renewal's retries, and its endings (asked for, at once or at the period end). */
import { jobIds, type JobOf } from '../../queues/index.js';
import { findItemById, type CatalogItem } from '../catalog/repository.js';
import { publishAfterCommit } from '../events/publish.js';
import { accessEndsWithSubscription } from './access.js';
import type { AppContext } from '../shared/context.js';
import type { Executor } from '../shared/db/index.js';
import type { BillingCycle } from '../shared/enums/billing-cycles.js';
import type { CancelReason } from '../shared/enums/subscription-statuses.js';
import { NotFoundError } from '../shared/errors.js';
import { recordOrderEventOf, recordSubscriptionEvent, type Emitted } from './order-events.js';
import { type OrderRow } from './repository.js';
import {
  insertSubscription,
  lockSubscription,
  markCancelAtPeriodEnd,
  markCanceled,
  markPastDue,
  type DueCharge,
  type SubscriptionRow,
} from './subscription-repository.js';

export async function planOf(
  tx: Executor,
  planId: number,
): Promise<CatalogItem & { billingCycle: BillingCycle }> {
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
    const ended = (await endSubscription(tx, subscriptionId, 'requested')).event;
    return [ended, ...(await accessEndsWithSubscription(tx, subscriptionId))].map((e) => e.id);
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
export function isDue(subscription: SubscriptionRow, charge: DueCharge, asOf: Date): boolean {
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
export function nextCharge(subscription: SubscriptionRow): { charge: DueCharge; dueAt: Date } | undefined {
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

export interface ChargeDone extends ChargeResult {
  /** The charge to schedule next, if any. */
  next: { charge: DueCharge; at: Date } | undefined;
}

/**
 * A charge of the renewal due failed (its order already failed or abandoned, in the caller's
 * transaction): past_due with the next retry due after its delay on RENEWAL_RETRY_SCHEDULE
 * (`subscription.past_due` on the first failure), or, when the last retry failed, canceled
 * (`payment_failed`, `subscription.canceled`). The order's event (`orderEvent`, null when its step
 * recorded it) comes first, with the subscription as this change leaves it.
 */
export async function failRenewal(
  tx: Executor,
  retries: number[],
  current: SubscriptionRow,
  charge: DueCharge,
  order: OrderRow,
  orderEvent: 'order.failed' | 'order.abandoned' = 'order.failed',
): Promise<ChargeDone> {
  const delay = retries[charge.attempt];
  if (delay === undefined) {
    const canceled = await markCanceled(tx, current.id, 'payment_failed');
    const events = [
      await recordOrderEventOf(tx, orderEvent, order, null, canceled),
      await recordSubscriptionEvent(tx, 'subscription.canceled', canceled),
      ...(await accessEndsWithSubscription(tx, canceled.id)),
    ];
    return { subscription: canceled, events, next: undefined };
  }
  const retryAt = new Date(Date.now() + delay * 1000);
  const pastDue = await markPastDue(tx, current.id, charge.attempt + 1, retryAt);
  const events = [await recordOrderEventOf(tx, orderEvent, order, null, pastDue)];
  if (current.status === 'active')
    events.push(await recordSubscriptionEvent(tx, 'subscription.past_due', pastDue));
  return {
    subscription: pastDue,
    events,
    next: { charge: { ...charge, attempt: charge.attempt + 1 }, at: retryAt },
  };
}
