import {
  isAccessEventKind,
  isSubscriptionEventKind,
  type EventKind,
  type IntegrationEventKind,
  type InvoiceEventKind,
  type OrderEventKind,
  type SubscriptionEventKind,
} from '../events/kinds.js';
import type { Executor } from '../shared/db/index.js';
import type { OrderCustomer } from '../shared/db/schema.js';
import { ORDER_STATUSES } from '../shared/enums/order-statuses.js';
import { PAYMENT_METHODS } from '../shared/enums/payment-methods.js';
import { SUBSCRIPTION_STATUSES } from '../shared/enums/subscription-statuses.js';
import { formatMoney } from '../shared/money.js';
import { webhookTracking, type CampaignTracking } from '../shared/tracking.js';
import { dateTime, money, nullable, ref } from '../shared/openapi/builders.js';
import type { JsonSchema } from '../shared/openapi/types.js';
import {
  offerOrPlan,
  purchaseData,
  type OrderFacts,
  type PurchaseSource,
} from '../payment-links/purchase-data.js';
import { findLinkById, type LinkRow } from '../payment-links/repository.js';
import { findItemById } from '../catalog/repository.js';
import { paymentDetails, toSubscriptionWire } from './mappers.js';
import { PAYMENT_DETAILS_FIELDS, paymentDetailsProperties } from './openapi.js';
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
  /** The order's tracking (which holds its link's campaign where the visit carried none). */
  tracking: CampaignTracking | null,
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
    tracking: null,
  };
  const { productId, data } = await purchaseData(
    tx,
    { ...source, tracking: tracking ?? source.tracking },
    order,
  );
  if (!link) data.purchase = { tracking: webhookTracking(null, tracking), payment_link: null };
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
  const { productId, data } = await purchasePart(tx, order, link, orderFacts(order), order.tracking);
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
  const first = await firstOrderOfSubscription(tx, subscription.id);
  const { productId, data } = await purchasePart(tx, purchase, link, null, first?.tracking ?? null);
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

// The schemas of the payloads above (components of the payments document, which the test suite
// checks every delivery against): a change to a payload changes its schema here too.

/**
 * The order status each kind announces. A simulated or test event's synthetic order carries the same
 * status (for `order.expired`, `expired`: the simulated outcome, never a real order's status).
 */
const STATUS_OF: Record<OrderEventKind, string> = {
  'order.paid': 'paid',
  'order.refunded': 'refunded',
  'order.created': 'pending',
  'order.expired': 'expired',
  'order.failed': 'failed',
  'order.abandoned': 'abandoned',
  'order.payment_declined': 'failed',
  'order.chargeback': 'charged_back',
};

/** The subscription status each subscription kind announces. */
const SUBSCRIPTION_STATUS_OF: Record<SubscriptionEventKind, string> = {
  'subscription.created': 'active',
  'subscription.renewed': 'active',
  'subscription.past_due': 'past_due',
  'subscription.canceled': 'canceled',
};

const orderProperties = (status: JsonSchema): Record<string, JsonSchema> => ({
  code: { type: 'string', format: 'uuid' },
  status,
  amount: money,
  payment_method: nullable({ type: 'string', enum: [...PAYMENT_METHODS] }),
  paid_at: nullable(dateTime),
  ...paymentDetailsProperties,
});
const ORDER_FIELDS = ['code', 'status', 'amount', 'payment_method', 'paid_at', ...PAYMENT_DETAILS_FIELDS];

const realOrder = (status: JsonSchema): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required: ORDER_FIELDS,
  properties: orderProperties(status),
});
const syntheticOrder = (status: JsonSchema): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required: [...ORDER_FIELDS, 'test', 'sandbox'],
  description:
    'The order of a simulated or test event: nothing was charged. It exists in test mode only when it is a renewal ' +
    'of a subscription a simulation started; otherwise it is synthetic and no order exists',
  properties: { ...orderProperties(status), test: { const: true }, sandbox: { const: true } },
});

/** `data.order` of each kind: the order as it is after the change, or a synthetic one in test events. */
function orderOf(kind: OrderEventKind): JsonSchema {
  const status = { const: STATUS_OF[kind] };
  if (kind === 'order.expired') return { anyOf: [{ type: 'null' }, syntheticOrder(status)] };
  if (kind === 'order.payment_declined') return syntheticOrder(status);
  return { anyOf: [realOrder(status), syntheticOrder(status)] };
}

/** The schemas `orderEventData`, `orderEventSubscription`, `subscriptionEventData` and `leadEventData` build to. */
export const orderEventSchemas: Record<string, JsonSchema> = {
  EventSubscription: nullable({
    type: 'object',
    additionalProperties: false,
    required: ['id', 'status', 'current_period_end'],
    description: 'The subscription of a plan order; null until its first payment starts it',
    properties: {
      id: { type: 'integer' },
      status: { type: 'string', enum: [...SUBSCRIPTION_STATUSES] },
      current_period_end: dateTime,
    },
  }),
  OrderEventData: {
    type: 'object',
    additionalProperties: false,
    required: ['order', 'customer', 'product', 'purchase'],
    properties: {
      order: {
        anyOf: [
          { type: 'null' },
          realOrder({ type: 'string', enum: [...ORDER_STATUSES] }),
          syntheticOrder({ type: 'string', enum: [...new Set([...ORDER_STATUSES, 'expired'])] }),
        ],
      },
      customer: ref('EventCustomer'),
      product: ref('EventProduct'),
      offer: ref('EventOffer'),
      plan: ref('EventPlan'),
      subscription: ref('EventSubscription'),
      purchase: ref('EventPurchase'),
    },
    ...offerOrPlan(true),
  },
  SubscriptionEventData: {
    type: 'object',
    additionalProperties: false,
    required: ['subscription', 'customer', 'product', 'plan', 'purchase'],
    properties: {
      subscription: ref('Subscription'),
      customer: {
        ...ref('EventCustomer'),
        description:
          'The subscriber: the buyer of its first order (else the prefill of the link that started it)',
      },
      product: ref('EventProduct'),
      plan: ref('EventPlan'),
      purchase: {
        ...ref('EventPurchase'),
        description: 'The link that started the subscription (both null when it was bought without one)',
      },
    },
  },
  LeadEventData: {
    type: 'object',
    additionalProperties: false,
    required: ['lead', 'product', 'purchase'],
    properties: {
      lead: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'email', 'phone', 'document'],
        description: 'The buyer as entered in the checkout form',
        properties: {
          name: { type: 'string' },
          email: { type: 'string' },
          phone: nullable({ type: 'string', pattern: '^\\+\\d{10,15}$' }),
          document: nullable({ type: 'string', pattern: '^(\\d{11}|[0-9A-Z]{12}\\d{2})$' }),
        },
      },
      product: ref('EventProduct'),
      offer: ref('EventOffer'),
      plan: ref('EventPlan'),
      purchase: ref('EventPurchase'),
    },
    ...offerOrPlan(false),
  },
};

/** The schema of `data` of an event of `kind`, with the status that kind announces. */
export function eventDataSchema(
  kind: Exclude<EventKind, IntegrationEventKind | InvoiceEventKind>,
): JsonSchema {
  if (kind === 'lead.created') return ref('LeadEventData');
  if (isAccessEventKind(kind)) return ref('AccessEventData');
  if (isSubscriptionEventKind(kind)) {
    const status = { const: SUBSCRIPTION_STATUS_OF[kind] };
    const reason = kind === 'subscription.canceled' ? { type: 'string' } : { type: 'null' };
    return {
      allOf: [
        ref('SubscriptionEventData'),
        { properties: { subscription: { properties: { status, cancel_reason: reason } } } },
      ],
    };
  }
  return { allOf: [ref('OrderEventData'), { properties: { order: orderOf(kind) } }] };
}
