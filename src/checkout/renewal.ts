/**
 * Pay now (`{checkout_url}/renewals/<token>`): the checkout of a subscription's failed renewal, opened
 * from the e-mail that announced the failure. It is the checkout's own pay step (the same form, the
 * same gateway charge, the same confirmation) with a renewal charge in place of a purchase: once
 * paid, the subscription enters the period it was trying to renew, as a paid retry would make it.
 * A declined card here fails only its own order: the renewal's scheduled retries go on.
 */
import { findItemById, type CatalogItem } from '../catalog/repository.js';
import { renewalOfToken } from '../emails/buyer-links.js';
import { gatewayOfCompany } from '../gateways/index.js';
import { reserveChargeRow } from '../orders/charge-repository.js';
import type { RenewalChargeRequest } from '../orders/charges.js';
import { findOrderByCode, firstOrderOfSubscription } from '../orders/repository.js';
import {
  findSubscription,
  lockSubscription,
  type SubscriptionRow,
} from '../orders/subscription-repository.js';
import type { AppContext } from '../shared/context.js';
import { PAYMENT_METHODS } from '../shared/enums/payment-methods.js';
import { newUuid } from '../shared/ids.js';
import { notFound } from './page-errors.js';
import { priceWithCoupon } from './pricing.js';
import { chargeThrough, orderOfCharge } from './service.js';
import { type CheckoutView } from './view-models.js';
import { chosenPayment, parsePayForm, type PayFormValues, type Payment } from './pay-form.js';

/**
 * The `attempt` of a pay-now charge: no scheduled charge has it, so a declined card here is not
 * counted as a failed retry (the retries go on as scheduled).
 */
const PAY_NOW_ATTEMPT = -1;

export interface RenewalCheckout {
  view: CheckoutView;
  subscription: SubscriptionRow;
  seller: string;
  /** False once the renewal is paid (or the subscription ended): nothing to pay here any more. */
  due: boolean;
}

export async function loadRenewalCheckout(ctx: AppContext, token: string): Promise<RenewalCheckout> {
  const target = await renewalOfToken(ctx.db, token);
  const subscription = target && (await findSubscription(ctx.db, target.subscriptionId));
  const plan: CatalogItem | undefined =
    subscription && (await findItemById(ctx.db, 'plan', subscription.planId));
  if (!target || !subscription || !plan) throw notFound('page_not_found');
  const first = await firstOrderOfSubscription(ctx.db, subscription.id);
  const gateway = await gatewayOfCompany(ctx, subscription.companyId);
  const view: CheckoutView = {
    item: plan,
    link: null,
    price: priceWithCoupon(plan.price, undefined),
    notice: null,
    prefill: first?.customer ?? { name: null, email: null, phone: null, document: null },
    methods: [...PAYMENT_METHODS],
    maxInstallments: 1,
    gateway: gateway.checkout,
    askRecoveryConsent: false,
    payAction: { path: ['renewals', 'pay'], query: { token } },
  };
  return { view, subscription, seller: target.seller, due: subscription.status === 'past_due' };
}

/**
 * The pay step of a renewal: the charge reserved under the subscription's lock (its code fixed by the
 * page's attempt, so posting again never charges twice), the gateway asked outside any transaction,
 * then the pending renewal order recorded (`order.created`), and a card approved at once confirmed.
 * Undefined when the renewal is no longer due.
 */
export async function payRenewalAtCheckout(
  ctx: AppContext,
  token: string,
  values: PayFormValues,
): Promise<Payment | undefined> {
  const checkout = await loadRenewalCheckout(ctx, token);
  const { view, subscription } = checkout;
  if (!checkout.due) return undefined;
  const form = parsePayForm(values, view.gateway);
  const { method, installments } = chosenPayment(view, form);
  const gateway = await gatewayOfCompany(ctx, subscription.companyId);
  const orderCode = form.attempt ?? newUuid();
  const done = await findOrderByCode(ctx.db, orderCode);
  if (done) return { order: done, view, paid: done.status === 'paid' };
  const createdAt = new Date();
  const reserved = await ctx.db.transaction(async (tx) => {
    const current = await lockSubscription(tx, subscription.id);
    if (current?.status !== 'past_due') return undefined;
    const request: RenewalChargeRequest = {
      kind: 'renewal',
      subscriptionId: current.id,
      period: current.currentPeriod + 1,
      attempt: PAY_NOW_ATTEMPT,
      productId: view.item.productId,
      planId: view.item.id,
      amount: view.price.amount,
      paymentMethod: method,
      customer: form.customer,
      payerAddress: form.address,
      createdAt: createdAt.toISOString(),
    };
    const account = { provider: gateway.provider, accountId: gateway.accountId };
    const owner = { companyId: current.companyId, subscriptionId: current.id, paymentLinkId: null };
    return reserveChargeRow(tx, { orderCode, ...account, ...owner, request: { ...request } });
  });
  if (!reserved) return undefined;
  // A charge of this code made already (a retry after the gateway answered): its order, once recorded.
  if (!reserved.created && reserved.row.state !== 'starting') {
    const order = await findOrderByCode(ctx.db, orderCode);
    if (order) return { order, view, paid: order.status === 'paid' };
  }
  const made = { orderCode, createdAt };
  const charge = await chargeThrough(ctx, gateway, view, form, made, { method, installments });
  return { ...(await orderOfCharge(ctx, orderCode, charge, method)), view };
}
