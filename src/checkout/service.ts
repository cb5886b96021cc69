import { findCoupon, findItemByCode, findItemById, type CatalogItem } from '../catalog/repository.js';
import { platformFeeOf, platformFeeRule } from '../companies/fees.js';
import { findCompany } from '../companies/repository.js';
import { gatewayOfCompany } from '../gateways/index.js';
import {
  ChargeRefusedError,
  GatewayUnavailableError,
  type Charge,
  type PaymentGateway,
} from '../gateways/port.js';
import { dropCharge, findCharge, startingChargeOf } from '../orders/charge-repository.js';
import {
  firstReconciliation,
  recordCharge,
  reserveCharge,
  scheduleReconciliation,
} from '../orders/charges.js';
import { setReconcile } from '../orders/charge-repository.js';
import { confirmPayment, failPayment } from '../orders/service.js';
import { findOrderByCode, type OrderRow } from '../orders/repository.js';
import { CHECKOUT_OPTIONS } from '../payment-links/schemas.js';
import { isPayable, isSimulatable, unpayableReason } from '../payment-links/payable.js';
import { findLinkById, hasPaymentInFlight, lockLink, type LinkRow } from '../payment-links/repository.js';
import { getPaymentLink } from '../payment-links/service.js';
import { simulateOutcome, type Simulation } from '../simulate/service.js';
import type { Outcome } from '../simulate/outcomes.js';
import type { AppContext } from '../shared/context.js';
import type { OrderCustomer } from '../shared/db/schema.js';
import { PAYMENT_METHODS, type PaymentMethod } from '../shared/enums/payment-methods.js';
import { LINK_ID_PATTERN, newUuid, UUID_PATTERN } from '../shared/ids.js';
import type { NoticeKey } from './messages.js';
import { DEFAULT_LANGUAGE, type Language } from '../ui/language.js';
import { getEmailSettings } from '../emails/settings.js';
import { conflict, gatewayUnavailable, invalidField, notFound, refusedByGateway } from './page-errors.js';
import { priceWithCoupon } from './pricing.js';
import { browserPixel } from './ad-pixel.js';
import { orderTracking, type VisitTracking } from '../shared/tracking.js';
import { chosenPayment, parsePayForm, type PayForm, type PayFormValues, type Payment } from './pay-form.js';
import type { CheckoutView, LinkView, OrderView } from './view-models.js';

const PENDING_HOLD_MINUTES = 15;

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
    const gateway = await gatewayOfCompany(ctx, item.companyId);
    return {
      item,
      link: null,
      price: priceWithCoupon(item.price, undefined),
      notice: null,
      prefill: EMPTY_CUSTOMER,
      methods: LINKLESS_OPTIONS.methods,
      maxInstallments: LINKLESS_OPTIONS.maxInstallments,
      gateway: gateway.checkout,
      askRecoveryConsent: await recoveryOn(ctx, item.companyId),
    };
  }
  const view = await loadLink(ctx, plink, true, now);
  if ((view.link.offerCode ?? view.link.planCode) !== code) {
    throw invalidField('plink', 'link_of_other_item');
  }
  const { link } = view;
  const gateway = await gatewayOfCompany(ctx, link.companyId);
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
    gateway: gateway.checkout,
    askRecoveryConsent: await recoveryOn(ctx, link.companyId),
  };
}

/** Whether the company sends the recovery message (so its checkout asks the buyer's consent). */
const recoveryOn = async (ctx: AppContext, companyId: number): Promise<boolean> =>
  (await getEmailSettings(ctx.db, companyId)).messages.recovery;

/**
 * The pay step (docs/mercadopago.md, "The pay step"): checks the link can still be paid (under its
 * row lock, so a cancel or another payment of a single-use link cannot slip in between) and the
 * buyer's method is one it offers, and reserves the charge, its order code fixed by the page's
 * attempt; then asks the company's gateway for the charge, outside any transaction; then records
 * the pending order with the charge's instructions and its events. A card approved at once is then
 * confirmed, one declined fails its order (the link stays payable).
 *
 * A gateway that refuses the charge leaves nothing behind (a 400 page); one that cannot be reached
 * leaves the reservation, so posting the same attempt again asks for the same charge, never a
 * second one (a 503 page saying to try again).
 */
export async function payAtCheckout(
  ctx: AppContext,
  code: string,
  values: PayFormValues,
  now = new Date(),
  language: Language = DEFAULT_LANGUAGE,
  visit: VisitTracking = {},
): Promise<Payment> {
  const plink = values.plink === undefined || values.plink === '' ? undefined : values.plink;
  const view = await loadCheckout(ctx, code, plink, now);
  if (view.notice) throw conflict(view.notice);
  const form = parsePayForm(values, view.gateway);
  const { method, installments } = chosenPayment(view, form);
  const { item, link } = view;
  const gateway = await gatewayOfCompany(ctx, item.companyId);

  const wanted = form.attempt ?? newUuid();
  const reservation = await ctx.db.transaction(async (tx) => {
    let resumed: string | undefined;
    if (link) {
      const state = await lockLink(tx, link.id);
      if (!state || !isPayable(state, state.now)) throw conflict('link_not_payable');
      // One payment at a time on a single-use link (a double submit must not charge twice); an
      // abandoned attempt stops blocking the link after PENDING_HOLD_MINUTES.
      if (state.singleUse) {
        if (await hasPaymentInFlight(tx, link.id, PENDING_HOLD_MINUTES, wanted))
          throw conflict('payment_in_progress');
        // Another attempt still being asked holds the link. One the gateway left unanswered (the
        // link reopened after the PSP was down) resumes: its order code, so the PSP's idempotency
        // key, when it asked for the same method and amount; else it holds the link too.
        const starting = await startingChargeOf(tx, link.id, PENDING_HOLD_MINUTES, wanted);
        if (starting && !starting.unanswered) throw conflict('payment_in_progress');
        resumed = starting?.orderCode;
      }
    }
    const reservation = await reserveCharge(
      tx,
      gateway,
      {
        orderCode: resumed ?? wanted,
        fallbackOrderCode: newUuid(),
        companyId: item.companyId,
        paymentLinkId: link?.id ?? null,
        request: {
          productId: item.productId,
          offerId: item.kind === 'offer' ? item.id : null,
          planId: item.kind === 'plan' ? item.id : null,
          amount: view.price.amount,
          paymentMethod: method,
          installments,
          customer: form.customer,
          payerAddress: form.address,
          language,
          // Only where the checkout asked (the company sends the recovery message).
          recoveryConsent: view.askRecoveryConsent && form.recoveryConsent,
          tracking: orderTracking(visit, link?.tracking ?? null),
        },
      },
      new Date(),
    );
    if (resumed !== undefined && reservation.orderCode !== resumed) throw conflict('payment_in_progress');
    return reservation;
  });
  // The same form posted again after it went through: its order as it is now.
  if (reservation.order) return { order: reservation.order, view, paid: reservation.order.status === 'paid' };

  const charge = await chargeThrough(ctx, gateway, view, form, reservation, { method, installments });
  return { ...(await orderOfCharge(ctx, reservation.orderCode, charge, method)), view };
}

/**
 * The pay step once the gateway answered: the pending order recorded (with its events), then a card
 * declined fails it and one approved at once is confirmed. A pending one waits for the gateway, or for
 * the abandonment check at its deadline (recordCharge scheduled it). Another request that recorded
 * the same charge first answers with the order as it is.
 */
export async function orderOfCharge(
  ctx: AppContext,
  orderCode: string,
  charge: Charge,
  method: PaymentMethod,
): Promise<Omit<Payment, 'view'>> {
  const recorded = await recordCharge(ctx, orderCode, charge);
  const order = recorded.order;
  if (!recorded.created || charge.status === 'pending') return { order, paid: order.status === 'paid' };
  if (charge.status === 'declined')
    return { order: (await failPayment(ctx, { code: order.code })).order, paid: false };
  const confirmed = await confirmPayment(ctx, {
    orderCode: order.code,
    paymentMethod: method,
    paidAt: new Date(),
  });
  return { order: confirmed.order, paid: true };
}

/**
 * Asks the gateway for the reserved charge. A refusal deletes the reservation (nothing was made);
 * no answer keeps it for the retry, and has it reconciled in case the PSP made the payment anyway.
 */
export async function chargeThrough(
  ctx: AppContext,
  gateway: PaymentGateway,
  view: CheckoutView,
  form: PayForm,
  reservation: { orderCode: string; createdAt: Date },
  chosen: { method: PaymentMethod; installments: number | null },
): Promise<Charge> {
  const { item, link } = view;
  const company = await findCompany(ctx.db, item.companyId);
  try {
    return await gateway.createCharge({
      orderCode: reservation.orderCode,
      companyId: item.companyId,
      merchantName: company?.name ?? item.productName,
      description: item.productName,
      amount: view.price.amount,
      method: chosen.method,
      installments: chosen.installments,
      createdAt: reservation.createdAt,
      pixExpiresInSeconds: link?.pixExpiresInSeconds ?? LINKLESS_OPTIONS.pixExpiresInSeconds,
      boletoDueDays: link?.boletoDueDays ?? LINKLESS_OPTIONS.boletoDueDays,
      boletoPageUrl: `${ctx.config.urls.checkout}/orders/${reservation.orderCode}/boleto`,
      payer: { ...form.customer, address: form.address },
      card: form.card,
      platformFee: platformFeeOf(platformFeeRule(ctx.config, company), view.price.amount),
    });
  } catch (err) {
    if (err instanceof ChargeRefusedError) {
      // Kept, dropped: the form posted again (corrected) is a new attempt with a new order code, so
      // the PSP never replays its refusal for that idempotency key.
      await dropCharge(ctx.db, reservation.orderCode);
      throw err.field === undefined
        ? invalidField('payment_method', 'method_unavailable')
        : refusedByGateway(err.field);
    }
    if (err instanceof GatewayUnavailableError) {
      ctx.logger.warn(
        { orderCode: reservation.orderCode, provider: gateway.provider, reason: err.message },
        'the gateway did not answer the pay step; the buyer may try again',
      );
      const at = firstReconciliation(ctx, gateway.provider, new Date());
      if (at) {
        await setReconcile(ctx.db, reservation.orderCode, at);
        scheduleReconciliation(ctx, reservation.orderCode, at, 1);
      }
      throw gatewayUnavailable(reservation.orderCode);
    }
    throw err;
  }
}

/**
 * The order of a buyer page (`{checkout_url}/orders/<code>`): its code is all the buyer holds. With
 * `pixel`, the browser pixel its company has on for it, if any (src/checkout/ad-pixel.ts).
 */
export async function loadOrder(ctx: AppContext, code: string, pixel = false): Promise<OrderView> {
  const order = UUID_PATTERN.test(code) ? await findOrderByCode(ctx.db, code) : undefined;
  if (!order) throw notFound('order_not_found');
  const kind = order.planId !== null ? 'plan' : 'offer';
  const [item, found, company, charge, browser] = await Promise.all([
    findItemById(ctx.db, kind, order.planId ?? order.offerId ?? 0),
    order.paymentLinkId === null ? undefined : findLinkById(ctx.db, order.paymentLinkId),
    findCompany(ctx.db, order.companyId),
    order.status === 'failed' ? findCharge(ctx.db, order.code) : undefined,
    pixel ? browserPixel(ctx, order) : null,
  ]);
  if (!item) throw notFound('order_not_found');
  return {
    order,
    item,
    link: found?.link ?? null,
    merchantName: company?.name ?? item.productName,
    declineReason: charge?.declineReason ?? null,
    pixel: browser,
  };
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
