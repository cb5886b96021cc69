import { jobIds } from '../../queues/index.js';
import { WEBHOOK_KIND_TYPES } from '../integrations/types.js';
import type { AppContext } from '../shared/context.js';
import { postWebhook, type AttemptResult } from './http-client.js';
import { batcherFor, MicroBatcher } from '../shared/batcher.js';
import {
  attemptKey,
  loadDeliveryTarget,
  markSkipped,
  recordAttempts,
  type AttemptRecord,
  type DeliveryStatus,
  type DeliveryTarget,
  type RecordedAttempt,
} from './repository.js';
import { nextDelayMs } from './retry-delays.js';

export type AttemptOutcome = DeliveryStatus | 'stale';

const recorders = new WeakMap<AppContext, MicroBatcher<AttemptRecord, RecordedAttempt | undefined>>();

/**
 * Attempts that finish together are recorded by one statement (see `recordAttempts`); undefined
 * when the attempt was already recorded by another run of the job.
 */
function recordAttempt(ctx: AppContext, record: AttemptRecord): Promise<RecordedAttempt | undefined> {
  const batcher = batcherFor(
    recorders,
    ctx,
    () =>
      new MicroBatcher(async (records: AttemptRecord[]) => {
        const recorded = await recordAttempts(ctx.db, records, ctx.config.webhooks.breakerThreshold);
        const claimed = new Set<string>();
        return records.map((r) => {
          const key = attemptKey(r.target.id, r.attempt);
          if (claimed.has(key)) return undefined;
          claimed.add(key);
          return recorded.get(key);
        });
      }),
  );
  return batcher.push(record);
}

const WEBHOOK_KINDS = new Set<string>(WEBHOOK_KIND_TYPES);

/**
 * One attempt of one delivery. Safe to run twice: an attempt already recorded, or a delivery no
 * longer pending, is left alone (the second run may have sent the request again, which
 * at-least-once delivery allows; receivers deduplicate on `webhook-id`).
 */
export async function deliverAttempt(
  ctx: AppContext,
  deliveryId: number,
  attempt: number,
  /** Already loaded by the caller (the relay loads all of an event's deliveries in one statement). */
  preloaded?: DeliveryTarget,
): Promise<AttemptOutcome> {
  const target = preloaded ?? (await loadDeliveryTarget(ctx.db, deliveryId));
  if (!target || target.status !== 'pending' || target.attempts >= attempt) return 'stale';
  if (!target.integrationActive) {
    await markSkipped(ctx.db, deliveryId, 'integration inactive');
    return 'skipped';
  }
  if (!WEBHOOK_KINDS.has(target.integrationType)) {
    await markSkipped(ctx.db, deliveryId, `type ${target.integrationType} is not dispatched over HTTP`);
    return 'skipped';
  }
  const body = JSON.stringify(target.payload);
  const result: AttemptResult = target.url
    ? await postWebhook(ctx.config, { url: target.url, secret: target.secret }, target.eventId, body)
    : {
        requestedAt: new Date(),
        durationMs: 0,
        statusCode: null,
        ok: false,
        error: 'integration has no url',
        responseBody: null,
        retryAfterSeconds: null,
      };

  const { retryScheduleSeconds, retryJitter } = ctx.config.webhooks;
  // 410 Gone: the receiver says this endpoint is no more; retrying would only add load.
  const delay =
    result.ok || result.statusCode === 410
      ? null
      : nextDelayMs(retryScheduleSeconds, retryJitter, attempt, result.retryAfterSeconds);
  const status: DeliveryStatus = result.ok ? 'succeeded' : delay === null ? 'failed' : 'pending';
  const recorded = await recordAttempt(ctx, {
    target,
    attempt,
    result,
    status,
    nextAttemptAt: delay === null ? null : new Date(Date.now() + delay),
  });
  if (!recorded) return 'stale';
  if (recorded.breakerOpened) {
    ctx.logger.warn(
      { integrationId: target.integrationId, failures: recorded.failureCount },
      'circuit breaker opened: integration auto-disabled',
    );
  }
  if (status === 'pending' && delay !== null) {
    // If this add is lost (crash, Redis down), the sweep re-enqueues the overdue delivery.
    await ctx.producers.add(
      'deliveries',
      jobIds.deliveries(deliveryId, attempt + 1),
      { deliveryId, attempt: attempt + 1 },
      { delay },
    );
  }
  return status;
}
