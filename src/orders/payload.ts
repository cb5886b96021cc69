import type { Executor } from '../shared/db/index.js';
import type { OrderCustomer } from '../shared/db/schema.js';
import { formatMoney } from '../shared/money.js';
import { purchaseData, type OrderFacts, type PurchaseSource } from '../payment-links/purchase-data.js';
import { findLinkById, type LinkRow } from '../payment-links/repository.js';
import { findItemById } from '../catalog/repository.js';
import { paymentDetails, toSubscriptionWire } from './mappers.js';
import { firstOrderOfSubscription, type OrderRow } from './repository.js';
import type { SubscriptionRow } from './subscription-repository.js';

export function orderFacts(order: OrderRow): OrderFacts {
  return {
    code: order.code,
    status: order.status,
    amount: formatMoney(order.amount),
    payment_method: order.paymentMethod,
    paid_at: order.paidAt ? order.paidAt.toISOString() : null,
    ...paymentDetails(order),
    // Test-mode orders (the renewals of a subscription a simulation started) charged nothing: they
    // carry the marks of every simulated order.
    ...(order.livemode ? {} : { test: true, sandbox: true }),
  };
}

/** What was bought, whether or not through a link. */
type Purchase = Pick<OrderRow, 'productId' | 'offerId' | 'planId'>;

/**
 * The purchase part of a payload (product, offer or plan, and `purchase`), built by the same builder
 * as simulated and expiry events so every event has one shape. A purchase not made through a link (a
 * renewal, a checkout opened without `plink`) has null `external_reference` and `payment_link`.
 */
async function purchasePart(
  tx: Executor,
  purchase: Purchase,
  link: LinkRow | null,
  order: OrderFacts | null,
): Promise<{ productId: number; data: Record<string, unknown> }> {
  const source: PurchaseSource = link ?? {
    id: '',
    type: purchase.planId !== null ? 'plan' : 'offer',
    productId: purchase.productId,
    offerId: purchase.offerId,
    planId: purchase.planId,
    customerName: null,
    customerEmail: null,
    customerPhone: null,
    customerDocument: null,
    externalReference: null,
    metadata: {},
  };
  const { productId, data } = await purchaseData(tx, source, order);
  if (!link) data.purchase = { tracking: { external_reference: null }, payment_link: null };
  return { productId, data };
}

/**
 * `data` of a real order event. The buyer is the one who paid (as entered at checkout, else the
 * link's prefill); plans carry their subscription (null until the payment starts it).
 */
export async function orderEventData(
  tx: Executor,
  order: OrderRow,
  link: LinkRow | null,
  subscription: SubscriptionRow | null,
): Promise<{ productId: number; data: Record<string, unknown> }> {
  const { productId, data } = await purchasePart(tx, order, link, orderFacts(order));
  if (order.customer) data.customer = { ...order.customer };
  if (order.planId !== null) data.subscription = subscription ? orderEventSubscription(subscription) : null;
  return { productId, data };
}

/** `data.subscription` of an order event about a plan: the subscription in short. */
export const orderEventSubscription = (subscription: SubscriptionRow) => ({
  id: subscription.id,
  status: subscription.status,
  current_period_end: subscription.currentPeriodEnd.toISOString(),
});

/**
 * `data` of a `subscription.*` event: the subscription as the panel shows it, its subscriber (the
 * buyer of its first order, else the link's prefill), the product and plan, and the purchase block of
 * the link that started it (nulls without one).
 */
export async function subscriptionEventData(
  tx: Executor,
  subscription: SubscriptionRow,
): Promise<{ productId: number; data: Record<string, unknown> }> {
  const plan = await findItemById(tx, 'plan', subscription.planId);
  if (!plan?.billingCycle) throw new Error(`plan ${subscription.planId} of a subscription is missing`);
  const link =
    subscription.paymentLinkId === null
      ? null
      : ((await findLinkById(tx, subscription.paymentLinkId))?.link ?? null);
  const purchase = { productId: plan.productId, offerId: null, planId: plan.id };
  const { productId, data } = await purchasePart(tx, purchase, link, null);
  const first = await firstOrderOfSubscription(tx, subscription.id);
  const wire = toSubscriptionWire({ subscription, planCode: plan.code, billingCycle: plan.billingCycle });
  return {
    productId,
    data: {
      subscription: wire,
      customer: first?.customer ? { ...first.customer } : data.customer,
      product: data.product,
      plan: data.plan,
      purchase: data.purchase,
    },
  };
}

/**
 * `data` of `lead.created`, from the `data` of the order the buyer just submitted: the buyer as
 * entered at checkout under `lead`, with the product, offer or plan and the link reference of what
 * they were buying (no order, customer or subscription).
 */
export function leadEventData(
  orderData: Record<string, unknown>,
  lead: OrderCustomer,
): Record<string, unknown> {
  const sold = 'plan' in orderData ? { plan: orderData.plan } : { offer: orderData.offer };
  return { lead: { ...lead }, product: orderData.product, ...sold, purchase: orderData.purchase };
}
