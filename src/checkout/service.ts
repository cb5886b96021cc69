import { findCoupon, findItemByCode, findItemById, type CatalogItem } from '../catalog/repository.js';
import { findCompany } from '../companies/repository.js';
import { publishAfterCommit } from '../events/publish.js';
import { gatewayFor } from '../gateways/index.js';
import { scheduleAbandonment } from '../orders/abandonment.js';
import { ChargeRefusedError } from '../orders/gateway.js';
import { confirmPayment, createPendingOrder } from '../orders/service.js';
import { findOrderByCode, type OrderRow } from '../orders/repository.js';
import { CHECKOUT_OPTIONS } from '../payment-links/schemas.js';
import { customerFields } from '../payment-links/customer.js';
import { isPayable, isSimulatable, unpayableReason } from '../payment-links/payable.js';
import {
  findLinkById,
  hasPaymentInFlight,
  lockLink,
  type LinkOrder,
  type LinkRow,
} from '../payment-links/repository.js';
import { getPaymentLink } from '../payment-links/service.js';
import { simulateOutcome, type Simulation } from '../simulate/service.js';
import type { Outcome } from '../simulate/outcomes.js';
import type { AppContext } from '../shared/context.js';
import type { OrderCustomer } from '../shared/db/schema.js';
import { PAYMENT_METHODS, type PaymentMethod } from '../shared/enums/payment-methods.js';
import { LINK_ID_PATTERN, newUuid, UUID_PATTERN } from '../shared/ids.js';
import { v } from '../shared/validation/typed.js';
import type { NoticeKey } from './messages.js';
import { conflict, invalidField, notFound, PayFormError } from './page-errors.js';
import { priceWithCoupon, type Price } from './pricing.js';

const PENDING_HOLD_MINUTES = 15;

export interface LinkView {
  link: LinkRow;
  order: LinkOrder | null;
  item: CatalogItem;
  price: Price;
  /** Why the link cannot be paid (or simulated) now; null when it can. */
  notice: NoticeKey | null;
}

export interface CheckoutView {
  item: CatalogItem;
  /** Null for a checkout opened without `plink`. */
  link: LinkRow | null;
  price: Price;
  notice: NoticeKey | null;
  prefill: OrderCustomer;
  /** The methods the checkout offers (the link's, or all), and the most card instalments. */
  methods: PaymentMethod[];
  maxInstallments: number;
}

/** What a checkout without a link offers: the defaults of a link's options. */
const LINKLESS_OPTIONS = {
  methods: [...PAYMENT_METHODS],
  maxInstallments: CHECKOUT_OPTIONS.maxInstallments.default,
  pixExpiresInSeconds: CHECKOUT_OPTIONS.pixExpiresInSeconds.default,
  boletoDueDays: CHECKOUT_OPTIONS.boletoDueDays.default,
};

const EMPTY_CUSTOMER: OrderCustomer = { name: null, email: null, phone: null, document: null };

const UNPAYABLE: Record<'canceled' | 'expired' | 'paid', NoticeKey> = {
  canceled: 'link_canceled',
  expired: 'link_expired',
  paid: 'link_paid',
};

/** Why the checkout cannot take a payment for this link now; null when it can. */
function checkoutNotice(link: LinkRow, item: CatalogItem, now: Date): NoticeKey | null {
  const reason = unpayableReason(link, now);
  if (reason) return UNPAYABLE[reason];
  if (!item.onSale) return `${item.kind}_unavailable`;
  return null;
}

/** The simulate rule, so the page offers exactly what the API accepts. */
function simulationNotice(link: LinkRow, now: Date): NoticeKey | null {
  if (isSimulatable(link, now)) return null;
  const status = link.status === 'active' ? 'expired' : link.status;
  return `test_link_${status}`;
}

/** The offer or plan a link sells. */
const itemOfLink = (ctx: AppContext, link: LinkRow): Promise<CatalogItem | undefined> =>
  findItemById(ctx.db, link.type, link.offerId ?? link.planId ?? 0);

/** A link by id with its current state (the read path applies a late expiry), item and price. */
async function loadLink(ctx: AppContext, linkId: string, livemode: boolean, now: Date): Promise<LinkView> {
  const found = LINK_ID_PATTERN.test(linkId) ? await findLinkById(ctx.db, linkId) : undefined;
  // A link of the other mode does not exist here: test links never reach the real checkout.
  if (!found || found.link.livemode !== livemode) throw notFound('link_not_found');
  const { link, order } = await getPaymentLink(
    ctx.db,
    { companyId: found.link.companyId, livemode, linkId },
    now,
  );
  const item = await itemOfLink(ctx, link);
  if (!item) throw notFound('link_not_found');
  const coupon =
    link.couponCode === null ? undefined : await findCoupon(ctx.db, link.companyId, link.couponCode);
  return {
    link,
    order,
    item,
    price: priceWithCoupon(item.price, coupon),
    notice: livemode ? checkoutNotice(link, item, now) : simulationNotice(link, now),
  };
}

/** The simulation page of a test link (`{checkout_url}/teste/<id>`); a live link id is not found. */
export function loadTestLink(ctx: AppContext, linkId: string, now = new Date()): Promise<LinkView> {
  return loadLink(ctx, linkId, false, now);
}

/**
 * A button of the simulation page: exactly what `POST /v1/payment-links/{id}/simulate` does, for
 * the link's own company in test mode (the page is reachable only through the link's address).
 */
export async function simulateFromPage(
  ctx: AppContext,
  linkId: string,
  outcome: Outcome,
): Promise<Simulation> {
  // The page's own rule first, so a link that cannot be simulated gets the page's words for why.
  const { link, notice } = await loadTestLink(ctx, linkId);
  if (notice) throw conflict(notice);
  // No API key is involved; simulateOutcome only reads the company and the mode.
  return simulateOutcome(ctx, { companyId: link.companyId, keyId: 0, livemode: false }, linkId, outcome);
}

/**
 * The checkout of `{checkout_url}/<code>?plink=<id>`: the link's data fetched by its id (buyer data
 * never travels in the address). Without `plink`, the active offer or plan of that code, no prefill.
 */
export async function loadCheckout(
  ctx: AppContext,
  code: string,
  plink: string | undefined,
  now = new Date(),
): Promise<CheckoutView> {
  if (plink === undefined) {
    // Codes are unique across offers and plans, so the code alone names the item.
    const item =
      (await findItemByCode(ctx.db, 'offer', code)) ?? (await findItemByCode(ctx.db, 'plan', code));
    if (!item || !item.onSale) throw notFound('offer_not_found');
    return {
      item,
      link: null,
      price: priceWithCoupon(item.price, undefined),
      notice: null,
      prefill: EMPTY_CUSTOMER,
      methods: LINKLESS_OPTIONS.methods,
      maxInstallments: LINKLESS_OPTIONS.maxInstallments,
    };
  }
  const view = await loadLink(ctx, plink, true, now);
  if ((view.link.offerCode ?? view.link.planCode) !== code) {
    throw invalidField('plink', 'link_of_other_item');
  }
  const { link } = view;
  return {
    item: view.item,
    link,
    price: view.price,
    notice: view.notice,
    prefill: {
      name: link.customerName,
      email: link.customerEmail,
      phone: link.customerPhone === null ? null : `+${link.customerPhone.replace(/^\+/, '')}`,
      document: link.customerDocument,
    },
    methods: link.paymentMethods,
    maxInstallments: link.maxInstallments,
  };
}

const blankToUndefined = (value: unknown): unknown =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

/** The pay form: who pays and how. Name and email are required; phone and document are optional. */
const payForm = v.object({
  plink: v.string().max(64),
  name: v.required(customerFields.name()),
  email: v.required(customerFields.email()),
  phone: customerFields.phone(),
  document: customerFields.document(),
  payment_method: v.defaulted(v.enum(PAYMENT_METHODS), 'credit_card'),
  installments: v.integer().min(1).max(CHECKOUT_OPTIONS.maxInstallments.max),
});

export type PayFormValues = Record<string, string>;

export interface Payment {
  order: OrderRow;
  view: CheckoutView;
  /** True when the dev gateway completed the payment during the request. */
  paid: boolean;
}

interface PayForm {
  customer: OrderCustomer;
  paymentMethod: PaymentMethod;
  installments: number | undefined;
}

function parsePayForm(values: PayFormValues): PayForm {
  const cleaned = Object.fromEntries(
    Object.entries(values).map(([k, value]) => [k, blankToUndefined(value)]),
  );
  const { value, error } = payForm.validate(cleaned, { abortEarly: false });
  if (error) throw new PayFormError(error);
  return {
    customer: {
      name: value.name,
      email: value.email,
      phone: value.phone ?? null,
      document: value.document ?? null,
    },
    paymentMethod: value.payment_method,
    installments: value.installments,
  };
}

/**
 * How the buyer pays, as the checkout offers it: one of the link's methods (a form that sends another
 * did not come from its page: a 400 page), and for a card 1 to the link's most instalments.
 */
function chosenPayment(
  view: CheckoutView,
  form: PayForm,
): { method: PaymentMethod; installments: number | null } {
  if (!view.methods.includes(form.paymentMethod)) throw invalidField('payment_method', 'method_not_offered');
  if (form.paymentMethod !== 'credit_card') return { method: form.paymentMethod, installments: null };
  const installments = form.installments ?? 1;
  if (installments > view.maxInstallments) throw invalidField('installments', 'installments_not_offered');
  return { method: form.paymentMethod, installments };
}

/**
 * The pay step: checks the link can still be paid (under its row lock, so a cancel or another
 * payment of a single-use link cannot slip in between) and the buyer's method is one it offers, has
 * the gateway make the charge, then creates the pending order for the price minus the coupon, with
 * the charge's instructions and its `order.created` event (and `lead.created` for a new buyer), in
 * one transaction. A charge the gateway approved at once (the dev gateway's card) is then confirmed
 * through the same function as the signed gateway callback.
 */
export async function payAtCheckout(
  ctx: AppContext,
  code: string,
  values: PayFormValues,
  now = new Date(),
): Promise<Payment> {
  const plink = values.plink === undefined || values.plink === '' ? undefined : values.plink;
  const view = await loadCheckout(ctx, code, plink, now);
  if (view.notice) throw conflict(view.notice);
  const form = parsePayForm(values);
  const { method, installments } = chosenPayment(view, form);
  const { item, link } = view;
  const gateway = gatewayFor(ctx.config);

  const created = await ctx.db.transaction(async (tx) => {
    if (link) {
      const state = await lockLink(tx, link.id);
      if (!state || !isPayable(state, state.now)) throw conflict('link_not_payable');
      // One payment at a time on a single-use link (a double submit must not charge twice); an
      // abandoned attempt stops blocking the link after PENDING_HOLD_MINUTES.
      if (state.singleUse && (await hasPaymentInFlight(tx, link.id, PENDING_HOLD_MINUTES))) {
        throw conflict('payment_in_progress');
      }
    }
    const orderCode = newUuid();
    const createdAt = new Date();
    const company = await findCompany(tx, item.companyId);
    const charge = await gateway
      .createCharge({
        orderCode,
        companyId: item.companyId,
        merchantName: company?.name ?? item.productName,
        amount: view.price.amount,
        method,
        installments,
        createdAt,
        pixExpiresInSeconds: link?.pixExpiresInSeconds ?? LINKLESS_OPTIONS.pixExpiresInSeconds,
        boletoDueDays: link?.boletoDueDays ?? LINKLESS_OPTIONS.boletoDueDays,
        boletoPageUrl: `${ctx.config.urls.checkout}/orders/${orderCode}/boleto`,
      })
      .catch((err: unknown) => {
        if (err instanceof ChargeRefusedError) throw invalidField('payment_method', 'method_unavailable');
        throw err;
      });
    const order = await createPendingOrder(
      tx,
      {
        code: orderCode,
        companyId: item.companyId,
        livemode: true,
        paymentLinkId: link?.id ?? null,
        productId: item.productId,
        offerId: item.kind === 'offer' ? item.id : null,
        planId: item.kind === 'plan' ? item.id : null,
        amount: view.price.amount,
        paymentMethod: method,
        installments,
        customer: form.customer,
        createdAt,
        charge,
      },
      link,
    );
    return { ...order, charge };
  });
  publishAfterCommit(ctx, created.eventIds);

  // A card the gateway approved while the buyer waited is paid now; everything else waits for the
  // gateway's callback, or for the abandonment check at the order's deadline.
  if (created.charge.status !== 'paid') {
    scheduleAbandonment(ctx, created.order);
    return { order: created.order, view, paid: false };
  }
  const confirmed = await confirmPayment(ctx, {
    orderCode: created.order.code,
    paymentMethod: method,
    paidAt: new Date(),
  });
  return { order: confirmed.order, view, paid: true };
}

/** An order as the buyer's pages show it: what was bought, from whom, and through which link. */
export interface OrderView {
  order: OrderRow;
  item: CatalogItem;
  link: LinkRow | null;
  merchantName: string;
}

/** The order of a buyer page (`{checkout_url}/orders/<code>`): its code is all the buyer holds. */
export async function loadOrder(ctx: AppContext, code: string): Promise<OrderView> {
  const order = UUID_PATTERN.test(code) ? await findOrderByCode(ctx.db, code) : undefined;
  if (!order) throw notFound('order_not_found');
  const kind = order.planId !== null ? 'plan' : 'offer';
  const [item, found, company] = await Promise.all([
    findItemById(ctx.db, kind, order.planId ?? order.offerId ?? 0),
    order.paymentLinkId === null ? undefined : findLinkById(ctx.db, order.paymentLinkId),
    findCompany(ctx.db, order.companyId),
  ]);
  if (!item) throw notFound('order_not_found');
  return { order, item, link: found?.link ?? null, merchantName: company?.name ?? item.productName };
}

/** The status of an order, for the page that waits for it (and nothing else about it). */
export async function orderStatus(ctx: AppContext, code: string): Promise<OrderRow['status']> {
  const order = UUID_PATTERN.test(code) ? await findOrderByCode(ctx.db, code) : undefined;
  if (!order) throw notFound('order_not_found');
  return order.status;
}

/**
 * Where a buyer goes once the order is paid, when its link has a `success_url`: that URL with
 * `link_id` and `order_code` added to its query (after whatever query it has; a fragment stays last).
 */
export function successRedirectUrl(successUrl: string, linkId: string, orderCode: string): string {
  const url = new URL(successUrl);
  const added = new URLSearchParams({ link_id: linkId, order_code: orderCode }).toString();
  url.search = url.search.length > 1 ? `${url.search.slice(1)}&${added}` : added;
  return url.href;
}
