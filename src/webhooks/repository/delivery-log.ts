/** The delivery log as the panel reads it: deliveries with their attempts, and what simulate reports. */
import { and, desc, eq, gte, lt, sql } from 'drizzle-orm';
import { schema, type Executor } from '../../shared/db/index.js';
import type { DeliveryStatus } from '../../shared/enums/delivery-statuses.js';
import { deliveryTarget, EVENT_UNCLAIMED, SENDING_COLUMNS, type SendingRow } from './shared.js';
import type { DeliveryTarget } from '../../integrations/kinds/kind.js';

const { deliveries, deliveryAttempts, events, integrations } = schema;

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

/** An attempt as the history column carries it (JSON: the time in epoch milliseconds). */
interface AttemptJson {
  attempt: number;
  requestedAt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  responseBody: string | null;
  requestHeaders: Record<string, string> | null;
  requestBody: string | null;
}

/**
 * A delivery's attempts, oldest first, read in the statement that reads the delivery (over the
 * `UNIQUE (delivery_id, attempt)` index of migration 0002): a page of deliveries and their history
 * is one statement, not one for the deliveries and another, after it, for their attempts.
 */
const history = sql<AttemptJson[]>`(
  SELECT coalesce(json_agg(json_build_object(
           'attempt', a.attempt,
           'requestedAt', floor(extract(epoch FROM a.requested_at) * 1000),
           'statusCode', a.status_code,
           'error', a.error,
           'durationMs', a.duration_ms,
           'responseBody', a.response_body,
           'requestHeaders', a.request_headers,
           'requestBody', a.request_body) ORDER BY a.attempt), '[]'::json)
    FROM ${deliveryAttempts} a WHERE a.delivery_id = ${deliveries.id})`;

function withHistory(
  rows: Array<Omit<DeliveryView, 'history'> & { history: AttemptJson[] }>,
): DeliveryView[] {
  return rows.map((row) => ({
    ...row,
    history: row.history.map((a) => ({
      attempt: a.attempt,
      // Milliseconds, as pg reads a timestamptz (it drops the microseconds too).
      requestedAt: new Date(a.requestedAt),
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
  history,
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
    until?: Date | undefined;
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
        query.until === undefined ? undefined : lt(deliveries.createdAt, query.until),
        query.startingAfter === undefined ? undefined : lt(deliveries.id, query.startingAfter),
      ),
    )
    .orderBy(desc(deliveries.id))
    .limit(query.limit + 1);
  return withHistory(rows);
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
  const [view] = withHistory(rows);
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
): Promise<DeliveryTarget | undefined> {
  const result = await db.execute<SendingRow>(sql`
    SELECT ${SENDING_COLUMNS}
      FROM integrations i
     WHERE i.id = ${integrationId} AND i.company_id = ${companyId}`);
  const row = result.rows[0];
  return row ? deliveryTarget(row) : undefined;
}

/** Whether an event was relayed, and how many of its deliveries still wait for their first attempt. */
export async function dispatchProgress(
  db: Executor,
  eventId: string,
): Promise<{ relayed: boolean; waiting: number }> {
  const result = await db.execute<{ relayed: boolean; waiting: number }>(sql`
    SELECT NOT ${EVENT_UNCLAIMED} AS relayed,
           (SELECT count(*) FROM deliveries d
             WHERE d.event_id = e.id AND d.status = 'pending' AND d.attempts = 0)::int AS waiting
      FROM events e WHERE e.id = ${eventId}`);
  const row = result.rows[0];
  return { relayed: row?.relayed ?? false, waiting: row?.waiting ?? 0 };
}

/**
 * How much of what a company committed up to `until` has not yet made its first attempt at one
 * integration: its events not relayed yet, and that integration's deliveries never attempted.
 */
export async function firstAttemptsOutstanding(
  db: Executor,
  companyId: number,
  integrationId: number,
  until: Date,
): Promise<number> {
  const result = await db.execute<{ outstanding: number }>(sql`
    SELECT (SELECT count(*) FROM event_outbox o JOIN events e ON e.id = o.event_id
             WHERE o.company_id = ${companyId} AND e.created_at <= ${until.toISOString()})::int
         + (SELECT count(*) FROM deliveries d
             WHERE d.integration_id = ${integrationId} AND d.status = 'pending' AND d.attempts = 0)::int
           AS outstanding`);
  return result.rows[0]?.outstanding ?? 0;
}
