import { ensureJob, jobIds } from '../../queues/index.js';
import type { AppContext } from '../shared/context.js';
import { wakeAndEnqueue } from './lanes.js';
import { unrelayedEvents, vacuumOutbox } from './repository/fan-out.js';
import { idleLanesWithDueWork, lanesAwaitingJob } from './repository/lanes.js';
import { relayBacklog } from './relay.js';

/** At most this many batches of unrelayed events per sweep. */
const MAX_RELAY_ROUNDS = 100;

export interface DeliverySweepOptions {
  /** Events younger than this are left to the fast path. */
  eventGraceMs: number;
  /** Lanes and deliveries due for longer than this are assumed to have lost their job. */
  deliveryGraceMs: number;
  batch: number;
}

export interface DeliverySweepReport {
  events: number;
  lanes: number;
}

/**
 * The delivery half of the safety net (PostgreSQL is the system of record; Redis only holds work
 * in flight): relays committed events the fast path missed, re-adds the job of a lane whose job was
 * lost (a Redis restart without persistence, a crash before the add), and wakes lanes that have due
 * deliveries but expect no job (deliveries written before lanes existed, a crash before a wake).
 * It also vacuums the outbox, which keeps the claims' reads short.
 */
export async function sweepDeliveries(
  ctx: AppContext,
  options: DeliverySweepOptions,
): Promise<DeliverySweepReport> {
  const report: DeliverySweepReport = { events: 0, lanes: 0 };
  // Oldest first, a batch at a time, until the backlog is gone (bounded, so the rest still runs).
  for (let round = 0; round < MAX_RELAY_ROUNDS; round += 1) {
    const backlog = await unrelayedEvents(ctx.db, options.eventGraceMs, options.batch);
    if (backlog.length > 0) report.events += await relayBacklog(ctx, backlog);
    if (backlog.length < options.batch) break;
  }
  await vacuumOutboxQuietly(ctx);

  for (const lane of await lanesAwaitingJob(ctx.db, options.deliveryGraceMs, options.batch)) {
    const jobId = jobIds.deliveryLanes(lane.integrationId, lane.generation);
    if (await ensureJob(ctx.producers, 'deliveryLanes', jobId, lane)) report.lanes += 1;
  }
  const idle = await idleLanesWithDueWork(ctx.db, options.deliveryGraceMs, options.batch);
  await wakeAndEnqueue(ctx, idle);
  report.lanes += idle.length;
  return report;
}

/**
 * A vacuum that fails (a role that does not own the table gets a warning, not an error; a store
 * outage an error) costs the claims some speed, never an event: logged, and the sweep goes on.
 */
async function vacuumOutboxQuietly(ctx: AppContext): Promise<void> {
  try {
    await vacuumOutbox(ctx.db);
  } catch (error) {
    ctx.logger.warn({ err: error }, 'outbox vacuum failed; the next sweep tries again');
  }
}
