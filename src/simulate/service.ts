import type { EventKind } from '../events/kinds.js';
import { recordEvent } from '../events/outbox.js';
import { recordSubscriptionEvent, type Emitted } from '../orders/order-events.js';
import { orderEventSubscription } from '../orders/payload.js';
import { runNextChargeNow } from '../orders/renewals.js';
import { scheduleRenewal, startSubscription } from '../orders/subscription-periods.js';
import { latestSubscriptionOfLink, type SubscriptionRow } from '../orders/subscription-repository.js';
import { effectiveStatus, isSimulatable } from '../payment-links/payable.js';
import { purchaseData, type OrderFacts } from '../payment-links/purchase-data.js';
import {
  findLink,
  findLinkById,
  lockLink,
  type LinkScope,
  type LinkWithOrder,
} from '../payment-links/repository.js';
import { linkNotFound } from '../payment-links/service.js';
import { expireLink, markLinkPaid } from '../payment-links/transitions.js';
import type { AppContext } from '../shared/context.js';
import { ConflictError, NotFoundError, PermissionError } from '../shared/errors.js';
import type { PaymentsPrincipal } from '../shared/http/principal.js';
import { newUuid } from '../shared/ids.js';
import { dispatchAndWait, simulationReport, type SimulateResult } from './dispatch.js';
import {
  isRenewalOutcome,
  OUTCOME_EVENTS,
  RENEWAL_CHARGES,
  type Outcome,
  type RenewalOutcome,
  type SimulateOutcome,
} from './outcomes.js';

/** One first delivery attempt of a simulation, with the kind of the event it carried. */
export type SimulatedWebhook = SimulateResult['webhooks'][number] & { event: EventKind };

export interface Simulation {
  link: LinkWithOrder;
  /** The first event dispatched. */
  event: EventKind;
  /** Every event dispatched, in commit order. */
  events: EventKind[];
  result: { webhooks: SimulatedWebhook[] };
}

/** Whatever date is later than any expires_at: simulate `expired` ends the link now, due or not. */
const END_OF_TIME = new Date(8.64e15);

/**
 * Simulate: test keys only. An active link takes `paid`,
 * `failed` or `expired`: its transition and its test events commit together, and no order is created
 * (a plan link paid starts a test-mode subscription). A paid plan link takes `renewal_paid` or
 * `renewal_failed`: its subscription's next charge runs now through the renewals service. The
 * events are then relayed and the request waits (bounded) for every first attempt, reporting what
 * they did.
 */
export async function simulateOutcome(
  ctx: AppContext,
  principal: PaymentsPrincipal,
  linkId: string,
  outcome: SimulateOutcome,
): Promise<Simulation> {
  if (principal.livemode) throw new PermissionError('Simulate is only available with a test key (vk_test_)');
  const scope = { companyId: principal.companyId, livemode: principal.livemode, linkId };
  const emitted = isRenewalOutcome(outcome)
    ? await simulateRenewal(ctx, scope, outcome)
    : await simulateLinkOutcome(ctx, scope, outcome);
  // One after another, so each integration sees them in the order they were committed.
  await Promise.all(emitted.map((event) => dispatchAndWait(ctx, event.id)));
  const current = await findLinkById(ctx.db, linkId);
  if (!current) throw new NotFoundError(`No payment link ${linkId}`);
  const webhooks: SimulatedWebhook[] = [];
  for (const event of emitted) {
    const report = await simulationReport(ctx.db, event.id);
    webhooks.push(...report.webhooks.map((w) => ({ ...w, event: event.type })));
  }
  const [first] = emitted;
  if (!first) throw new Error('a simulation dispatched no event');
  return { link: current, event: first.type, events: emitted.map((e) => e.type), result: { webhooks } };
}

/**
 * An active link's own outcome, in one transaction under the link's row lock: `paid` marks it paid
 * (a plan link also starts its test-mode subscription: `subscription.created` after `order.paid`),
 * `expired` expires it, `failed` leaves it active. The events carry a synthetic order.
 */
async function simulateLinkOutcome(ctx: AppContext, scope: LinkScope, outcome: Outcome): Promise<Emitted[]> {
  const event = OUTCOME_EVENTS[outcome];
  const { linkId } = scope;
  const done = await ctx.db.transaction(async (tx) => {
    const found = await findLink(tx, scope);
    if (!found) throw await linkNotFound(tx, scope);
    // Lock the row so a concurrent cancel or simulate waits for this one, then check it.
    const state = await lockLink(tx, linkId);
    if (!state || !isSimulatable(state, state.now)) {
      throw new ConflictError(
        `Only an active link can be simulated (this one is ${state ? effectiveStatus(state, state.now) : 'gone'})`,
      );
    }
    const now = new Date();
    let link = found.link;
    if (outcome === 'paid') link = (await markLinkPaid(tx, linkId, { paidAt: now, orderId: null })) ?? link;
    if (outcome === 'expired') link = (await expireLink(tx, linkId, END_OF_TIME)) ?? link;
    const subscription: SubscriptionRow | null =
      outcome === 'paid' && link.type === 'plan'
        ? await startSubscription(tx, { ...link, paymentLinkId: link.id }, now)
        : null;
    const { productId, data, price } = await purchaseData(tx, link, null);
    const order: OrderFacts = {
      code: newUuid(),
      status: outcome,
      amount: price ?? '0.00',
      payment_method: outcome === 'expired' ? null : 'credit_card',
      paid_at: outcome === 'paid' ? now.toISOString() : null,
      // A simulated card payment: one instalment, no Pix or boleto instructions.
      installments: outcome === 'expired' ? null : 1,
      pix: null,
      boleto: null,
      test: true,
      sandbox: true,
    };
    if (subscription) data.subscription = orderEventSubscription(subscription);
    const recorded = await recordEvent(tx, {
      companyId: scope.companyId,
      type: event,
      livemode: false,
      test: true,
      productId,
      data: { ...data, order },
    });
    const emitted: Emitted[] = [{ id: recorded.id, type: event }];
    if (subscription) emitted.push(await recordSubscriptionEvent(tx, 'subscription.created', subscription));
    return { emitted, subscription };
  });
  if (done.subscription) scheduleRenewal(ctx, done.subscription, 2);
  return done.emitted;
}

/**
 * A renewal outcome: the next charge of the subscription a paid test plan link started (the newest,
 * for a reusable link) runs now, as its delayed job would, with the gateway answering as asked. Any
 * other link, or a canceled subscription, is a 409. The events are dispatched by the caller.
 */
async function simulateRenewal(
  ctx: AppContext,
  scope: LinkScope,
  outcome: RenewalOutcome,
): Promise<Emitted[]> {
  const found = await findLink(ctx.db, scope);
  if (!found) throw await linkNotFound(ctx.db, scope);
  const { link } = found;
  const subscription =
    link.type === 'plan' && link.status === 'paid'
      ? await latestSubscriptionOfLink(ctx.db, link.id)
      : undefined;
  if (!subscription) {
    throw new ConflictError(
      `Only a paid test plan link has a subscription to renew (this one is a ${link.status} ${link.type} link)`,
    );
  }
  const { events } = await runNextChargeNow(ctx, subscription.id, RENEWAL_CHARGES[outcome], {
    publish: false,
  });
  if (events.length === 0)
    throw new ConflictError(
      `Subscription ${subscription.id} was charged by another request meanwhile; try again`,
    );
  return events;
}
