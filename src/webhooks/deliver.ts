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
  reopenDelivery,
  type AttemptRecord,
  type DeliveryStatus,
  type DeliveryTarget,
  type RecordedAttempt,
} from './repository.js';
import { nextDelayMs } from './retry-delays.js';
import {
  breakerOpenings,
  deliveryLag,
  statusClass,
  webhookAttemptDuration,
  webhookAttempts,
} from '../shared/metrics.js';

export type AttemptOutcome = DeliveryStatus | 'stale';

export interface AttemptReport {
  outcome: AttemptOutcome;
  /** Set when the receiver refused or could not be reached: its status or the network error. */
  failure: AttemptFailure | null;
}

export interface AttemptFailure {
  deliveryId: number;
  integrationId: number;
  eventType: string | undefined;
  attempt: number;
  reason: string;
}

const unattempted = (outcome: AttemptOutcome): AttemptReport => ({ outcome, failure: null });

/** What Bull Board shows as a failed job's reason: the receiver's answer, or why there was none. */
export function failureReason(result: AttemptResult): string {
  return result.statusCode === null
    ? `no response: ${result.error ?? 'unknown error'}`
    : `receiver answered HTTP ${result.statusCode}`;
}

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
): Promise<AttemptReport> {
  const target = preloaded ?? (await loadDeliveryTarget(ctx.db, deliveryId));
  if (!target || target.status !== 'pending' || target.attempts >= attempt) return unattempted('stale');
  if (!target.integrationActive) {
    await markSkipped(ctx.db, deliveryId, 'integration inactive');
    return unattempted('skipped');
  }
  if (!WEBHOOK_KINDS.has(target.integrationType)) {
    await markSkipped(ctx.db, deliveryId, `type ${target.integrationType} is not dispatched over HTTP`);
    return unattempted('skipped');
  }
  const body = JSON.stringify(target.payload);
  const result: AttemptResult = target.url
    ? await postWebhook(ctx.config, { url: target.url, secrets: target.secrets }, target.eventId, body)
    : {
        requestedAt: new Date(),
        durationMs: 0,
        statusCode: null,
        ok: false,
        error: 'integration has no url',
        responseBody: null,
        retryAfterSeconds: null,
        requestHeaders: null,
        requestBody: null,
      };

  const { retryScheduleSeconds, retryJitter } = ctx.config.webhooks;
  // 410 Gone: the receiver says this endpoint is no more; retrying would only add load.
  const delay =
    result.ok || result.statusCode === 410
      ? null
      : nextDelayMs(retryScheduleSeconds, retryJitter, attempt, result.retryAfterSeconds);
  const status: DeliveryStatus = result.ok ? 'succeeded' : delay === null ? 'failed' : 'pending';
  observeAttempt(target, attempt, result);
  const recorded = await recordAttempt(ctx, {
    target,
    attempt,
    result,
    status,
    nextAttemptAt: delay === null ? null : new Date(Date.now() + delay),
  });
  if (!recorded) return unattempted('stale');
  if (recorded.breakerOpened) {
    breakerOpenings.inc();
    ctx.logger.warn(
      { integrationId: target.integrationId, failures: recorded.failureCount },
      'circuit breaker opened: integration auto-disabled',
    );
  }
  if (status === 'pending' && delay !== null) {
    // If this add is lost (crash, Redis down), the sweep re-enqueues the overdue delivery. Not an
    // error of this job: the attempt is recorded, and a rerun would only send it again.
    await ctx.producers
      .add(
        'deliveries',
        jobIds.deliveries(deliveryId, attempt + 1),
        {
          deliveryId,
          attempt: attempt + 1,
          eventType: eventTypeOf(target),
          integrationId: target.integrationId,
        },
        { delay },
      )
      .catch((err: unknown) =>
        ctx.logger.warn({ err, deliveryId }, 'next attempt not enqueued; the sweep will pick it up'),
      );
  }
  return {
    outcome: status,
    failure: result.ok
      ? null
      : {
          deliveryId,
          integrationId: target.integrationId,
          eventType: eventTypeOf(target),
          attempt,
          reason: failureReason(result),
        },
  };
}

function observeAttempt(target: DeliveryTarget, attempt: number, result: AttemptResult): void {
  const outcome = result.ok ? 'succeeded' : 'failed';
  webhookAttempts.inc({ outcome, status_class: statusClass(result.statusCode) });
  webhookAttemptDuration.observe({ outcome }, result.durationMs / 1000);
  const committedAt = Date.parse(String(target.payload.created_at));
  if (attempt === 1 && Number.isFinite(committedAt)) {
    deliveryLag.observe(Math.max(0, result.requestedAt.getTime() - committedAt) / 1000);
  }
}

const eventTypeOf = (target: DeliveryTarget): string | undefined =>
  typeof target.payload.type === 'string' ? target.payload.type : undefined;

/**
 * One more attempt, now, of a delivery whose job failed (a retry started from Bull Board): numbered
 * after the attempts made so far, so the retry already scheduled for that number finds it done and
 * sends nothing. A delivery that succeeded meanwhile is left alone; a failed or skipped one is
 * reopened, as a resend from the panel would.
 */
export async function attemptAgain(ctx: AppContext, deliveryId: number): Promise<AttemptReport> {
  const target = await loadDeliveryTarget(ctx.db, deliveryId);
  if (!target || target.status === 'succeeded') return unattempted('stale');
  if (target.status !== 'pending' && !(await reopenDelivery(ctx.db, deliveryId))) return unattempted('stale');
  return deliverAttempt(ctx, deliveryId, target.attempts + 1);
}
