import { sql } from 'drizzle-orm';
import type { Executor } from '../shared/db/index.js';
import type { AttemptResult } from './http-client.js';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'skipped';

export interface DeliveryTarget {
  id: number;
  eventId: string;
  integrationId: number;
  status: DeliveryStatus;
  attempts: number;
  payload: Record<string, unknown>;
  integrationActive: boolean;
  integrationType: string;
  url: string | null;
  secret: string;
}

export interface TargetRow extends Record<string, unknown> {
  id: string | number;
  event_id: string;
  integration_id: number;
  status: DeliveryStatus;
  attempts: number;
  payload: Record<string, unknown>;
  is_active: boolean;
  type: string;
  config: Record<string, unknown>;
}

/** Everything one attempt needs, read at run time: the secret never travels through Redis. */
export async function loadDeliveryTarget(db: Executor, deliveryId: number): Promise<DeliveryTarget | undefined> {
  const result = await db.execute<TargetRow>(sql`
    SELECT d.id, d.event_id, d.integration_id, d.status, d.attempts, e.payload, i.is_active, i.type, i.config
      FROM deliveries d
      JOIN events e ON e.id = d.event_id
      JOIN integrations i ON i.id = d.integration_id
     WHERE d.id = ${deliveryId}`);
  const row = result.rows[0];
  return row ? toDeliveryTarget(row) : undefined;
}

export function toDeliveryTarget(row: TargetRow): DeliveryTarget {
  const url = row.config.url;
  const secret = row.config.secret;
  return {
    id: Number(row.id),
    eventId: row.event_id,
    integrationId: row.integration_id,
    status: row.status,
    attempts: row.attempts,
    payload: row.payload,
    integrationActive: row.is_active,
    integrationType: row.type,
    url: typeof url === 'string' ? url : null,
    secret: typeof secret === 'string' ? secret : '',
  };
}

/** Marks a pending delivery skipped (integration inactive): recorded, never attempted. */
export async function markSkipped(db: Executor, deliveryId: number, reason: string): Promise<void> {
  await db.execute(sql`
    UPDATE deliveries SET status = 'skipped', last_error = ${reason}, next_attempt_at = NULL, updated_at = clock_timestamp()
     WHERE id = ${deliveryId} AND status = 'pending'`);
}

export interface RecordedAttempt {
  status: DeliveryStatus;
  /** The integration's consecutive failures after this attempt. */
  failureCount: number;
  breakerOpened: boolean;
}

/**
 * Records one attempt, the delivery's new state and the breaker bookkeeping in ONE statement (so
 * atomically, and in one round trip). Returns undefined when this attempt was already recorded (the
 * job ran twice). The breaker is a single UPDATE ... SET failure_count = failure_count + 1, so
 * concurrent failures to one integration never lose a count; a success resets it to 0.
 */
export async function recordAttempt(
  db: Executor,
  input: {
    target: DeliveryTarget;
    attempt: number;
    result: AttemptResult;
    status: DeliveryStatus;
    nextAttemptAt: Date | null;
    breakerThreshold: number;
  },
): Promise<RecordedAttempt | undefined> {
  const { target, attempt, result, status } = input;
  const threshold = input.breakerThreshold;
  const breaker = result.ok
    ? sql`UPDATE integrations SET failure_count = 0
           WHERE id = ${target.integrationId} AND failure_count <> 0 AND EXISTS (SELECT 1 FROM attempt)
       RETURNING failure_count, false AS opened`
    : sql`UPDATE integrations
             SET failure_count = failure_count + 1,
                 last_failure_at = clock_timestamp(),
                 is_active = CASE WHEN is_active AND failure_count + 1 >= ${threshold} THEN false ELSE is_active END,
                 disabled_reason = CASE WHEN is_active AND failure_count + 1 >= ${threshold}
                                        THEN 'auto_disabled' ELSE disabled_reason END,
                 updated_at = clock_timestamp()
           WHERE id = ${target.integrationId} AND EXISTS (SELECT 1 FROM attempt)
       RETURNING failure_count, (failure_count = ${threshold} AND NOT is_active AND disabled_reason = 'auto_disabled') AS opened`;
  const rows = await db.execute<{ recorded: boolean; failure_count: number | null; opened: boolean | null }>(sql`
    WITH attempt AS (
      INSERT INTO delivery_attempts
        (delivery_id, event_id, integration_id, attempt, requested_at, status_code, error, duration_ms, response_body)
      VALUES (${target.id}, ${target.eventId}, ${target.integrationId}, ${attempt}, ${result.requestedAt.toISOString()},
              ${result.statusCode}, ${result.error}, ${result.durationMs}, ${result.responseBody})
      ON CONFLICT (delivery_id, attempt) DO NOTHING
      RETURNING id
    ), delivery AS (
      UPDATE deliveries
         SET status = ${status}, attempts = GREATEST(attempts, ${attempt}), last_status_code = ${result.statusCode},
             last_error = ${result.error}, next_attempt_at = ${input.nextAttemptAt?.toISOString() ?? null},
             updated_at = clock_timestamp()
       WHERE id = ${target.id} AND EXISTS (SELECT 1 FROM attempt)
      RETURNING id
    ), breaker AS (${breaker})
    SELECT EXISTS (SELECT 1 FROM attempt) AS recorded,
           (SELECT failure_count FROM breaker) AS failure_count,
           (SELECT opened FROM breaker) AS opened`);
  const row = rows.rows[0];
  if (!row?.recorded) return undefined;
  return { status, failureCount: row.failure_count ?? 0, breakerOpened: row.opened ?? false };
}

/** A failed, skipped or succeeded delivery back to pending for one more attempt (panel resend). */
export async function reopenDelivery(db: Executor, deliveryId: number): Promise<{ attempts: number } | undefined> {
  const result = await db.execute<{ attempts: number }>(sql`
    UPDATE deliveries SET status = 'pending', next_attempt_at = clock_timestamp(), updated_at = clock_timestamp()
     WHERE id = ${deliveryId} AND status <> 'pending'
 RETURNING attempts`);
  return result.rows[0];
}
