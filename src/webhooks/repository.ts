import { and, asc, desc, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import { EVENT_KINDS, PRODUCTLESS_EVENT_KINDS, subscribedKindsFor } from '../events/kinds.js';
import { WEBHOOK_KIND_TYPES } from '../integrations/types.js';
import { schema, type Executor } from '../shared/db/index.js';
import type { DeliveryStatus } from '../shared/enums/delivery-statuses.js';
import type { AttemptResult } from './http-client.js';

export type { DeliveryStatus };

const { deliveries, deliveryAttempts, events, integrations } = schema;

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
  /** The current secret first, then the one a rotation replaced while it still signs. */
  secrets: string[];
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
  previous_secret: string | null;
}

/** The secret a rotation replaced, while it still signs (decisions, "Secret rotation"). */
const PREVIOUS_SECRET = sql`(CASE WHEN i.previous_secret_expires_at > clock_timestamp() THEN i.previous_secret END) AS previous_secret`;

/**
 * Kinds that reach more than their own subscribers, as the JSON the fan-out statement reads
 * (`order.payment_declined` also reaches `order.failed`): bound as one parameter.
 */
const SUBSCRIBERS = JSON.stringify(
  Object.fromEntries(
    EVENT_KINDS.filter((kind) => subscribedKindsFor(kind).length > 1).map((kind) => [
      kind,
      subscribedKindsFor(kind),
    ]),
  ),
);

/**
 * Fans one event out into one delivery per matching integration (decisions, "Routing"): active,
 * webhook-kind, subscribed to the kind (or to `order.failed` for a declined payment), covering the
 * event's product unless the kind ignores the product filter or the event has none.
 *
 * Exactly once, in one statement: claiming the event (`relayed_at` still null) and inserting its
 * deliveries commit together; a concurrent or repeated relay claims nothing. Returns every delivery
 * of the event still waiting for its first attempt, with what that attempt needs (the same
 * statement, so one round trip per event).
 */
export async function fanOutMany(db: Executor, eventIds: string[]): Promise<DeliveryTarget[]> {
  const ids = sql`${sql.param(eventIds)}::text[]`;
  const result = await db.execute<TargetRow>(sql`
    WITH claimed AS (
      UPDATE events SET relayed_at = clock_timestamp()
       WHERE id = ANY(${ids}) AND relayed_at IS NULL
   RETURNING id, company_id, type, product_id, payload
    ), inserted AS (
      INSERT INTO deliveries (event_id, integration_id, next_attempt_at)
      SELECT c.id, i.id, clock_timestamp()
        FROM claimed c
        JOIN integrations i ON i.company_id = c.company_id
       WHERE i.is_active
         AND i.type = ANY(${sql.param(WEBHOOK_KIND_TYPES)}::text[])
         AND i.events && COALESCE(
               (SELECT array_agg(k) FROM jsonb_array_elements_text(${SUBSCRIBERS}::jsonb -> c.type) k),
               ARRAY[c.type])
         AND (c.type = ANY(${sql.param(PRODUCTLESS_EVENT_KINDS)}::text[]) OR c.product_id IS NULL OR i.send_to_all_products OR c.product_id = ANY(i.product_ids))
       ORDER BY i.id
      ON CONFLICT (event_id, integration_id) DO NOTHING
   RETURNING id, event_id, integration_id
    )
    -- Rows inserted by this statement are invisible to its own scans, so the two halves never overlap.
    SELECT n.id, n.event_id, n.integration_id, 'pending' AS status, 0 AS attempts, c.payload, i.is_active, i.type, i.config, ${PREVIOUS_SECRET}
      FROM inserted n JOIN claimed c ON c.id = n.event_id JOIN integrations i ON i.id = n.integration_id
    UNION ALL
    SELECT d.id, d.event_id, d.integration_id, d.status, d.attempts, e.payload, i.is_active, i.type, i.config, ${PREVIOUS_SECRET}
      FROM deliveries d JOIN events e ON e.id = d.event_id JOIN integrations i ON i.id = d.integration_id
     WHERE d.event_id = ANY(${ids}) AND d.status = 'pending' AND d.attempts = 0`);
  return result.rows.map(toDeliveryTarget).sort((a, b) => a.id - b.id);
}

/** Everything one attempt needs, read at run time: the secret never travels through Redis. */
export async function loadDeliveryTarget(
  db: Executor,
  deliveryId: number,
): Promise<DeliveryTarget | undefined> {
  const result = await db.execute<TargetRow>(sql`
    SELECT d.id, d.event_id, d.integration_id, d.status, d.attempts, e.payload, i.is_active, i.type, i.config, ${PREVIOUS_SECRET}
      FROM deliveries d
      JOIN events e ON e.id = d.event_id
      JOIN integrations i ON i.id = d.integration_id
     WHERE d.id = ${deliveryId}`);
  const row = result.rows[0];
  return row ? toDeliveryTarget(row) : undefined;
}

/** Where an integration's webhooks go and the secrets that sign them, from its row. */
function sendingFacts(row: Pick<TargetRow, 'type' | 'config' | 'previous_secret'>) {
  const { url, secret } = row.config;
  return {
    integrationType: row.type,
    url: typeof url === 'string' ? url : null,
    secrets: [
      typeof secret === 'string' ? secret : '',
      ...(row.previous_secret ? [row.previous_secret] : []),
    ],
  };
}

export function toDeliveryTarget(row: TargetRow): DeliveryTarget {
  return {
    id: Number(row.id),
    eventId: row.event_id,
    integrationId: row.integration_id,
    status: row.status,
    attempts: row.attempts,
    payload: row.payload,
    integrationActive: row.is_active,
    ...sendingFacts(row),
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
    request_headers: r.result.requestHeaders,
    request_body: r.result.requestBody,
    status: r.status,
    next_attempt_at: r.nextAttemptAt?.toISOString() ?? null,
    ok: r.result.ok,
  }));
  const t = breakerThreshold;
  const newCount = sql`(CASE WHEN p.any_ok THEN p.trailing ELSE g.failure_count + p.trailing END)`;
  const result = await db.execute<{
    delivery_id: string | number;
    attempt: number;
    failure_count: number | null;
    opened: boolean | null;
  }>(sql`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(
        ord int, delivery_id bigint, event_id text, integration_id int, attempt int, requested_at timestamptz,
        status_code int, error text, duration_ms int, response_body text, request_headers jsonb, request_body text,
        status text, next_attempt_at timestamptz, ok boolean)
    ), attempt AS (
      INSERT INTO delivery_attempts
        (delivery_id, event_id, integration_id, attempt, requested_at, status_code, error, duration_ms, response_body,
         request_headers, request_body)
      SELECT delivery_id, event_id, integration_id, attempt, requested_at, status_code, error, duration_ms, response_body,
             request_headers, request_body
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
export async function reopenDelivery(
  db: Executor,
  deliveryId: number,
): Promise<{ attempts: number } | undefined> {
  const result = await db.execute<{ attempts: number }>(sql`
    UPDATE deliveries SET status = 'pending', next_attempt_at = clock_timestamp(), updated_at = clock_timestamp()
     WHERE id = ${deliveryId} AND status <> 'pending'
 RETURNING attempts`);
  return result.rows[0];
}

/** Events committed more than `graceMs` ago that no relay has claimed (oldest first). */
export async function unrelayedEvents(db: Executor, graceMs: number, limit: number): Promise<string[]> {
  const result = await db.execute<{ id: string }>(sql`
    SELECT id FROM events
     WHERE relayed_at IS NULL AND created_at < clock_timestamp() - make_interval(secs => ${graceMs / 1000})
     ORDER BY created_at LIMIT ${limit}`);
  return result.rows.map((r) => r.id);
}

/** Pending deliveries whose next attempt is overdue by more than `graceMs` (their job was lost). */
export async function overdueDeliveries(
  db: Executor,
  graceMs: number,
  limit: number,
): Promise<Array<{ deliveryId: number; eventId: string; attempts: number }>> {
  const result = await db.execute<{ id: string | number; event_id: string; attempts: number }>(sql`
    SELECT id, event_id, attempts FROM deliveries
     WHERE status = 'pending' AND next_attempt_at < clock_timestamp() - make_interval(secs => ${graceMs / 1000})
     ORDER BY next_attempt_at LIMIT ${limit}`);
  return result.rows.map((r) => ({ deliveryId: Number(r.id), eventId: r.event_id, attempts: r.attempts }));
}

export interface DeliveryAttemptView {
  attempt: number;
  requestedAt: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  responseBody: string | null;
  /** What was sent, without the signature header; null for attempts recorded before it was kept. */
  request: { headers: Record<string, string>; body: string } | null;
}

export interface DeliveryView {
  id: number;
  eventId: string;
  eventType: string;
  integrationId: number;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
  history: DeliveryAttemptView[];
}

/** Whether the company has the integration, and whether it is active (undefined: not found). */
export async function findOwnIntegration(
  db: Executor,
  companyId: number,
  integrationId: number,
): Promise<{ isActive: boolean } | undefined> {
  const [row] = await db
    .select({ isActive: integrations.isActive })
    .from(integrations)
    .where(and(eq(integrations.id, integrationId), eq(integrations.companyId, companyId)));
  return row;
}

async function withHistory(
  db: Executor,
  rows: Array<Omit<DeliveryView, 'history'>>,
): Promise<DeliveryView[]> {
  if (rows.length === 0) return [];
  const attempts = await db
    .select()
    .from(deliveryAttempts)
    .where(
      inArray(
        deliveryAttempts.deliveryId,
        rows.map((r) => r.id),
      ),
    )
    .orderBy(asc(deliveryAttempts.attempt));
  return rows.map((row) => ({
    ...row,
    history: attempts
      .filter((a) => a.deliveryId === row.id)
      .map((a) => ({
        attempt: a.attempt,
        requestedAt: a.requestedAt,
        statusCode: a.statusCode,
        error: a.error,
        durationMs: a.durationMs,
        responseBody: a.responseBody,
        request:
          a.requestHeaders && a.requestBody !== null
            ? { headers: a.requestHeaders, body: a.requestBody }
            : null,
      })),
  }));
}

const deliveryColumns = {
  id: deliveries.id,
  eventId: deliveries.eventId,
  eventType: events.type,
  integrationId: deliveries.integrationId,
  status: deliveries.status,
  attempts: deliveries.attempts,
  nextAttemptAt: deliveries.nextAttemptAt,
  lastStatusCode: deliveries.lastStatusCode,
  lastError: deliveries.lastError,
  createdAt: deliveries.createdAt,
  updatedAt: deliveries.updatedAt,
};

export async function deliveryExists(
  db: Executor,
  integrationId: number,
  deliveryId: number,
): Promise<boolean> {
  const [row] = await db
    .select({ id: deliveries.id })
    .from(deliveries)
    .where(and(eq(deliveries.id, deliveryId), eq(deliveries.integrationId, integrationId)));
  return row !== undefined;
}

/** An integration's deliveries, newest first (ids grow with time), one extra to tell whether more follow. */
export async function listDeliveries(
  db: Executor,
  integrationId: number,
  query: {
    status?: DeliveryStatus | undefined;
    eventType?: string | undefined;
    since?: Date | undefined;
    limit: number;
    startingAfter?: number | undefined;
  },
): Promise<DeliveryView[]> {
  const rows = await db
    .select(deliveryColumns)
    .from(deliveries)
    .innerJoin(events, eq(events.id, deliveries.eventId))
    .where(
      and(
        eq(deliveries.integrationId, integrationId),
        query.status === undefined ? undefined : eq(deliveries.status, query.status),
        query.eventType === undefined ? undefined : eq(events.type, query.eventType),
        query.since === undefined ? undefined : gte(deliveries.createdAt, query.since),
        query.startingAfter === undefined ? undefined : lt(deliveries.id, query.startingAfter),
      ),
    )
    .orderBy(desc(deliveries.id))
    .limit(query.limit + 1);
  return withHistory(db, rows);
}

export async function findDelivery(
  db: Executor,
  integrationId: number,
  deliveryId: number,
): Promise<DeliveryView | undefined> {
  const rows = await db
    .select(deliveryColumns)
    .from(deliveries)
    .innerJoin(events, eq(events.id, deliveries.eventId))
    .where(and(eq(deliveries.id, deliveryId), eq(deliveries.integrationId, integrationId)));
  const [view] = await withHistory(db, rows);
  return view;
}

/** Each delivery of an event with its integration's URL and its first attempt's status (simulate's report). */
export async function firstAttemptsOf(
  db: Executor,
  eventId: string,
): Promise<
  Array<{
    integrationId: number;
    destination: string | null;
    status: DeliveryStatus;
    statusCode: number | null;
  }>
> {
  const rows = await db.execute<{
    integration_id: number;
    destination: string | null;
    status: DeliveryStatus;
    status_code: number | null;
  }>(sql`
    SELECT d.integration_id, i.config->>'url' AS destination, d.status,
           (SELECT a.status_code FROM delivery_attempts a WHERE a.delivery_id = d.id ORDER BY a.attempt LIMIT 1) AS status_code
      FROM deliveries d JOIN integrations i ON i.id = d.integration_id
     WHERE d.event_id = ${eventId}
     ORDER BY d.integration_id`);
  return rows.rows.map((r) => ({
    integrationId: r.integration_id,
    destination: r.destination,
    status: r.status,
    statusCode: r.status_code,
  }));
}

/** Where and how to send to one of the company's integrations now (a test send); undefined: not the company's. */
export async function findSendTarget(
  db: Executor,
  companyId: number,
  integrationId: number,
): Promise<{ integrationType: string; url: string | null; secrets: string[] } | undefined> {
  const result = await db.execute<Pick<TargetRow, 'type' | 'config' | 'previous_secret'>>(sql`
    SELECT i.type, i.config, ${PREVIOUS_SECRET}
      FROM integrations i
     WHERE i.id = ${integrationId} AND i.company_id = ${companyId}`);
  const row = result.rows[0];
  return row ? sendingFacts(row) : undefined;
}

/**
 * Starts a bulk recovery: remembers the integration's newest delivery (later ones are not part of
 * it) and counts the failed and skipped deliveries it will reopen, in one statement.
 */
export async function insertRecovery(
  db: Executor,
  integrationId: number,
  since: Date,
): Promise<{ id: number; requested: number }> {
  const result = await db.execute<{ id: string | number; requested: number }>(sql`
    INSERT INTO delivery_recoveries (integration_id, since, up_to_id, requested)
    SELECT ${integrationId}, ${since.toISOString()}::timestamptz, COALESCE(max(id), 0),
           (count(*) FILTER (WHERE status IN ('failed', 'skipped') AND created_at >= ${since.toISOString()}::timestamptz))::int
      FROM deliveries WHERE integration_id = ${integrationId}
 RETURNING id, requested`);
  const row = result.rows[0];
  if (!row) throw new Error('insert into delivery_recoveries returned no row');
  return { id: Number(row.id), requested: row.requested };
}

export interface RecoveredPage {
  /** Reopened deliveries, pending again, with the attempts made so far. */
  reopened: Array<{ deliveryId: number; attempts: number }>;
  finished: boolean;
}

/**
 * One page of a recovery, in one statement: reopens the next `pageSize` failed or skipped deliveries
 * after the recovery's cursor and advances the cursor with them, so the page and the progress commit
 * together. A rerun (a worker restarted midway) continues after the last committed page; the row
 * lock keeps two runs of one recovery from taking the same page.
 */
export async function recoverPage(
  db: Executor,
  recoveryId: number,
  pageSize: number,
): Promise<RecoveredPage> {
  const result = await db.execute<{
    reopened: Array<{ id: number; attempts: number }> | null;
    finished: boolean | null;
  }>(sql`
    WITH r AS (
      SELECT * FROM delivery_recoveries WHERE id = ${recoveryId} AND finished_at IS NULL FOR UPDATE
    ), page AS (
      SELECT d.id FROM deliveries d, r
       WHERE d.integration_id = r.integration_id AND d.id > r.cursor AND d.id <= r.up_to_id
         AND d.created_at >= r.since AND d.status IN ('failed', 'skipped')
       ORDER BY d.id LIMIT ${pageSize}
    ), reopened AS (
      UPDATE deliveries d
         SET status = 'pending', next_attempt_at = clock_timestamp(), updated_at = clock_timestamp()
        FROM page WHERE d.id = page.id AND d.status IN ('failed', 'skipped')
      RETURNING d.id, d.attempts
    ), advanced AS (
      UPDATE delivery_recoveries x
         SET cursor = COALESCE((SELECT max(id) FROM page), x.cursor),
             recovered = x.recovered + (SELECT count(*) FROM reopened),
             finished_at = CASE WHEN (SELECT count(*) FROM page) < ${pageSize} THEN clock_timestamp() END
        FROM r WHERE x.id = r.id
      RETURNING x.finished_at
    )
    SELECT (SELECT json_agg(json_build_object('id', id, 'attempts', attempts) ORDER BY id) FROM reopened) AS reopened,
           COALESCE((SELECT finished_at IS NOT NULL FROM advanced), true) AS finished`);
  const row = result.rows[0];
  return {
    reopened: (row?.reopened ?? []).map((d) => ({ deliveryId: Number(d.id), attempts: d.attempts })),
    finished: row?.finished ?? true,
  };
}

export interface PrunedBatch {
  events: number;
  deliveries: number;
  attempts: number;
}

/**
 * Deletes at most `batch` finished deliveries created before `cutoff` (their attempts go with
 * them), then at most `batch` relayed events before `cutoff` that no delivery still needs. Pending
 * deliveries and unrelayed events are never touched, whatever their age. Small batches keep each
 * statement's locks and WAL short on a busy database.
 */
export async function pruneBatch(db: Executor, cutoff: Date, batch: number): Promise<PrunedBatch> {
  const before = cutoff.toISOString();
  const deliveriesResult = await db.execute<{ deliveries: number; attempts: number }>(sql`
    WITH doomed AS (
      SELECT id FROM deliveries
       WHERE created_at < ${before}::timestamptz AND status <> 'pending'
       ORDER BY id LIMIT ${batch}
    ), attempts AS (
      DELETE FROM delivery_attempts a USING doomed WHERE a.delivery_id = doomed.id RETURNING a.id
    ), removed AS (
      DELETE FROM deliveries d USING doomed WHERE d.id = doomed.id RETURNING d.id
    )
    SELECT (SELECT count(*) FROM removed)::int AS deliveries, (SELECT count(*) FROM attempts)::int AS attempts`);
  const eventsResult = await db.execute<{ events: number }>(sql`
    WITH doomed AS (
      SELECT e.id FROM events e
       WHERE e.created_at < ${before}::timestamptz AND e.relayed_at IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id)
       ORDER BY e.created_at LIMIT ${batch}
    ), removed AS (
      DELETE FROM events e USING doomed WHERE e.id = doomed.id RETURNING e.id
    )
    SELECT count(*)::int AS events FROM removed`);
  await db.execute(sql`
    DELETE FROM delivery_recoveries WHERE id IN (
      SELECT id FROM delivery_recoveries
       WHERE finished_at IS NOT NULL AND created_at < ${before}::timestamptz LIMIT ${batch})`);
  return {
    events: eventsResult.rows[0]?.events ?? 0,
    deliveries: deliveriesResult.rows[0]?.deliveries ?? 0,
    attempts: deliveriesResult.rows[0]?.attempts ?? 0,
  };
}

/** Seconds since the oldest committed event that no relay has claimed (0 when there is none). */
export async function oldestUnrelayedAgeSeconds(db: Executor): Promise<number> {
  const result = await db.execute<{ age: number | string | null }>(sql`
    SELECT EXTRACT(EPOCH FROM clock_timestamp() - min(created_at)) AS age FROM events WHERE relayed_at IS NULL`);
  return Number(result.rows[0]?.age ?? 0);
}
