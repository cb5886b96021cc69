/**
 * Orders and subscriptions in the panel (decisions, "Order lifecycle"): lists with a cursor, reads,
 * refund, cancel, and renew-now (the dev gateway's clock). Every read and change is scoped to the
 * caller's company: another company's order or subscription does not exist here.
 */
import type { AppContext } from '../shared/context.js';
import type { Db } from '../shared/db/index.js';
import type { OrderStatus } from '../shared/enums/order-statuses.js';
import type { SubscriptionStatus } from '../shared/enums/subscription-statuses.js';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import { renewSubscription } from './renewals.js';
import { findPanelOrder, listPanelOrders, orderExists, type PanelOrderRow } from './repository.js';
import { refundOrder } from './service.js';
import {
  cancelSubscriptionRow,
  findPanelSubscription,
  listPanelSubscriptions,
  nextRenewalPeriod,
  type PanelSubscriptionRow,
} from './subscription-repository.js';

export type { PanelOrderRow, PanelSubscriptionRow };

export interface Page<T> {
  items: T[];
  hasMore: boolean;
}

/**
 * One page of a keyset list, newest first: a cursor that is not an item of the company is a 400
 * (whatever the filters), and one row past `limit` tells whether more follow.
 */
async function cursorPage<T, C>(
  cursor: { value: C | undefined; isOwn: (value: C) => Promise<boolean>; names: string },
  limit: number,
  rows: () => Promise<T[]>,
): Promise<Page<T>> {
  if (cursor.value !== undefined && !(await cursor.isOwn(cursor.value)))
    throw ValidationError.field('starting_after', `is not the ${cursor.names} of this company`);
  const found = await rows();
  return { items: found.slice(0, limit), hasMore: found.length > limit };
}

export interface OrderListParams {
  status?: OrderStatus | undefined;
  link_id?: string | undefined;
  livemode?: boolean | undefined;
  starting_after?: string | undefined;
  limit: number;
}

export async function listOrders(
  db: Db,
  companyId: number,
  params: OrderListParams,
): Promise<Page<PanelOrderRow>> {
  const cursor = params.starting_after;
  return cursorPage(
    { value: cursor, isOwn: (code) => orderExists(db, companyId, code), names: 'code of an order' },
    params.limit,
    () =>
      listPanelOrders(db, {
        companyId,
        status: params.status,
        linkId: params.link_id,
        livemode: params.livemode,
        startingAfter: cursor,
        limit: params.limit,
      }),
  );
}

export async function getOrder(db: Db, companyId: number, code: string): Promise<PanelOrderRow> {
  const found = await findPanelOrder(db, companyId, code);
  if (!found) throw new NotFoundError(`No order ${code}`);
  return found;
}

/** paid → refunded (`order.refunded`); an order already refunded is returned as it is. */
export async function refundFromPanel(
  ctx: AppContext,
  companyId: number,
  code: string,
): Promise<PanelOrderRow> {
  await refundOrder(ctx, { code, companyId });
  return getOrder(ctx.db, companyId, code);
}

export interface SubscriptionListParams {
  status?: SubscriptionStatus | undefined;
  livemode?: boolean | undefined;
  starting_after?: number | undefined;
  limit: number;
}

export async function listSubscriptions(
  db: Db,
  companyId: number,
  params: SubscriptionListParams,
): Promise<Page<PanelSubscriptionRow>> {
  const cursor = params.starting_after;
  return cursorPage(
    {
      value: cursor,
      isOwn: async (id) => (await findPanelSubscription(db, companyId, id)) !== undefined,
      names: 'id of a subscription',
    },
    params.limit,
    () =>
      listPanelSubscriptions(db, {
        companyId,
        status: params.status,
        livemode: params.livemode,
        startingAfter: cursor,
        limit: params.limit,
      }),
  );
}

export async function getSubscription(db: Db, companyId: number, id: number): Promise<PanelSubscriptionRow> {
  const found = await findPanelSubscription(db, companyId, id);
  if (!found) throw new NotFoundError(`No subscription ${id}`);
  return found;
}

/**
 * active → canceled; a canceled subscription is returned as it is. Renewals stop: the renewal job and
 * the sweep only renew active subscriptions.
 */
export async function cancelSubscription(
  db: Db,
  companyId: number,
  id: number,
): Promise<PanelSubscriptionRow> {
  await cancelSubscriptionRow(db, companyId, id);
  return getSubscription(db, companyId, id);
}

/**
 * Renew now (the dev gateway's clock): the next renewal at once, through the function the delayed
 * renewal job runs, as if its period had ended; its job, when due, then finds the period renewed.
 */
export async function renewNow(
  ctx: AppContext,
  companyId: number,
  id: number,
): Promise<PanelSubscriptionRow> {
  const { subscription } = await getSubscription(ctx.db, companyId, id);
  if (subscription.status !== 'active') throw new ConflictError(`Subscription ${id} is canceled`);
  const period = await nextRenewalPeriod(ctx.db, id);
  const due = new Date(Math.max(Date.now(), subscription.currentPeriodEnd.getTime()));
  const renewed = await renewSubscription(ctx, id, period, due);
  const current = await getSubscription(ctx.db, companyId, id);
  // Canceled meanwhile; a renewal racing this one (its job, another request) is success all the same.
  if (!renewed && current.subscription.status !== 'active')
    throw new ConflictError(`Subscription ${id} is canceled`);
  return current;
}
