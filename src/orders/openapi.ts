import { campaignSchema, customerSchema } from '../payment-links/openapi.js';
import { BILLING_CYCLES } from '../shared/enums/billing-cycles.js';
import { ORDER_STATUSES } from '../shared/enums/order-statuses.js';
import { PAYMENT_METHODS } from '../shared/enums/payment-methods.js';
import { CANCEL_REASONS, SUBSCRIPTION_STATUSES } from '../shared/enums/subscription-statuses.js';
import { dateTime, money, nullable, ref } from '../shared/openapi/builders.js';
import type { JsonSchema } from '../shared/openapi/types.js';
import { LINK_ID_PATTERN } from '../shared/ids.js';

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

/**
 * How an order is paid, beside its status: card instalments and the gateway's instructions. The
 * same three fields on the panel order and on `data.order` of order events.
 */
export const paymentDetailsProperties: Record<string, JsonSchema> = {
  installments: nullable({
    type: 'integer',
    minimum: 1,
    maximum: 12,
    description: 'Card instalments, without interest; null for Pix and boleto',
  }),
  pix: nullable({
    type: 'object',
    additionalProperties: false,
    required: ['copy_paste', 'expires_at'],
    description: 'A Pix order’s instructions: null for other methods, or when the gateway gave none',
    properties: {
      copy_paste: {
        type: 'string',
        description: 'The BR Code ("Pix copia e cola"), also what the checkout’s QR code encodes',
      },
      expires_at: {
        ...dateTime,
        description: 'When the code expires; a still-pending order is abandoned then',
      },
    },
  }),
  boleto: nullable({
    type: 'object',
    additionalProperties: false,
    required: ['digitable_line', 'barcode', 'due_date', 'url'],
    description: 'A boleto order’s instructions: null for other methods, or when the gateway gave none',
    properties: {
      digitable_line: {
        type: 'string',
        pattern: '^\\d{47}$',
        description: 'The linha digitável, digits only',
      },
      barcode: { type: 'string', pattern: '^\\d{44}$', description: 'The 44 digits of the barcode' },
      due_date: {
        type: 'string',
        format: 'date',
        description: 'Due date (Brasília); a still-pending order is abandoned 3 days after it',
      },
      url: {
        type: 'string',
        format: 'uri',
        description: 'The printable boleto: `{checkout_url}/orders/<code>/boleto`',
      },
    },
  }),
};
export const PAYMENT_DETAILS_FIELDS = Object.keys(paymentDetailsProperties);

const panelOrder: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'object',
    'code',
    'status',
    'amount',
    'fees',
    'net_amount',
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
    'refund_requested_by',
    'refund_reason',
    ...PAYMENT_DETAILS_FIELDS,
    'tracking',
    'emails',
    'invoice',
  ],
  properties: {
    object: { const: 'order' },
    code: { type: 'string', format: 'uuid' },
    status: {
      type: 'string',
      enum: [...ORDER_STATUSES],
      description:
        '`pending` until the gateway answers; `paid` or `failed` then; `refunded` after a refund; `abandoned` ' +
        'when still pending at its deadline (a Pix’s expiry, 3 days after a boleto’s due date, else ' +
        'ORDER_ABANDON_AFTER_SECONDS; a late payment still makes it `paid`); `charged_back` when the gateway ' +
        'reports a chargeback of a paid order',
    },
    amount: money,
    fees: {
      type: 'object',
      additionalProperties: false,
      required: ['platform', 'gateway'],
      description:
        'What was taken from the amount: `platform`, the deployment’s platform fee the PSP split off ' +
        '(Mercado Pago’s `application_fee`); `gateway`, what the PSP kept as its own fee (Mercado Pago’s ' +
        '`fee_details`, known once the payment is approved). "0.00" where none was taken or none is known yet',
      properties: { platform: money, gateway: money },
    },
    net_amount: { ...money, description: 'The amount less both fees: what reaches the seller' },
    payment_method: nullable({ type: 'string', enum: [...PAYMENT_METHODS] }),
    livemode: { type: 'boolean' },
    link_id: nullable({
      type: 'string',
      pattern: LINK_ID_PATTERN.source,
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
    refund_requested_by: nullable({
      type: 'string',
      enum: ['seller', 'buyer'],
      description:
        'Who asked for its refund: `seller` (the panel or the dashboard), `buyer` (the right of regret on the ' +
        'buyer’s page). Set with the refund, or when a buyer’s refund is queued while the gateway is down ' +
        '(the order stays `paid` until the gateway refunds it); null otherwise and for refunds the gateway reported',
    }),
    refund_reason: nullable({
      type: 'string',
      maxLength: 500,
      description: 'The reason the buyer gave when asking for the refund (optional on the buyer’s page); else null',
    }),
    ...paymentDetailsProperties,
    tracking: campaignSchema(
      'The campaign of the sale: the checkout address’s `utm_*`, `src` and `sck`, else its link’s ' +
        '(null where unknown). Ad click ids, cookies, IP and user agent are kept for the company’s ' +
        '`ad_pixel` integrations and not shown',
    ),
    emails: {
      type: 'array',
      items: ref('OrderEmail'),
      description: 'The e-mails sent to the buyer about this order, oldest first (none in test mode)',
    },
    invoice: nullable({
      ...ref('OrderInvoice'),
      description: 'Its service invoice (NFS-e), when an invoice integration covers its product; else null',
    }),
  },
};

/** The panel's Subscription object; the subscription events carry it as `data.subscription`. */
export const subscriptionSchema: JsonSchema = {
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
    'cancel_at_period_end',
    'cancel_reason',
    'created_at',
  ],
  properties: {
    object: { const: 'subscription' },
    id: { type: 'integer' },
    status: {
      type: 'string',
      enum: [...SUBSCRIPTION_STATUSES],
      description:
        '`active` renews at each period end; `past_due` when a renewal charge failed and is being retried ' +
        '(RENEWAL_RETRY_SCHEDULE); `canceled` never renews again',
    },
    livemode: { type: 'boolean' },
    plan_code: { type: 'string' },
    billing_cycle: { type: 'string', enum: [...BILLING_CYCLES] },
    current_period_end: {
      ...dateTime,
      description:
        'When the current (last paid) period ends: the next renewal, while active; while past_due, the end that ' +
        'the failing renewal is trying to extend',
    },
    canceled_at: nullable(dateTime),
    cancel_at_period_end: {
      type: 'boolean',
      description:
        'Canceled at `current_period_end` instead of renewing (a cancel with `at_period_end: true`)',
    },
    cancel_reason: nullable({
      type: 'string',
      enum: [...CANCEL_REASONS],
      description:
        'Why it was canceled: `requested` (a cancel, at once or at the period end), `payment_failed` (the last ' +
        'retry of a renewal failed) or `chargeback` (a paid order of it was charged back); null until canceled',
    }),
    created_at: dateTime,
  },
};

/** Named response schemas of the panel's orders and subscriptions endpoints. */
export const orderSchemas: Record<string, JsonSchema> = {
  PanelOrder: panelOrder,
  PanelOrderList: listOf('PanelOrder'),
  Subscription: subscriptionSchema,
  SubscriptionList: listOf('Subscription'),
};
