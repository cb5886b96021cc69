import { and, asc, desc, eq, inArray, lt } from 'drizzle-orm';
import { jobIds } from '../../queues/index.js';
import type { AppContext } from '../shared/context.js';
import type { Db } from '../shared/db/index.js';
import { deliveries, deliveryAttempts, events, integrations } from '../shared/db/schema.js';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import { producersFor } from '../events/publisher.js';
import { reopenDelivery, type DeliveryStatus } from './repository.js';

export interface DeliveryAttemptView {
  attempt: number;
  requestedAt: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  responseBody: string | null;
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

export interface DeliveryQuery {
  status?: DeliveryStatus;
  limit: number;
  starting_after?: number;
}

async function ownIntegration(db: Db, companyId: number, integrationId: number): Promise<{ isActive: boolean }> {
  const [row] = await db
    .select({ isActive: integrations.isActive })
    .from(integrations)
    .where(and(eq(integrations.id, integrationId), eq(integrations.companyId, companyId)));
  if (!row) throw new NotFoundError(`No integration ${integrationId}`);
  return row;
}

async function withHistory(db: Db, rows: Array<Omit<DeliveryView, 'history'>>): Promise<DeliveryView[]> {
  if (rows.length === 0) return [];
  const attempts = await db
    .select()
    .from(deliveryAttempts)
    .where(inArray(deliveryAttempts.deliveryId, rows.map((r) => r.id)))
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

/** An integration's deliveries, newest first (ids grow with time), keyset-paginated by id. */
export async function listDeliveries(
  db: Db,
  companyId: number,
  integrationId: number,
  query: DeliveryQuery,
): Promise<{ deliveries: DeliveryView[]; hasMore: boolean }> {
  await ownIntegration(db, companyId, integrationId);
  if (query.starting_after !== undefined) {
    const [cursor] = await db
      .select({ id: deliveries.id })
      .from(deliveries)
      .where(and(eq(deliveries.id, query.starting_after), eq(deliveries.integrationId, integrationId)));
    if (!cursor) throw ValidationError.field('starting_after', 'is not the id of a delivery of this integration');
  }
  const rows = await db
    .select(deliveryColumns)
    .from(deliveries)
    .innerJoin(events, eq(events.id, deliveries.eventId))
    .where(
      and(
        eq(deliveries.integrationId, integrationId),
        query.status === undefined ? undefined : eq(deliveries.status, query.status),
        query.starting_after === undefined ? undefined : lt(deliveries.id, query.starting_after),
      ),
    )
    .orderBy(desc(deliveries.id))
    .limit(query.limit + 1);
  return { deliveries: await withHistory(db, rows.slice(0, query.limit)), hasMore: rows.length > query.limit };
}

async function findDelivery(db: Db, integrationId: number, deliveryId: number): Promise<DeliveryView> {
  const rows = await db
    .select(deliveryColumns)
    .from(deliveries)
    .innerJoin(events, eq(events.id, deliveries.eventId))
    .where(and(eq(deliveries.id, deliveryId), eq(deliveries.integrationId, integrationId)));
  const [view] = await withHistory(db, rows);
  if (!view) throw new NotFoundError(`No delivery ${deliveryId} for integration ${integrationId}`);
  return view;
}

/**
 * Resend (decisions, "a failed delivery can be resent"): one more attempt of the same event, with
 * the same webhook-id, numbered after the previous ones. A pending delivery is already on its way.
 */
export async function resendDelivery(ctx: AppContext, companyId: number, integrationId: number, deliveryId: number): Promise<DeliveryView> {
  const integration = await ownIntegration(ctx.db, companyId, integrationId);
  const current = await findDelivery(ctx.db, integrationId, deliveryId);
  if (!integration.isActive) throw new ConflictError('The integration is inactive; re-enable it (PATCH is_active true) before resending');
  const reopened = await reopenDelivery(ctx.db, deliveryId);
  if (!reopened) throw new ConflictError(`Delivery ${current.id} is already pending; it will be attempted again`);
  const attempt = reopened.attempts + 1;
  // If Redis is down this add fails; the sweep finds the reopened delivery overdue and enqueues it.
  await producersFor(ctx)
    .add('deliveries', jobIds.resend(deliveryId, attempt, Date.now()), { deliveryId, attempt })
    .catch((err: unknown) => ctx.logger.warn({ err, deliveryId }, 'resend: enqueue failed; the sweep will pick it up'));
  return findDelivery(ctx.db, integrationId, deliveryId);
}
