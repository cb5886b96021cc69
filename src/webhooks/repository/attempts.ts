import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../shared/db/index.js';
import { executeNamed } from '../../shared/db/prepared.js';
import type { DeliveryStatus } from '../../shared/enums/delivery-statuses.js';
import type { AttemptResult } from '../../integrations/kinds/kind.js';
import { toDate, toId } from './shared.js';

export interface AttemptRecord {
  delivery: { id: number; eventId: string; integrationId: number };
  attempt: number;
  result: AttemptResult;
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
}

export interface RecordedAttempt {
  status: DeliveryStatus;
  /** The integration's consecutive failures after this attempt. */
  failureCount: number;
  breakerOpened: boolean;
}

/** An integration whose breaker count crossed a mark in this batch: what its operational events say. */
export interface BreakerCrossing {
  integrationId: number;
  companyId: number;
  type: string;
  url: string | null;
  failureCount: number;
  lastFailureAt: Date | null;
  disabledReason: string;
  /** The count reached half the threshold (once per streak of failures). */
  failing: boolean;
  /** The breaker opened: the integration is now inactive (`auto_disabled`). */
  disabled: boolean;
}

export interface RecordedBatch {
  /** By `attemptKey`; an attempt already recorded (the same attempt made twice) is absent. */
  attempts: Map<string, RecordedAttempt>;
  crossings: BreakerCrossing[];
}

export const attemptKey = (deliveryId: number, attempt: number): string => `${deliveryId}:${attempt}`;

/** Half the breaker threshold, rounded up: where `integration.failing` fires. */
export const failingMark = (breakerThreshold: number): number => Math.ceil(breakerThreshold / 2);

/**
 * Records attempts (in completion order), their deliveries' new state and the breaker bookkeeping in
 * ONE statement, so atomically and in one round trip however many attempts finished together.
 *
 * Breaker: `failure_count` counts consecutive failed attempts. Per integration, a success in the
 * batch resets the count to the failures after the last success; otherwise the failures are added.
 * The UPDATE computes from the row it locks (`failure_count = failure_count + n`), so concurrent
 * batches to one integration never lose a count. The statement reports each integration whose count
 * crossed half the threshold or the threshold itself in this batch, for the operational events.
 */
export async function recordAttempts(
  db: Executor,
  records: AttemptRecord[],
  breakerThreshold: number,
): Promise<RecordedBatch> {
  const result = await executeNamed<RecordedRow>(
    db,
    'webhooks_record_attempts',
    recordAttemptsStatement(records, breakerThreshold),
  );

  const attempts = new Map<string, RecordedAttempt>();
  const crossings = new Map<number, BreakerCrossing>();
  for (const row of result.rows) {
    const deliveryId = toId(row.delivery_id);
    const record = records.find((r) => r.delivery.id === deliveryId && r.attempt === row.attempt);
    if (!record) continue;
    attempts.set(attemptKey(deliveryId, record.attempt), {
      status: record.status,
      failureCount: row.failure_count ?? 0,
      breakerOpened: row.opened ?? false,
    });
    if ((row.failing || row.opened) && row.company_id !== null) {
      crossings.set(record.delivery.integrationId, {
        integrationId: record.delivery.integrationId,
        companyId: toId(row.company_id),
        type: row.type ?? '',
        url: row.url,
        failureCount: row.failure_count ?? 0,
        lastFailureAt: toDate(row.last_failure_at),
        disabledReason: row.disabled_reason ?? '',
        failing: row.failing ?? false,
        disabled: row.opened ?? false,
      });
    }
  }
  return { attempts, crossings: [...crossings.values()] };
}

/** What `recordAttempts` returns per recorded attempt, with its integration's breaker state. */
interface RecordedRow extends Record<string, unknown> {
  delivery_id: string | number;
  attempt: number;
  failure_count: number | null;
  opened: boolean | null;
  failing: boolean | null;
  company_id: string | number | null;
  type: string | null;
  url: string | null;
  last_failure_at: Date | string | null;
  disabled_reason: string | null;
}

/** The one statement `recordAttempts` runs (exported so its plan can be checked). */
export function recordAttemptsStatement(records: AttemptRecord[], breakerThreshold: number): SQL {
  const rows = records.map((r, ord) => ({
    ord,
    delivery_id: r.delivery.id,
    event_id: r.delivery.eventId,
    integration_id: r.delivery.integrationId,
    attempt: r.attempt,
    requested_at: r.result.requestedAt.toISOString(),
    status_code: r.result.statusCode,
    error: r.result.error,
    duration_ms: r.result.durationMs,
    response_body: r.result.responseBody,
    request_headers: r.result.requestHeaders,
    request_body: r.result.requestBody,
    status: r.status,
    next_attempt_at: r.nextAttemptAt?.toISOString() ?? null,
    ok: r.result.ok,
  }));
  const t = breakerThreshold;
  const half = failingMark(breakerThreshold);
  const newCount = sql`(CASE WHEN p.any_ok THEN p.trailing ELSE g.failure_count + p.trailing END)`;
  return sql`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(
        ord int, delivery_id bigint, event_id text, integration_id int, attempt int, requested_at timestamptz,
        status_code int, error text, duration_ms int, response_body text, request_headers jsonb, request_body text,
        status text, next_attempt_at timestamptz, ok boolean)
    ), attempt AS (
      -- Only for a delivery that exists, locked as the update below locks it: a delivery deleted
      -- meanwhile waits for this commit, and its deletion's trigger then removes these attempts
      -- (migration 0806: what the foreign key did, without its key-share lock on a row this
      -- statement updates, which PostgreSQL had to record as a MultiXact). The deliveries are found
      -- by primary key: joined on the input alone (estimated at a hundred rows whatever its size),
      -- the planner hashed it against a scan of the whole table until that held tens of thousands.
      INSERT INTO delivery_attempts
        (delivery_id, event_id, integration_id, attempt, requested_at, status_code, error, duration_ms, response_body,
         request_headers, request_body)
      SELECT i.delivery_id, i.event_id, i.integration_id, i.attempt, i.requested_at, i.status_code, i.error,
             i.duration_ms, i.response_body, i.request_headers, i.request_body
        FROM input i JOIN deliveries d ON d.id = i.delivery_id
       WHERE d.id = ANY(ARRAY(SELECT delivery_id FROM input))
       ORDER BY i.ord
         FOR NO KEY UPDATE OF d
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
      RETURNING g.id, g.company_id, g.type, g.config->>'url' AS url, g.failure_count, g.last_failure_at,
                g.disabled_reason,
                (NOT g.is_active AND g.disabled_reason = 'auto_disabled' AND p.trailing > 0
                 AND g.failure_count >= ${t} AND g.failure_count - p.trailing < ${t}) AS opened,
                (p.trailing > 0 AND g.failure_count >= ${half} AND g.failure_count - p.trailing < ${half}) AS failing
    )
    SELECT r.delivery_id, r.attempt, b.failure_count, b.opened, b.failing, b.company_id, b.type, b.url,
           b.last_failure_at, b.disabled_reason
      FROM recorded r LEFT JOIN breaker b ON b.id = r.integration_id`;
}

/**
 * Makes a delivery due for one more attempt now (a retry started from Bull Board): a failed or
 * skipped one is reopened, a pending one waiting for its retry is brought forward; a succeeded one
 * is left alone (undefined).
 */
export async function makeDueNow(
  db: Executor,
  deliveryId: number,
): Promise<{ integrationId: number; attempts: number } | undefined> {
  const result = await db.execute<{ integration_id: number; attempts: number }>(sql`
    UPDATE deliveries
       SET status = 'pending', next_attempt_at = clock_timestamp(), updated_at = clock_timestamp()
     WHERE id = ${deliveryId} AND status <> 'succeeded'
 RETURNING integration_id, attempts`);
  const row = result.rows[0];
  return row ? { integrationId: row.integration_id, attempts: row.attempts } : undefined;
}

/** A failed, skipped or succeeded delivery back to pending for one more attempt (a panel resend). */
export async function reopenDelivery(
  db: Executor,
  deliveryId: number,
): Promise<{ integrationId: number; attempts: number } | undefined> {
  const result = await db.execute<{ integration_id: number; attempts: number }>(sql`
    UPDATE deliveries SET status = 'pending', next_attempt_at = clock_timestamp(), updated_at = clock_timestamp()
     WHERE id = ${deliveryId} AND status <> 'pending'
 RETURNING integration_id, attempts`);
  const row = result.rows[0];
  return row ? { integrationId: row.integration_id, attempts: row.attempts } : undefined;
}

/** The integration of a delivery that is still pending (undefined otherwise). */
export async function pendingDeliveryIntegration(
  db: Executor,
  deliveryId: number,
): Promise<number | undefined> {
  const result = await db.execute<{ integration_id: number }>(sql`
    SELECT integration_id FROM deliveries WHERE id = ${deliveryId} AND status = 'pending'`);
  return result.rows[0]?.integration_id;
}
