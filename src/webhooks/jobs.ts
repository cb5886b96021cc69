import type { Job } from 'bullmq';
import type { JobOf, JobResults } from '../../queues/index.js';
import type { AppContext } from '../shared/context.js';
import { attemptAgain, deliverAttempt } from './deliver.js';
import { failJobOnFailedAttempts, failuresOf } from './failed-jobs.js';
import { relayEvent } from './relay.js';

/**
 * The outbox job: relay the event and make each delivery's first attempt. Run again from Bull
 * Board after a failed attempt, it makes one more attempt of the deliveries that failed, only.
 */
export async function runRelayJob(
  ctx: AppContext,
  job: Job<JobOf<'outbox'>>,
  data: JobOf<'outbox'>,
): Promise<JobResults['outbox']> {
  const failedBefore = data.failedDeliveries;
  const { deliveries, failures } = failedBefore
    ? await retryFailed(ctx, failedBefore)
    : await relayEvent(ctx, data.eventId);
  // Shown in Bull Board beside the failed reason: which event, and which integrations it failed for.
  await failJobOnFailedAttempts(job, failures, (failed) => ({
    ...(failed[0]?.eventType === undefined ? {} : { eventType: failed[0].eventType }),
    failedDeliveries: failed.map((f) => f.deliveryId),
    failedIntegrations: [...new Set(failed.map((f) => f.integrationId))],
  }));
  return { deliveries };
}

async function retryFailed(ctx: AppContext, deliveryIds: number[]) {
  const reports = await Promise.all(deliveryIds.map((id) => attemptAgain(ctx, id)));
  return { deliveries: deliveryIds.length, failures: failuresOf(reports) };
}

/** A later attempt of one delivery (or, run again from Bull Board after it failed, one more). */
export async function runDeliveryJob(
  ctx: AppContext,
  job: Job<JobOf<'deliveries'>>,
  data: JobOf<'deliveries'>,
): Promise<JobResults['deliveries']> {
  const report =
    data.failedAttempt === undefined
      ? await deliverAttempt(ctx, data.deliveryId, data.attempt)
      : await attemptAgain(ctx, data.deliveryId);
  await failJobOnFailedAttempts(job, failuresOf([report]), ([failed]) => ({
    failedAttempt: failed?.attempt ?? data.attempt,
  }));
  return { outcome: report.outcome };
}
