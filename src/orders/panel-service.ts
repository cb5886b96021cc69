/**
 * Orders and subscriptions in the panel (docs/api.md, "Orders in the panel"): lists with a cursor, reads,
 * refund, cancel, and renew-now (the dev gateway's clock). Every read and change is scoped to the
 * caller's company: another company's order or subscription does not exist here.
 */
import type { AppContext } from '../shared/context.js';
import type { Db } from '../shared/db/index.js';
import type { OrderStatus } from '../shared/enums/order-statuses.js';
import type { SubscriptionStatus } from '../shared/enums/subscription-statuses.js';
import { BadGatewayError, NotFoundError } from '../shared/errors.js';
import { GatewayUnavailableError, RefundRefusedError } from '../gateways/port.js';
import { refundAtGateway, refundRefused } from './refunds.js';
import { cursorPage, type Page } from '../shared/pagination.js';
import { runNextChargeNow, type ChargeOutcome } from './renewals.js';
import { requestCancel } from './subscription-periods.js';
import {
  findPanelOrder,
  listPanelOrders,
  orderExists,
  type PanelOrderRow,
  type RefundRequest,
} from './repository.js';
import { refundOrder } from './service.js';
import {
  findPanelSubscription,
  listPanelSubscriptions,
  type PanelSubscriptionRow,
} from './subscription-repository.js';

export type { PanelOrderRow, PanelSubscriptionRow };

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
    {
      value: cursor,
      isOwn: (code) => orderExists(db, companyId, code),
      names: 'code of an order of this company',
    },
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

/**
 * paid → refunded (`order.refunded`); an order already refunded is returned as it is. An order paid
 * through a PSP that refunds (Mercado Pago) is refunded there first, with an idempotency key fixed
 * per order (one full refund each), and changes here only once the PSP accepted: a refusal is a 409
 * with the PSP's reason, no answer a 502, the order unchanged either way (never queued, unlike a
 * buyer's refund: the seller is there to ask again, and the panel's answer is a refunded order or an
 * error; see `refunds.ts`).
 */
export async function refundFromPanel(
  ctx: AppContext,
  companyId: number,
  code: string,
  request: RefundRequest = { by: 'seller', reason: null },
): Promise<PanelOrderRow> {
  const current = await getOrder(ctx.db, companyId, code);
  if (current.order.status === 'paid')
    await refundAtGateway(ctx, code).catch((err: unknown) => {
      if (err instanceof RefundRefusedError) throw refundRefused(err);
      if (err instanceof GatewayUnavailableError)
        throw new BadGatewayError(
          `The payment gateway could not be reached to refund order ${code}; it is unchanged, try again`,
        );
      throw err;
    });
  await refundOrder(ctx, { code, companyId }, request);
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
      names: 'id of a subscription of this company',
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
 * Cancel, at once or at the period end (see `requestCancel`); a canceled subscription is returned as
 * it is. Renewals stop: a charge runs only for a subscription that is not canceled.
 */
export async function cancelSubscription(
  ctx: AppContext,
  companyId: number,
  id: number,
  atPeriodEnd: boolean,
): Promise<PanelSubscriptionRow> {
  await requestCancel(ctx, companyId, id, atPeriodEnd);
  return getSubscription(ctx.db, companyId, id);
}

/**
 * Renew now (the dev gateway's clock): the charge the subscription waits for (its renewal, or the next
 * retry of a failed one) at once, through the function its delayed job runs, as if it were due, with
 * the gateway answering `outcome`. A subscription set to cancel at the period end reaches it and is
 * canceled. Its job, when due, then finds the charge made.
 */
export async function renewNow(
  ctx: AppContext,
  companyId: number,
  id: number,
  outcome: ChargeOutcome,
): Promise<PanelSubscriptionRow> {
  await getSubscription(ctx.db, companyId, id);
  await runNextChargeNow(ctx, id, outcome, { publish: true });
  return getSubscription(ctx.db, companyId, id);
}
