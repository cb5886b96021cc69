import { findCoupon, findItemByCode, findItemById, type CatalogItem } from '../catalog/repository.js';
import { publishAfterCommit } from '../events/publish.js';
import { scheduleAbandonment } from '../orders/abandonment.js';
import { confirmPayment, createPendingOrder } from '../orders/service.js';
import type { OrderRow } from '../orders/repository.js';
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
import { newUuid } from '../shared/ids.js';
import { v } from '../shared/validation/typed.js';
import type { NoticeKey } from './messages.js';
import { conflict, invalidField, notFound, PayFormError } from './page-errors.js';
import { priceWithCoupon, type Price } from './pricing.js';

const LINK_ID = /^plink_[0-9A-Za-z]{24}$/;
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
}

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
  const found = LINK_ID.test(linkId) ? await findLinkById(ctx.db, linkId) : undefined;
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
});

export type PayFormValues = Record<string, string>;

export interface Payment {
  order: OrderRow;
  view: CheckoutView;
  /** True when the dev gateway completed the payment during the request. */
  paid: boolean;
}

function parsePayForm(values: PayFormValues): { customer: OrderCustomer; paymentMethod: PaymentMethod } {
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
  };
}

/**
 * The pay step: checks the link can still be paid (under its row lock, so a cancel or another
 * payment of a single-use link cannot slip in between), creates the pending order for the price
 * minus the coupon with its `order.created` event (and `lead.created` for a new buyer) in one
 * transaction, then, with the dev gateway and a card, confirms it through the same function as the
 * signed gateway callback.
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
  const { customer, paymentMethod } = parsePayForm(values);
  const { item, link } = view;

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
    return createPendingOrder(
      tx,
      {
        code: newUuid(),
        companyId: item.companyId,
        livemode: true,
        paymentLinkId: link?.id ?? null,
        productId: item.productId,
        offerId: item.kind === 'offer' ? item.id : null,
        planId: item.kind === 'plan' ? item.id : null,
        amount: view.price.amount,
        paymentMethod,
        customer,
      },
      link,
    );
  });
  publishAfterCommit(ctx, created.eventIds);

  // The dev gateway, like a real one, confirms a card at once; pix and boleto wait for the gateway's
  // callback, or for the abandonment check at the order's deadline.
  if (!ctx.config.devGateway || paymentMethod !== 'credit_card') {
    scheduleAbandonment(ctx, created.order);
    return { order: created.order, view, paid: false };
  }
  const confirmed = await confirmPayment(ctx, {
    orderCode: created.order.code,
    paymentMethod,
    paidAt: new Date(),
  });
  return { order: confirmed.order, view, paid: true };
}
