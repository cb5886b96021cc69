import { sql } from 'drizzle-orm';
import type { SimulateResult } from '../../queues/index.js';
import { jobIds } from '../../queues/index.js';
import type { PaymentsPrincipal } from '../auth/principal.js';
import type { AppContext } from '../shared/context.js';
import { ConflictError, NotFoundError, PermissionError } from '../shared/errors.js';
import { newUuid } from '../shared/ids.js';
import { linkEventData, type OrderFacts } from '../events/link-payload.js';
import { recordEvent } from '../events/outbox.js';
import { producersFor, simulateEventsFor } from '../events/publisher.js';
import { findLink, findLinkById, type LinkWithOrder } from '../payment-links/repository.js';
import { expireLink, markLinkPaid } from '../payment-links/transitions.js';
import type { EventKind } from '../events/kinds.js';
import { simulationReport } from './simulate-dispatch.js';

export const OUTCOMES = ['paid', 'failed', 'expired'] as const;
export type Outcome = (typeof OUTCOMES)[number];

const EVENT_OF: Record<Outcome, EventKind> = {
  paid: 'order.paid',
  failed: 'order.payment_declined',
  expired: 'order.expired',
};

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
  const event = EVENT_OF[outcome];
  const eventId = await ctx.db.transaction(async (tx) => {
    const found = await findLink(tx, scope);
    if (!found) throw new NotFoundError(`No payment link ${linkId}`);
    // Lock the row so a concurrent cancel or simulate waits for this one, then check it is payable.
    const locked = await tx.execute<{ status: string; due: boolean }>(
      sql`SELECT status, expires_at <= clock_timestamp() AS due FROM payment_links WHERE id = ${linkId} FOR UPDATE`,
    );
    const state = locked.rows[0];
    if (!state || state.status !== 'active' || state.due) {
      throw new ConflictError(`Only an active link can be simulated (this one is ${state?.due ? 'expired' : (state?.status ?? 'gone')})`);
    }
    const now = new Date();
    let link = found.link;
    if (outcome === 'paid') link = (await markLinkPaid(tx, linkId, { paidAt: now, orderId: null })) ?? link;
    if (outcome === 'expired') link = (await expireLink(tx, linkId, END_OF_TIME)) ?? link;
    const { productId, data, price } = await linkEventData(tx, link, null);
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
  try {
    const events = await withTimeout(simulateEventsFor(ctx), ctx.config.simulateWaitMs);
    const job = await producersFor(ctx).queue('simulate').add('simulate', { eventId }, { jobId: jobIds.simulate(eventId) });
    await job.waitUntilFinished(events, ctx.config.simulateWaitMs);
  } catch (err) {
    ctx.logger.warn({ err, eventId }, 'simulate: dispatch not finished in time; reporting attempts so far');
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
