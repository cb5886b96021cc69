import { customerSchema } from '../payment-links/openapi.js';
import { BILLING_CYCLES } from '../shared/enums/billing-cycles.js';
import { ORDER_STATUSES } from '../shared/enums/order-statuses.js';
import { PAYMENT_METHODS } from '../shared/enums/payment-methods.js';
import { SUBSCRIPTION_STATUSES } from '../shared/enums/subscription-statuses.js';
import { dateTime, money, nullable, ref } from '../shared/openapi/builders.js';
import type { JsonSchema } from '../shared/openapi/types.js';

const listOf = (item: string): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required: ['object', 'data', 'has_more'],
  properties: {
    object: { const: 'list' },
    data: { type: 'array', items: ref(item) },
    has_more: { type: 'boolean' },
  },
});

const panelOrder: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'object',
    'code',
    'status',
    'amount',
    'payment_method',
    'livemode',
    'link_id',
    'subscription_id',
    'customer',
    'product',
    'offer_code',
    'plan_code',
    'created_at',
    'paid_at',
    'refunded_at',
  ],
  properties: {
    object: { const: 'order' },
    code: { type: 'string', format: 'uuid' },
    status: {
      type: 'string',
      enum: [...ORDER_STATUSES],
      description:
        '`pending` until the gateway answers; `paid` or `failed` then; `refunded` after a refund; `abandoned` ' +
        'when still pending after ORDER_ABANDON_AFTER_SECONDS (a late payment still makes it `paid`)',
    },
    amount: money,
    payment_method: nullable({ type: 'string', enum: [...PAYMENT_METHODS] }),
    livemode: { type: 'boolean' },
    link_id: nullable({
      type: 'string',
      pattern: '^plink_[0-9A-Za-z]{24}$',
      description: 'The payment link it was made through; null for renewals and checkouts without a link',
    }),
    subscription_id: nullable({ type: 'integer', description: 'Set once a plan order is paid' }),
    customer: customerSchema,
    product: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'name'],
      properties: { id: { type: 'integer' }, name: { type: 'string' } },
    },
    offer_code: nullable({ type: 'string' }),
    plan_code: nullable({ type: 'string' }),
    created_at: dateTime,
    paid_at: nullable(dateTime),
    refunded_at: nullable(dateTime),
  },
};

const subscription: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'object',
    'id',
    'status',
    'livemode',
    'plan_code',
    'billing_cycle',
    'current_period_end',
    'canceled_at',
    'created_at',
  ],
  properties: {
    object: { const: 'subscription' },
    id: { type: 'integer' },
    status: { type: 'string', enum: [...SUBSCRIPTION_STATUSES] },
    livemode: { type: 'boolean' },
    plan_code: { type: 'string' },
    billing_cycle: { type: 'string', enum: [...BILLING_CYCLES] },
    current_period_end: {
      ...dateTime,
      description: 'When the current period ends: the next renewal, while active',
    },
    canceled_at: nullable(dateTime),
    created_at: dateTime,
  },
};

/** Named response schemas of the panel's orders and subscriptions endpoints. */
export const orderSchemas: Record<string, JsonSchema> = {
  PanelOrder: panelOrder,
  PanelOrderList: listOf('PanelOrder'),
  Subscription: subscription,
  SubscriptionList: listOf('Subscription'),
};
