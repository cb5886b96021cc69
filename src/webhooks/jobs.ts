import os from 'node:os';
import { DelayedError, type Job } from 'bullmq';
import type { JobOf, JobResults } from '../../queues/index.js';
import type { AppContext } from '../shared/context.js';
import { randomBase62 } from '../shared/ids.js';
import { AttemptFailedError } from './failed-jobs.js';
import { requestAnotherAttempt, wakeDeliveryLane } from './another-attempt.js';
import { runLane, type LaneRunOptions } from './lane-runner.js';
import { relayEvents, type LiveEvent } from './relay.js';

/**
 * The outbox job: relay its events (fan out, wake the lanes that send them); `liveEvents` are those of
 * them that are live and not test events, for the after-sale steps. A failed outbox job left by the
 * engine before delivery lanes (it made first attempts itself), retried from Bull Board, asks for one
 * more attempt of the deliveries it names.
 */
export async function runRelayJob(
  ctx: AppContext,
  data: JobOf<'outbox'>,
): Promise<{ result: JobResults['outbox']; liveEvents: LiveEvent[] }> {
  if (data.failedDeliveries) {
    for (const deliveryId of data.failedDeliveries) await requestAnotherAttempt(ctx, deliveryId);
    return { result: { relayed: false }, liveEvents: [] };
  }
  const liveEvents = await relayEvents(ctx, [data.eventId, ...(data.eventIds ?? [])]);
  return { result: { relayed: true }, liveEvents };
}

/**
 * A deliveries job is the Bull Board face of one failed attempt: it fails at once with the
 * receiver's answer as its reason. Retried from the board, it asks for one more attempt of that
 * delivery, made by its lane like any other. (A job with neither, left by the engine before delivery
 * lanes, wakes its delivery's lane.)
 */
export async function runDeliveryJob(
  ctx: AppContext,
  job: Job<JobOf<'deliveries'>>,
  data: JobOf<'deliveries'>,
): Promise<JobResults['deliveries']> {
  if (data.reason !== undefined && data.failedAttempt === undefined) {
    await job.updateData({ ...data, failedAttempt: data.attempt });
    throw new AttemptFailedError(data.reason);
  }
  if (data.failedAttempt !== undefined) return { outcome: await requestAnotherAttempt(ctx, data.deliveryId) };
  return { outcome: await wakeDeliveryLane(ctx, data.deliveryId) };
}

/** Names this process's runners in their lane claims (a retried job keeps its claim). */
const PROCESS_TAG = `${os.hostname()}:${process.pid}:${randomBase62(6)}`;

/** A lane job: run the integration's lane, or wait for the runner that holds it to let go. */
export async function runLaneJob(
  ctx: AppContext,
  job: Job<JobOf<'deliveryLanes'>>,
  token: string | undefined,
  data: JobOf<'deliveryLanes'>,
  options: LaneRunOptions,
): Promise<JobResults['deliveryLanes']> {
  const outcome = await runLane(ctx, data, `${PROCESS_TAG}:${job.id ?? ''}`, options);
  if (outcome.kind === 'busy') {
    // Held by a runner that may have died: come back once its claim would have lapsed.
    await job.moveToDelayed(outcome.retryAt.getTime() + 50, token);
    throw new DelayedError();
  }
  return { outcome: outcome.kind, sent: 'sent' in outcome ? outcome.sent : 0 };
}
