import type { SimulateResult } from '../../queues/index.js';
import { jobIds } from '../../queues/index.js';
import type { EventKind } from '../events/kinds.js';
import { recordEvent } from '../events/outbox.js';
import { effectiveStatus, isSimulatable } from '../payment-links/payable.js';
import { purchaseData, type OrderFacts } from '../payment-links/purchase-data.js';
import { findLink, findLinkById, lockLink, type LinkWithOrder } from '../payment-links/repository.js';
import { linkNotFound } from '../payment-links/service.js';
import { expireLink, markLinkPaid } from '../payment-links/transitions.js';
import type { AppContext } from '../shared/context.js';
import { ConflictError, NotFoundError, PermissionError } from '../shared/errors.js';
import type { PaymentsPrincipal } from '../shared/http/principal.js';
import { newUuid } from '../shared/ids.js';
import { simulationReport } from './dispatch.js';
import { OUTCOME_EVENTS, type Outcome } from './outcomes.js';

export interface Simulation {
  link: LinkWithOrder;
  event: EventKind;
  result: SimulateResult;
}

/** Whatever date is later than any expires_at: simulate `expired` ends the link now, due or not. */
const END_OF_TIME = new Date(8.64e15);

/**
 * Simulate (spec 4.1, decisions "Payment links"): test keys only, active links only. The link
 * transition and its test event commit together; no order is created. The dispatch then runs as
 * a job and the request waits (bounded) for every first attempt, reporting what they did.
 */
export async function simulateOutcome(
  ctx: AppContext,
  principal: PaymentsPrincipal,
  linkId: string,
  outcome: Outcome,
): Promise<Simulation> {
  if (principal.livemode) throw new PermissionError('Simulate is only available with a test key (vk_test_)');
  const scope = { companyId: principal.companyId, livemode: principal.livemode, linkId };
  const event = OUTCOME_EVENTS[outcome];
  const eventId = await ctx.db.transaction(async (tx) => {
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
    const { productId, data, price } = await purchaseData(tx, link, null);
    const order: OrderFacts = {
      code: newUuid(),
      status: outcome,
      amount: price ?? '0.00',
      payment_method: outcome === 'expired' ? null : 'credit_card',
      paid_at: outcome === 'paid' ? now.toISOString() : null,
      test: true,
      sandbox: true,
    };
    const recorded = await recordEvent(tx, {
      companyId: principal.companyId,
      type: event,
      livemode: false,
      test: true,
      productId,
      data: { ...data, order },
    });
    return recorded.id;
  });

  await waitForDispatch(ctx, eventId);
  const current = await findLinkById(ctx.db, linkId);
  if (!current) throw new NotFoundError(`No payment link ${linkId}`);
  return { link: current, event, result: await simulationReport(ctx.db, eventId) };
}

/**
 * Enqueue the dispatch and wait for it, at most `simulateWaitMs`. If Redis is down or the wait
 * runs out, the event is still safe in the outbox (the sweep relays it) and the response reports
 * the attempts made so far.
 */
async function waitForDispatch(ctx: AppContext, eventId: string): Promise<void> {
  const jobId = jobIds.simulate(eventId);
  try {
    await ctx.producers.add('simulate', jobId, { eventId });
  } catch (err) {
    ctx.logger.warn(
      { err, eventId },
      'simulate: could not enqueue the dispatch; the sweep will relay the event',
    );
    return;
  }
  const end = await ctx.producers.waitForJob('simulate', jobId, ctx.config.simulateWaitMs);
  if (end !== 'completed')
    ctx.logger.warn({ eventId, end }, 'simulate: dispatch not finished; reporting attempts so far');
}
