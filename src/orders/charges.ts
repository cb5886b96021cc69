/**
 * A charge asked of a gateway, in three steps, so that a PSP that answers slowly, or not at all,
 * never holds a lock and never makes a second payment (docs/mercadopago.md, "The pay step"):
 * 1. `reserveCharge`, in the caller's transaction (the pay step's, under the link's lock): the
 *    charge row with what the order will be, its order code the idempotency key;
 * 2. the gateway is called, outside any transaction;
 * 3. `recordCharge`: the pending order with the gateway's instructions and its `order.created`, in
 *    one transaction, once (a second answer for the same code finds the order made); then its
 *    abandonment at its deadline and its reconciliation with the PSP are scheduled.
 */
import { nameUuid } from '../shared/ids.js';
import { jobIds } from '../../queues/index.js';
import type { EventKind } from '../events/kinds.js';
import { recordEvent } from '../events/outbox.js';
import { publishAfterCommit } from '../events/publish.js';
import type { Charge, PayerAddress, PaymentGateway } from '../gateways/port.js';
import { findLinkById, type LinkRow } from '../payment-links/repository.js';
import type { AppContext } from '../shared/context.js';
import type { Executor } from '../shared/db/index.js';
import type { OrderCustomer } from '../shared/db/schema.js';
import type { PaymentMethod } from '../shared/enums/payment-methods.js';
import { lockCharge, markCharged, reserveChargeRow, type ChargeRow } from './charge-repository.js';
import { abandonAtOf, scheduleAbandonment } from './deadlines.js';
import { recordOrderEventOf } from './order-events.js';
import { leadEventData, orderEventData } from './payload.js';
import { findOrderByCode, insertOrder, rememberLead, type NewOrderRow, type OrderRow } from './repository.js';
import { findSubscription } from './subscription-repository.js';
import type { VisitTracking } from '../shared/tracking.js';

/** What a checkout charge becomes once the gateway answered: the pending order's columns. */
export interface CheckoutChargeRequest {
  kind: 'checkout';
  productId: number;
  offerId: number | null;
  planId: number | null;
  /** Reais with two decimals. */
  amount: string;
  paymentMethod: PaymentMethod;
  installments: number | null;
  customer: OrderCustomer;
  /** The boleto payer's address, where the gateway asked for it (a renewal boleto uses it again). */
  payerAddress: PayerAddress | null;
  /** ISO 8601: when the pay step started; the order's created_at. */
  createdAt: string;
  /** The checkout's language (its e-mails speak it) and the buyer's consent to a recovery message. */
  language?: 'pt-BR' | 'en';
  recoveryConsent?: boolean;
  /** What the visit carried, with the link's campaign where it carried none (absent before 0930). */
  tracking?: VisitTracking;
}

/** What a subscription's renewal charged through a PSP becomes: the pending renewal order. */
export interface RenewalChargeRequest {
  kind: 'renewal';
  subscriptionId: number;
  /** The period the renewal pays for, and which of its charges this is (0: the renewal, k: retry k). */
  period: number;
  attempt: number;
  productId: number;
  planId: number;
  amount: string;
  paymentMethod: PaymentMethod;
  customer: OrderCustomer | null;
  payerAddress: PayerAddress | null;
  createdAt: string;
}

type StoredRequest = CheckoutChargeRequest | RenewalChargeRequest;

/** The stored request of a charge (jsonb), as written by `reserveCharge`. */
export const checkoutRequestOf = (row: Pick<ChargeRow, 'request'>): CheckoutChargeRequest | undefined => {
  const request = row.request as Partial<StoredRequest>;
  return request.kind === 'checkout' ? (request as CheckoutChargeRequest) : undefined;
};

/** The stored request of a renewal charge. */
export const renewalRequestOf = (row: Pick<ChargeRow, 'request'>): RenewalChargeRequest | undefined => {
  const request = row.request as Partial<StoredRequest>;
  return request.kind === 'renewal' ? (request as RenewalChargeRequest) : undefined;
};

/** The amount a charge asks for, whichever kind it is. */
export const requestedAmount = (row: Pick<ChargeRow, 'request'>): string | undefined =>
  (checkoutRequestOf(row) ?? renewalRequestOf(row))?.amount;

/**
 * The order code of one charge of a renewal: the same for every run of its job, its retries from
 * BullMQ and the sweep, so the PSP's idempotency key is too (a name-based UUID, RFC 4122 version 5
 * layout over SHA-256).
 */
export const renewalOrderCode = (subscriptionId: number, period: number, attempt: number): string =>
  nameUuid(`renewal:${subscriptionId}:${period}:${attempt}`);

/**
 * The columns of a charge's instructions (all null for a method, or a gateway, that gives none), and
 * its fees: the platform's the PSP split off, and the PSP's own once it said.
 */
const instructionColumns = ({ pix, boleto, platformFee, gatewayFee }: Charge) => ({
  platformFee: platformFee ?? null,
  gatewayFee: gatewayFee ?? null,
  pixCopyPaste: pix?.copyPaste ?? null,
  pixExpiresAt: pix?.expiresAt ?? null,
  boletoDigitableLine: boleto?.digitableLine ?? null,
  boletoBarcode: boleto?.barcode ?? null,
  boletoDueDate: boleto?.dueDate ?? null,
  boletoUrl: boleto?.url ?? null,
});

/**
 * The pay step's writes, in the caller's transaction: the pending order with the gateway's charge
 * (its instructions, and the deadline they set) and its `order.created`, preceded by `lead.created`
 * when the company has not seen this buyer's e-mail in this mode before. Returns the order and the
 * event ids to publish after commit.
 */
export async function createPendingOrder(
  tx: Executor,
  values: Pick<NewOrderRow, 'code' | 'companyId' | 'livemode' | 'paymentLinkId' | 'productId' | 'amount'> & {
    offerId: number | null;
    planId: number | null;
    paymentMethod: PaymentMethod;
    installments: number | null;
    customer: OrderCustomer;
    createdAt: Date;
    charge: Charge;
    language?: 'pt-BR' | 'en' | null;
    recoveryConsent?: boolean;
    tracking?: VisitTracking | null;
  },
  link: LinkRow | null,
): Promise<{ order: OrderRow; eventIds: string[] }> {
  const { charge, ...columns } = values;
  const order = await insertOrder(tx, {
    ...columns,
    ...instructionColumns(charge),
    abandonAt: abandonAtOf(charge),
    status: 'pending',
    paidAt: null,
    subscriptionId: null,
  });
  const { productId, data } = await orderEventData(tx, order, link, null);
  const record = async (type: EventKind, eventData: Record<string, unknown>): Promise<string> =>
    (
      await recordEvent(tx, {
        companyId: order.companyId,
        type,
        livemode: order.livemode,
        test: false,
        productId,
        data: eventData,
      })
    ).id;
  const eventIds: string[] = [];
  const { email } = values.customer;
  if (email !== null && (await rememberLead(tx, { ...values, email })))
    eventIds.push(await record('lead.created', leadEventData(data, values.customer)));
  eventIds.push(await record('order.created', data));
  return { order, eventIds };
}

export interface Reservation {
  orderCode: string;
  createdAt: Date;
  /** The order already made for this code (a form posted twice), if any. */
  order: OrderRow | undefined;
}

/**
 * Step 1, in the caller's transaction. An order already made for `orderCode` (the same form posted
 * again after it went through) is answered as it is; a charge still starting for it with the same
 * method and amount is reused (a retry after the gateway did not answer: the same idempotency
 * key). Anything else for that code is not this request's, and a new code is used.
 */
export async function reserveCharge(
  tx: Executor,
  gateway: Pick<PaymentGateway, 'provider' | 'accountId'>,
  values: {
    orderCode: string;
    fallbackOrderCode: string;
    companyId: number;
    paymentLinkId: string | null;
    request: Omit<CheckoutChargeRequest, 'kind' | 'createdAt'>;
  },
  now: Date,
): Promise<Reservation> {
  const existing = await findOrderByCode(tx, values.orderCode);
  if (existing) {
    const same = existing.companyId === values.companyId && existing.paymentLinkId === values.paymentLinkId;
    // A failed order's form may be posted again from the browser's history: that is a new attempt.
    if (same && existing.status !== 'failed')
      return { orderCode: existing.code, createdAt: existing.createdAt, order: existing };
    return reserveCharge(tx, gateway, { ...values, orderCode: values.fallbackOrderCode }, now);
  }
  const request: CheckoutChargeRequest = {
    kind: 'checkout',
    ...values.request,
    createdAt: now.toISOString(),
  };
  const { row, created } = await reserveChargeRow(tx, {
    orderCode: values.orderCode,
    companyId: values.companyId,
    provider: gateway.provider,
    accountId: gateway.accountId,
    paymentLinkId: values.paymentLinkId,
    subscriptionId: null,
    request: { ...request },
  });
  if (created) return { orderCode: row.orderCode, createdAt: now, order: undefined };
  const stored = checkoutRequestOf(row);
  const reusable =
    row.state === 'starting' &&
    stored !== undefined &&
    row.companyId === values.companyId &&
    row.paymentLinkId === values.paymentLinkId &&
    row.provider === gateway.provider &&
    row.accountId === gateway.accountId &&
    stored.paymentMethod === request.paymentMethod &&
    stored.amount === request.amount;
  if (reusable) return { orderCode: row.orderCode, createdAt: new Date(stored.createdAt), order: undefined };
  if (values.orderCode === values.fallbackOrderCode) throw new Error(`charge ${values.orderCode} is taken`);
  return reserveCharge(tx, gateway, { ...values, orderCode: values.fallbackOrderCode }, now);
}

/** When a pending charge of a gateway that reads payments back is first reconciled. */
export function firstReconciliation(
  ctx: Pick<AppContext, 'config'>,
  provider: ChargeRow['provider'],
  from: Date,
): Date | null {
  const mp = ctx.config.mercadoPago;
  if (provider !== 'mercadopago' || !mp) return null;
  return new Date(from.getTime() + mp.reconcileAfterSeconds * 1000);
}

/** Schedules the reconciliation read of a charge. Never throws: the sweep reads overdue ones. */
export function scheduleReconciliation(
  ctx: Pick<AppContext, 'producers' | 'logger'>,
  orderCode: string,
  at: Date,
  read: number,
): void {
  ctx.producers
    .add(
      'gatewayReconciliation',
      jobIds.gatewayReconciliation(orderCode, read),
      { orderCode },
      { delay: Math.max(0, at.getTime() - Date.now()) },
    )
    .catch((err: unknown) => {
      ctx.logger.warn({ err, orderCode }, 'could not schedule a reconciliation; the sweep will run it');
    });
}

/**
 * Step 3: the gateway answered `charge` for the reserved code. In one transaction, under the charge's
 * lock: the pending order with the charge's instructions and its events (`lead.created`,
 * `order.created`), and the charge marked made with the PSP's payment id. An order already made for
 * the code (a racing retry) is returned with `created` false. Its reconciliation is scheduled.
 */
export async function recordCharge(
  ctx: AppContext,
  orderCode: string,
  charge: Charge,
): Promise<{ order: OrderRow; created: boolean }> {
  const done = await ctx.db.transaction(async (tx) => {
    const row = await lockCharge(tx, orderCode);
    if (!row) throw new Error(`no charge ${orderCode} to record`);
    const existing = await findOrderByCode(tx, orderCode);
    if (existing) return { order: existing, eventIds: [], reconcileAt: null };
    const renewal = renewalRequestOf(row);
    const made = renewal
      ? await createPendingRenewalOrder(tx, orderCode, row.companyId, renewal, charge)
      : await createCheckoutOrder(tx, row, charge);
    // Whatever the answer: an approved card whose confirmation never committed (a crash between the
    // two) is found paid by this read.
    const reconcileAt = firstReconciliation(ctx, row.provider, new Date());
    await markCharged(tx, orderCode, {
      reference: charge.reference,
      reconcileAt,
      declineReason: charge.status === 'declined' ? (charge.declineReason ?? 'other') : null,
    });
    return { ...made, reconcileAt };
  });
  publishAfterCommit(ctx, done.eventIds);
  if (done.reconcileAt) scheduleReconciliation(ctx, orderCode, done.reconcileAt, 1);
  const created = done.eventIds.length > 0;
  // A pending order is given up at its deadline (a Pix's expiry, a boleto's clearing) if still unpaid.
  if (created && charge.status === 'pending') scheduleAbandonment(ctx, done.order);
  return { order: done.order, created };
}

/** The pending order of a checkout charge, with its `lead.created` and `order.created`. */
async function createCheckoutOrder(
  tx: Executor,
  row: ChargeRow,
  charge: Charge,
): Promise<{ order: OrderRow; eventIds: string[] }> {
  const request = checkoutRequestOf(row);
  if (!request) throw new Error(`charge ${row.orderCode} is neither a checkout nor a renewal charge`);
  const link =
    row.paymentLinkId === null ? null : ((await findLinkById(tx, row.paymentLinkId))?.link ?? null);
  return createPendingOrder(
    tx,
    {
      code: row.orderCode,
      companyId: row.companyId,
      livemode: true,
      paymentLinkId: row.paymentLinkId,
      productId: request.productId,
      offerId: request.offerId,
      planId: request.planId,
      amount: request.amount,
      paymentMethod: request.paymentMethod,
      installments: request.installments,
      customer: request.customer,
      createdAt: new Date(request.createdAt),
      charge,
      language: request.language ?? null,
      recoveryConsent: request.recoveryConsent ?? false,
      tracking: request.tracking ?? null,
    },
    link,
  );
}

/**
 * The pending order of a renewal charged through a PSP, with its instructions, and its
 * `order.created`, which carries them to the company (it tells its buyer how to pay).
 */
async function createPendingRenewalOrder(
  tx: Executor,
  orderCode: string,
  companyId: number,
  request: RenewalChargeRequest,
  charge: Charge,
): Promise<{ order: OrderRow; eventIds: string[] }> {
  const order = await insertOrder(tx, {
    code: orderCode,
    companyId,
    livemode: true,
    paymentLinkId: null,
    subscriptionId: request.subscriptionId,
    productId: request.productId,
    offerId: null,
    planId: request.planId,
    status: 'pending',
    amount: request.amount,
    paymentMethod: request.paymentMethod,
    paidAt: null,
    customer: request.customer,
    createdAt: new Date(request.createdAt),
    ...instructionColumns(charge),
    abandonAt: abandonAtOf(charge),
  });
  const subscription = (await findSubscription(tx, request.subscriptionId)) ?? null;
  const event = await recordOrderEventOf(tx, 'order.created', order, null, subscription);
  return { order, eventIds: [event.id] };
}
