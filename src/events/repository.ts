import { and, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { schema, type Executor } from '../shared/db/index.js';

const { events, integrations } = schema;

/** Which events a key sees: one company, one mode. */
export interface EventScope {
  companyId: number;
  livemode: boolean;
}

/**
 * What `GET /v1/events` narrows by, already checked (kinds known, the integration the company's).
 * Without `livemode` (the operator's CLI), both modes.
 */
export interface EventListQuery extends Omit<EventScope, 'livemode'> {
  livemode: boolean | undefined;
  types?: readonly string[];
  createdGte?: Date;
  createdLte?: Date;
  /** Only events with a delivery to this integration (to any, without it) in one of `deliveryStatuses` (any, without them). */
  integrationId?: number;
  deliveryStatuses?: readonly string[];
  startingAfter?: string;
  limit: number;
}

/** An event as the webhooks carried it: the stored envelope is the body (`webhookBody`). */
export type StoredEnvelope = Record<string, unknown>;

/**
 * One page of events, newest first, plus one row to tell whether more follow: a range scan of
 * `events_company_mode_created_idx` (migration 0802) that stops after `limit + 1` rows. The cursor
 * is resolved inside the query from the cursor's own row (scoped to the company and mode), so an
 * unknown or foreign cursor matches nothing and `created_at` keeps its full precision.
 */
export async function listEvents(executor: Executor, query: EventListQuery): Promise<StoredEnvelope[]> {
  const conditions: SQL[] = [eq(events.companyId, query.companyId)];
  if (query.livemode !== undefined) conditions.push(eq(events.livemode, query.livemode));
  if (query.types && query.types.length > 0) conditions.push(inArray(events.type, [...query.types]));
  if (query.createdGte) conditions.push(sql`${events.createdAt} >= ${query.createdGte}`);
  if (query.createdLte) conditions.push(sql`${events.createdAt} <= ${query.createdLte}`);
  if (query.integrationId !== undefined || query.deliveryStatuses !== undefined) {
    const integration =
      query.integrationId !== undefined ? sql` AND d.integration_id = ${query.integrationId}` : sql``;
    const statuses =
      query.deliveryStatuses !== undefined
        ? sql` AND d.status = ANY(${sql.param([...query.deliveryStatuses])}::text[])`
        : sql``;
    conditions.push(sql`EXISTS (
      SELECT 1 FROM deliveries d WHERE d.event_id = ${events.id}${integration}${statuses})`);
  }
  if (query.startingAfter !== undefined) {
    conditions.push(
      sql`(${events.createdAt}, ${events.id}) < (
        SELECT c.created_at, c.id FROM events c
         WHERE c.id = ${query.startingAfter} AND c.company_id = ${query.companyId}${
           query.livemode === undefined ? sql`` : sql` AND c.livemode = ${query.livemode}`
         })`,
    );
  }
  const rows = await executor
    .select({ payload: events.payload })
    .from(events)
    .where(and(...conditions))
    .orderBy(desc(events.createdAt), desc(events.id))
    .limit(query.limit + 1);
  return rows.map((r) => r.payload);
}

/** One event of this company and mode; undefined for another company's, another mode's, or none. */
export async function findEvent(
  executor: Executor,
  scope: EventScope,
  eventId: string,
): Promise<StoredEnvelope | undefined> {
  const [row] = await executor
    .select({ payload: events.payload })
    .from(events)
    .where(
      and(eq(events.id, eventId), eq(events.companyId, scope.companyId), eq(events.livemode, scope.livemode)),
    );
  return row?.payload;
}

export async function eventExists(executor: Executor, scope: EventScope, eventId: string): Promise<boolean> {
  const [row] = await executor
    .select({ id: events.id })
    .from(events)
    .where(
      and(eq(events.id, eventId), eq(events.companyId, scope.companyId), eq(events.livemode, scope.livemode)),
    );
  return row !== undefined;
}

/** Whether the company has this integration (a delivery filter naming another's is a 400). */
export async function companyHasIntegration(
  executor: Executor,
  companyId: number,
  integrationId: number,
): Promise<boolean> {
  const [row] = await executor
    .select({ id: integrations.id })
    .from(integrations)
    .where(and(eq(integrations.id, integrationId), eq(integrations.companyId, companyId)));
  return row !== undefined;
}

/** The ids of an order's live conversion events (the first of each kind), for the browser pixel. */
export interface OrderConversionIds {
  created: string | null;
  paid: string | null;
}

/**
 * The live `order.created` and `order.paid` event ids of one order of one company, through
 * `events_order_conversions_idx` (migration 0932, whose predicate this repeats): what the order page
 * gives the browser pixel, so it reports each sale with the Conversions API's `event_id`.
 */
export async function orderConversionIds(
  executor: Executor,
  companyId: number,
  orderCode: string,
): Promise<OrderConversionIds> {
  const result = await executor.execute<{ id: string; type: string }>(sql`
    SELECT id, type FROM events
     WHERE payload #>> '{data,order,code}' = ${orderCode}
       AND livemode AND NOT test AND type IN ('order.created', 'order.paid')
       AND company_id = ${companyId}
     ORDER BY seq`);
  const first = (type: string): string | null => result.rows.find((r) => r.type === type)?.id ?? null;
  return { created: first('order.created'), paid: first('order.paid') };
}
