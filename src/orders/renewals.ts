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
import { accessEndsWithSubscription } from './access.js';
import { linkCustomer } from '../payment-links/purchase-data.js';
import { findLinkById } from '../payment-links/repository.js';
import type { AppContext } from '../shared/context.js';
import type { Executor } from '../shared/db/index.js';
import type { BillingCycle } from '../shared/enums/billing-cycles.js';
import type { CancelReason, ChargeOutcome } from '../shared/enums/subscription-statuses.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import { newUuid } from '../shared/ids.js';
import { recordOrderEventOf, recordSubscriptionEvent, type Emitted } from './order-events.js';
import { firstOrderOfSubscription, insertOrder, type OrderRow } from './repository.js';
import { findCompany } from '../companies/repository.js';
import { gatewayOfCharge, gatewayOfCompany } from '../gateways/index.js';
import { AccountDisconnectedError } from '../gateways/mercadopago/tokens.js';
import { ChargeRefusedError, type Charge, type PaymentGateway } from '../gateways/port.js';
import type { PaymentMethod } from '../shared/enums/payment-methods.js';
import { deleteStartingCharge, findCharge, reserveChargeRow } from './charge-repository.js';
import {
  checkoutRequestOf,
  recordCharge,
  renewalOrderCode,
  renewalRequestOf,
  type CheckoutChargeRequest,
  type RenewalChargeRequest,
} from './charges.js';
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

/** A renewal's Pix stays payable a day, its boleto is due in three (the buyer hears of it through the company). */
const RENEWAL_PIX_EXPIRES_IN_SECONDS = 86_400;
const RENEWAL_BOLETO_DUE_DAYS = 3;

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

interface ChargeDone extends ChargeResult {
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
async function failRenewal(
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
  orderCode: string = newUuid(),
): Promise<ChargeResult | undefined> {
  const retries = ctx.config.renewalRetryScheduleSeconds;
  const done = await ctx.db.transaction(async (tx) => {
    const current = await lockSubscription(tx, charge.subscriptionId);
    if (!current || !isDue(current, charge, asOf)) return undefined;
    if (current.cancelAtPeriodEnd) {
      const ended = await endSubscription(tx, current.id, 'requested');
      const events = [ended.event, ...(await accessEndsWithSubscription(tx, current.id))];
      return { subscription: ended.subscription, events, next: undefined };
    }
    const plan = await planOf(tx, current.planId);
    const first = await firstOrderOfSubscription(tx, current.id);
    const link =
      current.paymentLinkId === null ? null : ((await findLinkById(tx, current.paymentLinkId))?.link ?? null);
    const now = new Date();
    const order = await insertOrder(tx, {
      code: orderCode,
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
    const failed = await failRenewal(tx, retries, current, charge, order);
    return failed;
  });
  if (!done) return undefined;
  if (done.next) scheduleCharge(ctx, done.next.charge, done.next.at);
  return { subscription: done.subscription, events: done.events };
}

/**
 * The gateway a subscription bought through a PSP renews through, with what it needs: the company's
 * own PSP gateway now (the account may have been reconnected), else the account the first purchase
 * was made in. Undefined for a subscription bought any other way (test mode, the dev gateway, the
 * signed callback), whose renewals are charged as before.
 */
async function renewalGateway(
  ctx: AppContext,
  subscription: SubscriptionRow,
): Promise<
  { gateway: PaymentGateway; first: OrderRow; firstRequest: CheckoutChargeRequest | undefined } | undefined
> {
  if (!subscription.livemode) return undefined;
  const first = await firstOrderOfSubscription(ctx.db, subscription.id);
  if (!first) return undefined;
  const firstCharge = await findCharge(ctx.db, first.code);
  if (firstCharge?.provider !== 'mercadopago') return undefined;
  const now = await gatewayOfCompany(ctx, subscription.companyId);
  const gateway = now.provider === 'mercadopago' ? now : await gatewayOfCharge(ctx, firstCharge);
  return { gateway, first, firstRequest: checkoutRequestOf(firstCharge) };
}

/**
 * A renewal charged through the subscription's PSP (docs/mercadopago.md, "Renewals"): a Pix (or a
 * boleto, when the subscription was bought with one) whose instructions reach the company in
 * `order.created`; the order is paid when the PSP says so, and its failure or expiry is a failed
 * charge (past_due, retries). MP charges a saved card only with the buyer's security code, so a
 * card subscription renews by Pix. The charge's order code is fixed per (subscription, period,
 * attempt), so however many times its job, BullMQ's retries and the sweep run it, the PSP makes one
 * payment. `'local'` when the subscription does not renew through a PSP.
 */
async function chargeThroughGateway(
  ctx: AppContext,
  charge: DueCharge,
  asOf: Date,
): Promise<ChargeResult | undefined | 'local'> {
  const subscription = await findSubscription(ctx.db, charge.subscriptionId);
  if (!subscription || !isDue(subscription, charge, asOf) || subscription.cancelAtPeriodEnd) return 'local';
  const via = await renewalGateway(ctx, subscription);
  if (!via) return 'local';
  const { gateway, first, firstRequest } = via;
  const orderCode = renewalOrderCode(subscription.id, charge.period, charge.attempt);
  const plan = await planOf(ctx.db, subscription.planId);
  const customer = first.customer;
  const payerAddress = firstRequest?.payerAddress ?? null;
  const byBoleto = first.paymentMethod === 'boleto' && payerAddress !== null && customer?.document != null;
  const method: PaymentMethod = byBoleto ? 'boleto' : 'pix';
  const reserved = await ctx.db.transaction(async (tx) => {
    const current = await lockSubscription(tx, subscription.id);
    if (!current || !isDue(current, charge, asOf) || current.cancelAtPeriodEnd) return undefined;
    const request: RenewalChargeRequest = {
      kind: 'renewal',
      subscriptionId: current.id,
      period: charge.period,
      attempt: charge.attempt,
      productId: plan.productId,
      planId: plan.id,
      amount: plan.price,
      paymentMethod: method,
      customer,
      payerAddress: byBoleto ? payerAddress : null,
      createdAt: new Date().toISOString(),
    };
    return (
      await reserveChargeRow(tx, {
        orderCode,
        companyId: current.companyId,
        provider: gateway.provider,
        accountId: gateway.accountId,
        paymentLinkId: null,
        subscriptionId: current.id,
        request: { ...request },
      })
    ).row;
  });
  // Not due any more (run by another worker), or its charge already made: nothing to do here.
  if (!reserved || reserved.state !== 'starting') return undefined;
  const request = renewalRequestOf(reserved);
  if (!request) return undefined;
  const company = await findCompany(ctx.db, subscription.companyId);
  let made: Charge;
  try {
    made = await gateway.createCharge({
      orderCode,
      companyId: subscription.companyId,
      merchantName: company?.name ?? plan.productName,
      description: plan.productName,
      amount: request.amount,
      method: request.paymentMethod,
      installments: null,
      createdAt: new Date(request.createdAt),
      pixExpiresInSeconds: RENEWAL_PIX_EXPIRES_IN_SECONDS,
      boletoDueDays: RENEWAL_BOLETO_DUE_DAYS,
      boletoPageUrl: `${ctx.config.urls.checkout}/orders/${orderCode}/boleto`,
      payer: {
        ...(request.customer ?? { name: null, email: null, phone: null, document: null }),
        address: request.payerAddress,
      },
      card: null,
    });
  } catch (err) {
    // A PSP that will never make this charge (it refuses it, or the account is disconnected) is a
    // failed charge; one that did not answer is asked again by the job's retry or the sweep.
    if (!(err instanceof ChargeRefusedError) && !(err instanceof AccountDisconnectedError)) throw err;
    ctx.logger.warn(
      { orderCode, subscriptionId: subscription.id, reason: err.message },
      'a renewal charge was refused',
    );
    await deleteStartingCharge(ctx.db, orderCode);
    const failed = await commitCharge(ctx, charge, asOf, 'failed', orderCode);
    if (failed)
      publishAfterCommit(
        ctx,
        failed.events.map((e) => e.id),
      );
    return failed;
  }
  await recordCharge(ctx, orderCode, made);
  const after = await findSubscription(ctx.db, subscription.id);
  return after && { subscription: after, events: [] };
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
