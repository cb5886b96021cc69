/**
 * A subscription's life after its first purchase: a renewal charge at each period end, retries of a
 * failed one on RENEWAL_RETRY_SCHEDULE, and the endings (asked for, at once or at the period end;
 * unpaid after the last retry; a chargeback). Each charge is a delayed job with a deterministic id,
 * and a sweep in every worker runs the charges whose job was lost; a charge runs under the
 * subscription's row lock and only while it is still the one due, so it runs once however many
 * jobs, sweeps and requests reach it.
 */
import { publishAfterCommit } from '../events/publish.js';
import type { AppContext } from '../shared/context.js';
import type { Executor } from '../shared/db/index.js';
import type { ChargeOutcome } from '../shared/enums/subscription-statuses.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import { recordOrderEventOf, recordSubscriptionEvent } from './order-events.js';
import { type OrderRow } from './repository.js';
import { findCharge } from './charge-repository.js';
import { renewalRequestOf } from './charges.js';
import {
  enterPeriod,
  findSubscription,
  lockSubscription,
  overdueCharges,
  type DueCharge,
} from './subscription-repository.js';
import { chargeThroughGateway, commitCharge, renewalGateway } from './renewal-charge.js';
import {
  failRenewal,
  nextCharge,
  planOf,
  scheduleCharge,
  type ChargeDone,
  type ChargeResult,
} from './subscription-periods.js';

export type { ChargeOutcome, DueCharge };

/**
 * The answer to a charge made by a job or the sweep. The dev gateway approves every charge, and no
 * gateway adapter charges a stored card yet, so scheduled charges are paid; a failed one comes from
 * the test entry points (simulate `renewal_failed`, renew now with `outcome: failed`).
 */
const SCHEDULED_CHARGE_OUTCOME: ChargeOutcome = 'paid';

/** The charge a pending renewal order (one charged through a PSP) was made for, from its stored request. */
async function chargeOfRenewalOrder(tx: Executor, order: OrderRow): Promise<DueCharge | undefined> {
  if (order.subscriptionId === null) return undefined;
  const row = await findCharge(tx, order.code);
  const request = row ? renewalRequestOf(row) : undefined;
  return (
    request && { subscriptionId: request.subscriptionId, period: request.period, attempt: request.attempt }
  );
}

/**
 * A pending renewal order was paid (its PSP said so), in the caller's transaction that marked it
 * paid: the subscription enters the period it paid for (`order.paid`, `subscription.renewed`) if it
 * was still waiting for that charge; otherwise (canceled meanwhile, or renewed by another charge)
 * only `order.paid` is recorded. Answers the events and the renewal to schedule.
 */
export async function renewalOrderPaid(tx: Executor, order: OrderRow): Promise<ChargeDone> {
  const charge = await chargeOfRenewalOrder(tx, order);
  const current =
    order.subscriptionId === null ? undefined : await lockSubscription(tx, order.subscriptionId);
  if (!charge || !current || current.status === 'canceled' || current.currentPeriod !== charge.period - 1) {
    const events = [await recordOrderEventOf(tx, 'order.paid', order, null, current ?? null)];
    return { subscription: current ?? (await missingSubscription(order)), events, next: undefined };
  }
  const plan = await planOf(tx, current.planId);
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

/**
 * A pending renewal order failed or was abandoned (its Pix expired, its boleto went unpaid), in the
 * caller's transaction that moved it: the renewal charge failed, as `failRenewal` says, if the
 * subscription was still waiting for it; otherwise only the order's event is recorded.
 */
export async function renewalOrderFailed(
  tx: Executor,
  retries: number[],
  order: OrderRow,
  orderEvent: 'order.failed' | 'order.abandoned',
): Promise<ChargeDone> {
  const charge = await chargeOfRenewalOrder(tx, order);
  const current =
    order.subscriptionId === null ? undefined : await lockSubscription(tx, order.subscriptionId);
  const waiting =
    charge !== undefined &&
    current !== undefined &&
    current.currentPeriod === charge.period - 1 &&
    (charge.attempt === 0
      ? current.status === 'active'
      : current.status === 'past_due' && current.failedCharges === charge.attempt);
  if (!waiting || !charge || !current) {
    const events = [await recordOrderEventOf(tx, orderEvent, order, null, current ?? null)];
    return { subscription: current ?? (await missingSubscription(order)), events, next: undefined };
  }
  return failRenewal(tx, retries, current, charge, order, orderEvent);
}

const missingSubscription = (order: OrderRow): Promise<never> =>
  Promise.reject(new Error(`subscription ${order.subscriptionId} of order ${order.code} is missing`));

/** Schedules what a renewal order's outcome asks for next (the next renewal, or a retry). */
export function scheduleNext(
  ctx: Pick<AppContext, 'producers' | 'logger'>,
  done: Pick<ChargeDone, 'next'>,
): void {
  if (done.next) scheduleCharge(ctx, done.next.charge, done.next.at);
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
  const remote = await chargeThroughGateway(ctx, charge, asOf);
  if (remote !== 'local') return remote;
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
  // Its PSP decides how a charge ends, not this clock: it is charged there when due.
  if (await renewalGateway(ctx, current))
    throw new ConflictError(
      `Subscription ${subscriptionId} renews through its payment gateway; its renewal is charged there when due`,
    );
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
