import type { AppContext } from '../shared/context.js';
import type { Db } from '../shared/db/index.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import type { DeliveryStatus } from '../shared/enums/delivery-statuses.js';
import { cursorPage, type Page } from '../shared/pagination.js';
import { wakeAndEnqueue } from './lanes.js';
import { reopenDelivery } from './repository/attempts.js';
import { attemptCountsSince, companyAttemptCountsSince, type AttemptCounts } from './repository/health.js';
import {
  deliveryExists,
  findDelivery,
  findOwnIntegration,
  listDeliveries as listRows,
  type DeliveryView,
} from './repository/delivery-log.js';

export type { DeliveryView };

export interface DeliveryQuery {
  status?: DeliveryStatus | undefined;
  event_type?: string | undefined;
  /** ISO date-time. */
  since?: string | undefined;
  /** ISO date-time: only deliveries created before it. */
  until?: string | undefined;
  limit: number;
  starting_after?: number | undefined;
}

async function ownIntegration(
  db: Db,
  companyId: number,
  integrationId: number,
): Promise<{ isActive: boolean }> {
  const row = await findOwnIntegration(db, companyId, integrationId);
  if (!row) throw new NotFoundError(`No integration ${integrationId}`);
  return row;
}

async function requireDelivery(db: Db, integrationId: number, deliveryId: number): Promise<DeliveryView> {
  const view = await findDelivery(db, integrationId, deliveryId);
  if (!view) throw new NotFoundError(`No delivery ${deliveryId} for integration ${integrationId}`);
  return view;
}

/**
 * An integration's deliveries, newest first, keyset-paginated by id. The list is sent beside the
 * ownership check (a dashboard page is one round of statements, docs/dashboard.md): the list of
 * another company's integration is read, then dropped for the 404.
 */
export async function listDeliveries(
  db: Db,
  companyId: number,
  integrationId: number,
  query: DeliveryQuery,
): Promise<Page<DeliveryView>> {
  const cursor = query.starting_after;
  const listed = cursorPage(
    {
      value: cursor,
      isOwn: (id) => deliveryExists(db, integrationId, id),
      names: 'id of a delivery of this integration',
    },
    query.limit,
    () =>
      listRows(db, integrationId, {
        status: query.status,
        eventType: query.event_type,
        since: query.since === undefined ? undefined : new Date(query.since),
        until: query.until === undefined ? undefined : new Date(query.until),
        limit: query.limit,
        startingAfter: cursor,
      }),
  );
  // Handled here too, so a list refused while the ownership check fails is not an unhandled
  // rejection; the 404 of another company's integration comes first, whatever the cursor.
  listed.catch(() => undefined);
  await ownIntegration(db, companyId, integrationId);
  return listed;
}

/** One delivery of one of the company's integrations (another's, or unknown: 404). */
export async function getDelivery(
  db: Db,
  companyId: number,
  integrationId: number,
  deliveryId: number,
): Promise<DeliveryView> {
  // Side by side, as the list: a delivery of another company's integration is read, then dropped.
  const [, view] = await Promise.all([
    ownIntegration(db, companyId, integrationId),
    findDelivery(db, integrationId, deliveryId),
  ]);
  if (!view) throw new NotFoundError(`No delivery ${deliveryId} for integration ${integrationId}`);
  return view;
}

/**
 * Resend: one more attempt of the same event, with the same webhook-id, numbered after the previous
 * ones, made by the integration's lane. A pending delivery is already on its way.
 */
export async function resendDelivery(
  ctx: AppContext,
  companyId: number,
  integrationId: number,
  deliveryId: number,
): Promise<DeliveryView> {
  const integration = await ownIntegration(ctx.db, companyId, integrationId);
  const current = await requireDelivery(ctx.db, integrationId, deliveryId);
  if (!integration.isActive) {
    throw new ConflictError(
      'The integration is inactive; re-enable it (PATCH is_active true) before resending',
    );
  }
  const reopened = await reopenDelivery(ctx.db, deliveryId);
  if (!reopened)
    throw new ConflictError(`Delivery ${current.id} is already pending; it will be attempted again`);
  // If Redis is down the lane's job is added by the sweep: the reopened delivery is due in PostgreSQL.
  await wakeAndEnqueue(ctx, [reopened.integrationId]);
  return requireDelivery(ctx.db, integrationId, deliveryId);
}

export type { AttemptCounts };

/** Each integration's attempts of the last 24 hours and how many succeeded (absent: none). */
export async function recentAttemptCounts(
  db: Db,
  integrationIds: number[],
  now = new Date(),
): Promise<Map<number, AttemptCounts>> {
  const rows = await attemptCountsSince(db, integrationIds, new Date(now.getTime() - 86_400_000));
  return new Map(rows.map((r) => [r.integrationId, r]));
}

/** `recentAttemptCounts` of every integration of the company (needs no list of them first). */
export async function companyRecentAttemptCounts(
  db: Db,
  companyId: number,
  now = new Date(),
): Promise<Map<number, AttemptCounts>> {
  const rows = await companyAttemptCountsSince(db, companyId, new Date(now.getTime() - 86_400_000));
  return new Map(rows.map((r) => [r.integrationId, r]));
}
