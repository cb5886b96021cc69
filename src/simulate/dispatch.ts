import { jobIds } from '../../queues/index.js';
import type { AppContext } from '../shared/context.js';
import type { Executor } from '../shared/db/index.js';
import { dispatchProgress, firstAttemptsOf } from '../webhooks/repository/delivery-log.js';

/** The `simulation` of a simulate response: the event sent, and each delivery's first attempt. */
export interface SimulateResult {
  webhooks: Array<{ integration_id: number; destination: string; success: boolean; status: number }>;
}

/**
 * Relays the simulated event (on the simulate queue, so it never waits behind the outbox) and waits,
 * at most SIMULATE_WAIT_MS, until every delivery has made its first attempt in its integration's
 * lane. Nothing here holds a worker slot while a receiver takes its time: the request waits, reading
 * the attempts from PostgreSQL. If Redis is down or the wait runs out, the event is still safe in the
 * outbox (the sweep relays it) and the response reports the attempts made so far.
 */
export async function dispatchAndWait(ctx: AppContext, eventId: string): Promise<void> {
  try {
    await ctx.producers.add('simulate', jobIds.simulate(eventId), { eventId });
  } catch (err) {
    ctx.logger.warn(
      { err, eventId },
      'simulate: could not enqueue the dispatch; the sweep will relay the event',
    );
    return;
  }
  const deadline = Date.now() + ctx.config.simulateWaitMs;
  let pauseMs = 10;
  for (;;) {
    const progress = await dispatchProgress(ctx.db, eventId);
    if (progress.relayed && progress.waiting === 0) return;
    const left = deadline - Date.now();
    if (left <= 0) {
      ctx.logger.warn({ eventId }, 'simulate: first attempts not finished; reporting attempts so far');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(pauseMs, left)));
    pauseMs = Math.min(200, Math.round(pauseMs * 1.5));
  }
}

/** The `simulation.webhooks` array: one entry per delivery of the event, with its first outcome. */
export async function simulationReport(db: Executor, eventId: string): Promise<SimulateResult> {
  const attempts = await firstAttemptsOf(db, eventId);
  return {
    webhooks: attempts.map((a) => ({
      integration_id: a.integrationId,
      destination: a.destination ?? '',
      success: a.status === 'succeeded',
      status: a.statusCode ?? 0,
    })),
  };
}
