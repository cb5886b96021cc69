import { dateTime, json, money, nullable, ref } from '../shared/openapi/builders.js';
import type { JsonSchema } from '../shared/openapi/types.js';
import { LINK_STATUSES } from '../shared/enums/link-statuses.js';
import { ORDER_STATUSES } from '../shared/enums/order-statuses.js';
import { PAYMENT_METHODS } from '../shared/enums/payment-methods.js';
import { CHECKOUT_OPTIONS, LIMITS } from './schemas.js';
import { LINK_ID_PATTERN } from '../shared/ids.js';
import { CAMPAIGN_KEYS, TRACKING_VALUE_MAX } from '../shared/tracking.js';

const string: JsonSchema = { type: 'string' };
const nullableString = nullable(string);

const order: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['code', 'status', 'amount', 'payment_method', 'paid_at'],
  properties: {
    code: { type: 'string', format: 'uuid' },
    status: { type: 'string', enum: [...ORDER_STATUSES] },
    amount: money,
    payment_method: nullable({ type: 'string', enum: [...PAYMENT_METHODS] }),
    paid_at: nullable(dateTime),
  },
};

/** A buyer's contact data as the API returns it (phone `+digits`, document without separators, a CNPJ's letters upper-cased). */
export const customerSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'email', 'phone', 'document'],
  properties: {
    name: nullableString,
    email: nullableString,
    phone: nullable({ type: 'string', pattern: '^\\+\\d{10,15}$' }),
    document: nullable({ type: 'string', pattern: '^(\\d{11}|[0-9A-Z]{12}\\d{2})$' }),
  },
};

/**
 * The campaign keys of a link or an order (`utm_*`, `src`, `sck`), each null where unknown; with
 * `extra`, more of them (an event's `external_reference`).
 */
export const campaignSchema = (description: string, extra: Record<string, JsonSchema> = {}): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required: [...Object.keys(extra), ...CAMPAIGN_KEYS],
  description,
  properties: {
    ...extra,
    ...Object.fromEntries(
      CAMPAIGN_KEYS.map((key) => [key, nullable({ type: 'string', maxLength: TRACKING_VALUE_MAX })]),
    ),
  },
});

/** The PaymentLink as the payments API returns it (simulate extends it). */
export const paymentLinkSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'object',
    'id',
    'livemode',
    'status',
    'type',
    'offer_code',
    'plan_code',
    'url',
    'short_url',
    'customer',
    'external_reference',
    'tracking',
    'metadata',
    'coupon_code',
    'single_use',
    'expires_at',
    'paid_at',
    'canceled_at',
    'created_at',
    'order',
    'payment_methods',
    'pix_expires_in_seconds',
    'boleto_due_days',
    'max_installments',
    'success_url',
  ],
  properties: {
    object: { const: 'payment_link' },
    id: { type: 'string', pattern: LINK_ID_PATTERN.source },
    livemode: { type: 'boolean', description: '`false` for links created with a test key' },
    status: { type: 'string', enum: [...LINK_STATUSES] },
    type: { type: 'string', enum: ['offer', 'plan'] },
    offer_code: nullableString,
    plan_code: nullableString,
    url: {
      type: 'string',
      format: 'uri',
      description:
        'Live: `{checkout_url}/<offer_code or plan_code>?plink=<id>`; test: `{checkout_url}/teste/<id>`',
    },
    short_url: { type: 'string', format: 'uri', description: '`{checkout_url}/r/<short_code>`' },
    customer: customerSchema,
    external_reference: nullable({ type: 'string', maxLength: LIMITS.externalReference }),
    tracking: campaignSchema('The campaign sent when the link was created (null where not sent)'),
    metadata: {
      type: 'object',
      additionalProperties: { type: 'string' },
      maxProperties: LIMITS.metadataPairs,
    },
    coupon_code: nullableString,
    single_use: { type: 'boolean' },
    expires_at: nullable({ ...dateTime, description: 'UTC' }),
    paid_at: nullable(dateTime),
    canceled_at: nullable(dateTime),
    created_at: dateTime,
    order: nullable(ref('Order')),
    payment_methods: {
      type: 'array',
      items: { type: 'string', enum: [...PAYMENT_METHODS] },
      minItems: 1,
      uniqueItems: true,
      description: 'What the checkout offers, in the order `credit_card`, `pix`, `boleto`',
    },
    pix_expires_in_seconds: {
      type: 'integer',
      minimum: CHECKOUT_OPTIONS.pixExpiresInSeconds.min,
      maximum: CHECKOUT_OPTIONS.pixExpiresInSeconds.max,
    },
    boleto_due_days: {
      type: 'integer',
      minimum: CHECKOUT_OPTIONS.boletoDueDays.min,
      maximum: CHECKOUT_OPTIONS.boletoDueDays.max,
    },
    max_installments: {
      type: 'integer',
      minimum: CHECKOUT_OPTIONS.maxInstallments.min,
      maximum: CHECKOUT_OPTIONS.maxInstallments.max,
    },
    success_url: nullable({ type: 'string', format: 'uri', maxLength: CHECKOUT_OPTIONS.successUrlMaxLength }),
  },
} satisfies JsonSchema & { required: string[]; properties: Record<string, JsonSchema> };

/** Named response schemas of the payment-links endpoints. */
export const paymentLinkSchemas: Record<string, JsonSchema> = {
  PaymentLink: paymentLinkSchema,
  Order: order,
  PaymentLinkList: {
    type: 'object',
    additionalProperties: false,
    required: ['object', 'data', 'has_more'],
    properties: {
      object: { const: 'list' },
      data: { type: 'array', items: ref('PaymentLink') },
      has_more: { type: 'boolean' },
    },
  },
};

export const paymentLinkResponse = (description: string): JsonSchema => json(ref('PaymentLink'), description);
