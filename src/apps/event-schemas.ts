/**
 * The webhook contract as OpenAPI 3.1 `webhooks`: one entry per event kind, each with the schema of
 * its body (envelope and `data`). The payments document carries them, so a receiver can generate its
 * types, and the test suite checks every delivery it receives against them.
 */
import {
  EVENT_KINDS,
  isIntegrationEventKind,
  isSubscriptionEventKind,
  LISTED_EVENT_KINDS,
  type EventKind,
  type OrderEventKind,
  type SubscriptionEventKind,
} from '../events/kinds.js';
import { WEBHOOK_KIND_TYPES } from '../integrations/types.js';
import { PAYMENT_DETAILS_FIELDS, paymentDetailsProperties } from '../orders/openapi.js';
import { customerSchema } from '../payment-links/openapi.js';
import { BILLING_CYCLES } from '../shared/enums/billing-cycles.js';
import { ORDER_STATUSES } from '../shared/enums/order-statuses.js';
import { PAYMENT_METHODS } from '../shared/enums/payment-methods.js';
import { SUBSCRIPTION_STATUSES } from '../shared/enums/subscription-statuses.js';
import { dateTime, money, nullable, ref } from '../shared/openapi/builders.js';
import type { JsonSchema, PathItem } from '../shared/openapi/types.js';
import { EVENT_ID_PATTERN, LINK_ID_PATTERN } from '../shared/ids.js';

type OrderKind = OrderEventKind;

/** When each kind is sent (also the webhook's description in the document). */
const WHEN: Record<EventKind, string> = {
  'order.paid':
    'The gateway confirmed a payment (also a late confirmation of an abandoned order), and every paid subscription ' +
    'renewal or retry (`external_reference` and `payment_link` null; `subscription.renewed` follows). Simulate `paid` ' +
    'sends a test one, and `renewal_paid` a test renewal.',
  'order.refunded': 'A paid order was refunded, in the panel or by the gateway. The link keeps its status.',
  'order.created':
    'A buyer submitted the checkout: a pending order, with what the buyer pays with (`pix` or `boleto` ' +
    'instructions, card `installments`), so the seller can send it on.',
  'order.expired':
    'A link expired unpaid (`order` null: no order exists). Simulate `expired` sends a test one with a synthetic order.',
  'order.failed':
    'The gateway reported a failed payment (the link stays payable), or a subscription renewal charge (or its retry) ' +
    'failed. Integrations subscribed to it also receive `order.payment_declined`.',
  'order.abandoned':
    'An order was still pending at its deadline: a Pix when its code expired, a boleto 3 days after its due date, ' +
    'anything else ORDER_ABANDON_AFTER_SECONDS after the checkout.',
  'lead.created':
    'The checkout form was submitted with an e-mail the company had not seen in that mode. Not filtered by product.',
  'order.payment_declined':
    'Simulate `failed` on a test link (test events only). Also delivered to integrations subscribed to `order.failed`.',
  'integration.failing':
    'Another integration of the company reached half of BREAKER_THRESHOLD consecutive failed attempts (once per ' +
    'streak of failures). Never sent to the integration it describes. Not filtered by product.',
  'integration.disabled':
    'The circuit breaker disabled another integration of the company (`disabled_reason: auto_disabled`). Never ' +
    'sent to the integration it describes. Not filtered by product.',
  'order.chargeback':
    'The gateway reported a chargeback of a paid order (now `charged_back`); its subscription, if any, is canceled ' +
    '(`subscription.canceled` follows, `cancel_reason: chargeback`).',
  'subscription.created':
    'The first purchase of a plan was paid (the gateway, or simulate `paid` on a test plan link): the subscription ' +
    "is `active`. It follows that purchase's `order.paid`.",
  'subscription.renewed':
    'A renewal charge, or a retry of a failed one, was paid: the subscription is `active` in its next period. It ' +
    "follows the renewal's `order.paid`.",
  'subscription.past_due':
    'A renewal charge failed (after its `order.failed`): the subscription is `past_due` and the charge is retried on ' +
    'RENEWAL_RETRY_SCHEDULE. Sent once per failed renewal, not for each failed retry.',
  'subscription.canceled':
    'The subscription ended: a cancel (at once, or at `current_period_end` when it was asked for then), the last ' +
    'retry of a renewal failed, or a chargeback. `cancel_reason` says which (`requested`, `payment_failed`, ' +
    '`chargeback`).',
};

/**
 * The order status each kind announces. A simulated or test event's synthetic order carries the same
 * status (for `order.expired`, `expired`: the simulated outcome, never a real order's status).
 */
const STATUS_OF: Record<OrderKind, string> = {
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
function orderOf(kind: OrderKind): JsonSchema {
  const status = { const: STATUS_OF[kind] };
  if (kind === 'order.expired') return { anyOf: [{ type: 'null' }, syntheticOrder(status)] };
  if (kind === 'order.payment_declined') return syntheticOrder(status);
  return { anyOf: [realOrder(status), syntheticOrder(status)] };
}

const nullableString = nullable({ type: 'string' });

/** The offer or the plan of the purchase (a plan with its subscription), never both. */
const offerOrPlan = (withSubscription: boolean): JsonSchema => ({
  oneOf: [
    {
      required: ['offer'],
      not: { anyOf: [{ required: ['plan'] }, { required: ['subscription'] }] },
    },
    {
      required: withSubscription ? ['plan', 'subscription'] : ['plan'],
      not: { required: ['offer'] },
    },
  ],
});

const schemas: Record<string, JsonSchema> = {
  EventProduct: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'name'],
    properties: { id: { type: 'integer' }, name: nullableString },
  },
  EventOffer: nullable({
    type: 'object',
    additionalProperties: false,
    required: ['code', 'name', 'price'],
    properties: { code: { type: 'string' }, name: { type: 'string' }, price: money },
  }),
  EventPlan: nullable({
    type: 'object',
    additionalProperties: false,
    required: ['code', 'name', 'price', 'billing_cycle'],
    properties: {
      code: { type: 'string' },
      name: { type: 'string' },
      price: money,
      billing_cycle: nullable({ type: 'string', enum: [...BILLING_CYCLES] }),
    },
  }),
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
  EventPurchase: {
    type: 'object',
    additionalProperties: false,
    required: ['tracking', 'payment_link'],
    description: 'Both null for purchases not made through a link (renewals, a checkout opened without one)',
    properties: {
      tracking: {
        type: 'object',
        additionalProperties: false,
        required: ['external_reference'],
        properties: { external_reference: nullableString },
      },
      payment_link: nullable({
        type: 'object',
        additionalProperties: false,
        required: ['code', 'external_reference', 'metadata'],
        properties: {
          code: { type: 'string', pattern: LINK_ID_PATTERN.source, description: 'The link id' },
          external_reference: nullableString,
          metadata: { type: 'object', additionalProperties: { type: 'string' } },
        },
      }),
    },
  },
  EventCustomer: {
    ...customerSchema,
    description: 'The buyer as entered at checkout (else the link prefill)',
  },
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
  IntegrationEventData: {
    type: 'object',
    additionalProperties: false,
    required: ['integration'],
    properties: {
      integration: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'type', 'url_host', 'failure_count', 'last_failure_at', 'disabled_reason'],
        description: 'The integration the event describes: its health, never its secret or full URL',
        properties: {
          id: { type: 'integer' },
          type: { type: 'string', enum: [...WEBHOOK_KIND_TYPES] },
          url_host: { ...nullableString, description: 'The host (and port) of its `config.url`' },
          failure_count: { type: 'integer', minimum: 1, description: 'Consecutive failed attempts' },
          last_failure_at: nullable(dateTime),
          disabled_reason: { type: 'string', enum: ['', 'auto_disabled'] },
        },
      },
    },
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
          document: nullable({ type: 'string', pattern: '^(\\d{11}|\\d{14})$' }),
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

/** `order.payment_declined` → `OrderPaymentDeclinedEvent` */
export const eventSchemaName = (kind: EventKind): string =>
  `${kind
    .split(/[._]/)
    .map((word) => `${word.charAt(0).toUpperCase()}${word.slice(1)}`)
    .join('')}Event`;

function dataOf(kind: EventKind): JsonSchema {
  if (kind === 'lead.created') return ref('LeadEventData');
  if (isIntegrationEventKind(kind)) return ref('IntegrationEventData');
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

function envelope(kind: EventKind): JsonSchema {
  const data = dataOf(kind);
  return {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'type', 'created_at', 'livemode', 'test', 'sandbox', 'data'],
    description: WHEN[kind],
    properties: {
      id: {
        type: 'string',
        pattern: EVENT_ID_PATTERN.source,
        description: 'Also the `webhook-id` header: the same on every retry',
      },
      type: { const: kind },
      created_at: dateTime,
      livemode: { type: 'boolean' },
      test: { type: 'boolean', description: 'Simulated and test events' },
      sandbox: { type: 'boolean', description: 'Always equal to `test`' },
      data,
    },
  };
}

/** Component schemas of the event bodies: the shared parts and one envelope per kind. */
export const eventSchemas: Record<string, JsonSchema> = {
  ...schemas,
  ...Object.fromEntries(EVENT_KINDS.map((kind) => [eventSchemaName(kind), envelope(kind)])),
};

const header = (name: string, description: string): JsonSchema => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
});

const LABELS: Partial<Record<EventKind, string>> = Object.fromEntries(
  LISTED_EVENT_KINDS.map((k) => [k.value, k.label]),
);

/** The document's `webhooks`: what this service POSTs to an integration's `config.url`, per kind. */
export function eventWebhooks(): Record<string, PathItem> {
  return Object.fromEntries(
    EVENT_KINDS.map((kind): [string, PathItem] => [
      kind,
      {
        post: {
          operationId: `${eventSchemaName(kind).replace(/^./, (c) => c.toLowerCase())}Webhook`,
          summary: `${kind}${LABELS[kind] ? ` (${LABELS[kind]})` : ''}`,
          description: WHEN[kind],
          tags: ['Webhooks'],
          security: [],
          parameters: [
            header('webhook-id', 'The event id (`evt_…`): the same on every retry; deduplicate on it'),
            header('webhook-timestamp', 'Unix seconds when this attempt was signed'),
            header(
              'webhook-signature',
              '`v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` (Standard Webhooks); ' +
                'space-separated when more than one secret signs',
            ),
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref(eventSchemaName(kind)) } },
          },
          responses: {
            '2XX': { description: 'Received: any 2xx ends the delivery' },
            '410': { description: 'Gone: no more retries of this delivery' },
            default: { description: 'Anything else (or no answer in time) is retried on the schedule' },
          },
        },
      },
    ]),
  );
}
