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

export interface AttemptRecord {
  target: DeliveryTarget;
  attempt: number;
  result: AttemptResult;
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
}

/**
 * Records attempts (in completion order), their deliveries' new state and the breaker bookkeeping in
 * ONE statement, so atomically and in one round trip however many attempts finished together.
 * An attempt already recorded (the job ran twice) is left out of the result.
 *
 * Breaker: `failure_count` counts consecutive failed attempts. Per integration, a success in the
 * batch resets the count to the failures after the last success; otherwise the failures are added.
 * The UPDATE computes from the row it locks (`failure_count = failure_count + n`), so concurrent
 * batches to one integration never lose a count.
 */
export async function recordAttempts(
  db: Executor,
  records: AttemptRecord[],
  breakerThreshold: number,
): Promise<Map<string, RecordedAttempt>> {
  const rows = records.map((r, ord) => ({
    ord,
    delivery_id: r.target.id,
    event_id: r.target.eventId,
    integration_id: r.target.integrationId,
    attempt: r.attempt,
    requested_at: r.result.requestedAt.toISOString(),
    status_code: r.result.statusCode,
    error: r.result.error,
    duration_ms: r.result.durationMs,
    response_body: r.result.responseBody,
    status: r.status,
    next_attempt_at: r.nextAttemptAt?.toISOString() ?? null,
    ok: r.result.ok,
  }));
  const t = breakerThreshold;
  const newCount = sql`(CASE WHEN p.any_ok THEN p.trailing ELSE g.failure_count + p.trailing END)`;
  const result = await db.execute<{ delivery_id: string | number; attempt: number; failure_count: number | null; opened: boolean | null }>(sql`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(
        ord int, delivery_id bigint, event_id text, integration_id int, attempt int, requested_at timestamptz,
        status_code int, error text, duration_ms int, response_body text, status text, next_attempt_at timestamptz, ok boolean)
    ), attempt AS (
      INSERT INTO delivery_attempts
        (delivery_id, event_id, integration_id, attempt, requested_at, status_code, error, duration_ms, response_body)
      SELECT delivery_id, event_id, integration_id, attempt, requested_at, status_code, error, duration_ms, response_body
        FROM input ORDER BY ord
      ON CONFLICT (delivery_id, attempt) DO NOTHING
      RETURNING delivery_id, attempt
    ), recorded AS (
      -- The same attempt twice in one batch is inserted once, so it must count once.
      SELECT DISTINCT ON (i.delivery_id, i.attempt) i.*
        FROM input i JOIN attempt a ON a.delivery_id = i.delivery_id AND a.attempt = i.attempt
       ORDER BY i.delivery_id, i.attempt, i.ord
    ), delivery AS (
      UPDATE deliveries d
         SET status = r.status, attempts = GREATEST(d.attempts, r.attempt), last_status_code = r.status_code,
             last_error = r.error, next_attempt_at = r.next_attempt_at, updated_at = clock_timestamp()
        FROM recorded r
       WHERE d.id = r.delivery_id
      RETURNING d.id
    ), per_integration AS (
      SELECT integration_id, bool_or(ok) AS any_ok,
             count(*) FILTER (WHERE NOT ok AND ord > COALESCE(last_ok, -1))::int AS trailing
        FROM (SELECT r.*, max(ord) FILTER (WHERE ok) OVER (PARTITION BY integration_id) AS last_ok FROM recorded r) ranked
       GROUP BY integration_id
    ), breaker AS (
      UPDATE integrations g
         SET failure_count = ${newCount},
             last_failure_at = CASE WHEN p.trailing > 0 THEN clock_timestamp() ELSE g.last_failure_at END,
             is_active = CASE WHEN g.is_active AND p.trailing > 0 AND ${newCount} >= ${t} THEN false ELSE g.is_active END,
             disabled_reason = CASE WHEN g.is_active AND p.trailing > 0 AND ${newCount} >= ${t}
                                    THEN 'auto_disabled' ELSE g.disabled_reason END,
             updated_at = CASE WHEN p.trailing > 0 THEN clock_timestamp() ELSE g.updated_at END
        FROM per_integration p
       WHERE g.id = p.integration_id AND (p.trailing > 0 OR g.failure_count <> 0)
      RETURNING g.id, g.failure_count,
                (NOT g.is_active AND g.disabled_reason = 'auto_disabled' AND p.trailing > 0
                 AND g.failure_count >= ${t} AND g.failure_count - p.trailing < ${t}) AS opened
    )
    SELECT r.delivery_id, r.attempt, b.failure_count, b.opened
      FROM recorded r LEFT JOIN breaker b ON b.id = r.integration_id`);
  const byKey = new Map<string, RecordedAttempt>();
  for (const row of result.rows) {
    const record = records.find((r) => r.target.id === Number(row.delivery_id) && r.attempt === row.attempt);
    if (!record) continue;
    byKey.set(attemptKey(record.target.id, record.attempt), {
      status: record.status,
      failureCount: row.failure_count ?? 0,
      breakerOpened: row.opened ?? false,
    });
  }
  return byKey;
}

export const attemptKey = (deliveryId: number, attempt: number): string => `${deliveryId}:${attempt}`;

/** A failed, skipped or succeeded delivery back to pending for one more attempt (panel resend). */
export async function reopenDelivery(db: Executor, deliveryId: number): Promise<{ attempts: number } | undefined> {
  const result = await db.execute<{ attempts: number }>(sql`
    UPDATE deliveries SET status = 'pending', next_attempt_at = clock_timestamp(), updated_at = clock_timestamp()
     WHERE id = ${deliveryId} AND status <> 'pending'
 RETURNING attempts`);
  return result.rows[0];
}
