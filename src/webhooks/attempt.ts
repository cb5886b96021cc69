import { jobIds } from '../../queues/index.js';
import { recordEvent } from '../events/outbox.js';
import { publishAfterCommit } from '../events/publish.js';
import { nothingSent, type AttemptResult, type DeliveryTarget } from '../integrations/kinds/kind.js';
import { kindOf } from '../integrations/kinds/registry.js';
import type { AppContext } from '../shared/context.js';
import { isRetryableTransactionError } from '../shared/db/errors.js';
import { batcherFor, MicroBatcher } from '../shared/batcher.js';
import {
  breakerOpenings,
  deliveryLag,
  statusClass,
  webhookAttemptDuration,
  webhookAttempts,
} from '../shared/metrics.js';
import { breakerEvents } from './integration-events.js';
import {
  attemptKey,
  recordAttempts,
  type AttemptRecord,
  type RecordedAttempt,
  type RecordedBatch,
} from './repository/attempts.js';
import type { LaneDelivery } from './repository/lanes.js';
import { nextDelayMs } from './retry-delays.js';
import type { DeliveryStatus } from '../shared/enums/delivery-statuses.js';

/** The longest a receiver's 429 Retry-After pauses its integration. */
export const MAX_PAUSE_SECONDS = 3600;

export interface AttemptOutcome {
  attempt: number;
  result: AttemptResult;
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  /** Set when the receiver answered 429 with Retry-After: nothing more starts for it before then. */
  pauseUntil: Date | null;
}

/** What Bull Board shows as a failed job's reason: the receiver's answer, or why there was none. */
export function failureReason(result: AttemptResult): string {
  return result.statusCode === null
    ? `no response: ${result.error ?? 'unknown error'}`
    : `receiver answered HTTP ${result.statusCode}`;
}

/**
 * One attempt of one delivery through its integration's destination, and what it means: succeeded,
 * failed for good (410 Gone, or the schedule is exhausted), or pending with its next attempt after
 * the retry schedule.
 */
export async function sendAttempt(
  ctx: AppContext,
  target: DeliveryTarget,
  delivery: LaneDelivery,
): Promise<AttemptOutcome> {
  const attempt = delivery.attempts + 1;
  const destination = kindOf(target.type).destination;
  const result = destination
    ? await destination.attempt(ctx, target, {
        id: delivery.eventId,
        payload: delivery.payload,
        traceContext: delivery.traceContext,
      })
    : nothingSent(`type ${target.type} receives no events`);
  const { retryScheduleSeconds, retryJitter } = ctx.config.webhooks;
  // 410 Gone: the receiver says this endpoint is no more; retrying would only add load.
  const delay =
    result.ok || result.statusCode === 410
      ? null
      : nextDelayMs(retryScheduleSeconds, retryJitter, attempt, result.retryAfterSeconds);
  const pauseUntil =
    result.statusCode === 429 && result.retryAfterSeconds !== null
      ? new Date(Date.now() + Math.min(result.retryAfterSeconds, MAX_PAUSE_SECONDS) * 1000)
      : null;
  observeAttempt(delivery, attempt, result);
  return {
    attempt,
    result,
    status: result.ok ? 'succeeded' : delay === null ? 'failed' : 'pending',
    nextAttemptAt: delay === null ? null : new Date(Date.now() + delay),
    pauseUntil,
  };
}

function observeAttempt(delivery: LaneDelivery, attempt: number, result: AttemptResult): void {
  const outcome = result.ok ? 'succeeded' : 'failed';
  webhookAttempts.inc({ outcome, status_class: statusClass(result.statusCode) });
  webhookAttemptDuration.observe({ outcome }, result.durationMs / 1000);
  const committedAt = Date.parse(String(delivery.payload.created_at));
  if (attempt === 1 && Number.isFinite(committedAt)) {
    deliveryLag.observe(Math.max(0, result.requestedAt.getTime() - committedAt) / 1000);
  }
}

/**
 * Records a batch of attempts; when one of them failed, in a transaction with the operational
 * events of the integrations whose breaker count crossed a mark, so the state change and its event
 * commit together. A deadlock between two workers' batches is retried.
 */
async function recordBatch(ctx: AppContext, records: AttemptRecord[]): Promise<RecordedBatch> {
  const threshold = ctx.config.webhooks.breakerThreshold;
  for (let tries = 1; ; tries += 1) {
    try {
      // Only a failure moves a breaker count up, so a batch of successes needs no transaction.
      if (records.every((r) => r.result.ok)) return await recordAttempts(ctx.db, records, threshold);
      const { batch, eventIds } = await ctx.db.transaction(async (tx) => {
        const recorded = await recordAttempts(tx, records, threshold);
        const ids: string[] = [];
        for (const event of recorded.crossings.flatMap(breakerEvents)) {
          ids.push((await recordEvent(tx, event)).id);
        }
        return { batch: recorded, eventIds: ids };
      });
      publishAfterCommit(ctx, eventIds);
      return batch;
    } catch (err) {
      if (tries >= 3 || !isRetryableTransactionError(err)) throw err;
    }
  }
}

/**
 * Attempts one statement records, and statements at once per process: under load the batches grow
 * (a statement's fixed cost, planning included, is paid per batch), while a second statement may run
 * beside a slow one.
 */
const RECORD_BATCH_MAX = 200;
/**
 * Record statements from one process start at least this far apart. Recording is off the path to
 * the receiver (the next request does not wait for it), so under a steady stream waiting a little
 * to record more attempts per statement costs no delivery any time, and each statement is a round
 * trip and a commit the worker and PostgreSQL would otherwise pay for three or four attempts.
 */
const RECORD_SPACING_MS = 20;

const recorders = new WeakMap<AppContext, MicroBatcher<AttemptRecord, RecordedAttempt | undefined>>();

/**
 * Attempts that finish together (across every lane of this process) are recorded by one statement;
 * undefined when the attempt was already recorded (the same attempt made twice).
 */
export function recordAttempt(ctx: AppContext, record: AttemptRecord): Promise<RecordedAttempt | undefined> {
  const batcher = batcherFor(
    recorders,
    ctx,
    () =>
      new MicroBatcher(
        async (records: AttemptRecord[]) => {
          const { attempts } = await recordBatch(ctx, records);
          const claimed = new Set<string>();
          return records.map((r) => {
            const key = attemptKey(r.delivery.id, r.attempt);
            if (claimed.has(key)) return undefined;
            claimed.add(key);
            return attempts.get(key);
          });
        },
        RECORD_BATCH_MAX,
        2,
        RECORD_SPACING_MS,
      ),
  );
  return batcher.push(record);
}

export function noteBreakerOpened(ctx: AppContext, integrationId: number, failures: number): void {
  breakerOpenings.inc();
  ctx.logger.warn({ integrationId, failures }, 'circuit breaker opened: integration auto-disabled');
}

/**
 * Every failed attempt leaves a failed job in Bull Board (`dlv-<delivery>-<attempt>` on the
 * deliveries queue) whose reason names the receiver's answer; a retry of it from the board asks for
 * one more attempt. A lost report (Redis down) loses no delivery: the attempt is in PostgreSQL.
 */
export async function reportFailedAttempt(
  ctx: AppContext,
  delivery: LaneDelivery,
  outcome: AttemptOutcome,
): Promise<void> {
  const eventType = typeof delivery.payload.type === 'string' ? delivery.payload.type : undefined;
  const reason = `delivery ${delivery.id} (integration ${delivery.integrationId}) attempt ${outcome.attempt}: ${failureReason(outcome.result)}`;
  await ctx.producers
    .add('deliveries', jobIds.deliveries(delivery.id, outcome.attempt), {
      deliveryId: delivery.id,
      attempt: outcome.attempt,
      ...(eventType === undefined ? {} : { eventType }),
      integrationId: delivery.integrationId,
      reason,
    })
    .catch((err: unknown) =>
      ctx.logger.warn({ err, deliveryId: delivery.id }, 'failed attempt not shown in Bull Board (Redis)'),
    );
}
