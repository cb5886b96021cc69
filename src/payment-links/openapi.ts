import { dateTime, json, money, nullable, ref, standardErrors } from '../openapi/common.js';
import type { JsonSchema, OpenApiFragment } from '../openapi/types.js';
import { LINK_STATUSES } from '../shared/db/schema.js';
import { LIMITS } from './schemas.js';

const string: JsonSchema = { type: 'string' };
const nullableString = nullable(string);

const order: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['code', 'status', 'amount', 'payment_method', 'paid_at'],
  properties: {
    code: { type: 'string', format: 'uuid' },
    status: { type: 'string', enum: ['pending', 'paid', 'refunded', 'failed', 'expired'] },
    amount: money,
    payment_method: nullable({ type: 'string', enum: ['credit_card', 'pix', 'boleto'] }),
    paid_at: nullable(dateTime),
  },
};

const paymentLink: JsonSchema = {
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
    'metadata',
    'coupon_code',
    'single_use',
    'expires_at',
    'paid_at',
    'canceled_at',
    'created_at',
    'order',
  ],
  properties: {
    object: { const: 'payment_link' },
    id: { type: 'string', pattern: '^plink_[0-9A-Za-z]{24}$' },
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
    customer: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'email', 'phone', 'document'],
      properties: {
        name: nullableString,
        email: nullableString,
        phone: nullable({ type: 'string', pattern: '^\\+\\d{10,15}$' }),
        document: nullable({ type: 'string', pattern: '^(\\d{11}|\\d{14})$' }),
      },
    },
    external_reference: nullable({ type: 'string', maxLength: LIMITS.externalReference }),
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
  },
};

const createBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'Exactly one of `offer_code` and `plan_code`. Unknown fields are rejected.',
  properties: {
    offer_code: { type: 'string', description: 'Code of an active offer of your company' },
    plan_code: { type: 'string', description: 'Code of an active plan of your company' },
    customer: nullable({
      type: 'object',
      additionalProperties: false,
      description: 'Prefills the checkout',
      properties: {
        name: nullable({ type: 'string', maxLength: LIMITS.customerName }),
        email: nullable({ type: 'string', format: 'email' }),
        phone: nullable({
          type: 'string',
          description:
            'Country code + area code + number, 10–15 digits; separators allowed; returned as `+digits`',
          examples: ['+55 (11) 98765-4321'],
        }),
        document: nullable({
          type: 'string',
          description: 'CPF (11 digits) or CNPJ (14 digits) with valid check digits; returned as digits only',
        }),
      },
    }),
    external_reference: nullable({ type: 'string', minLength: 1, maxLength: LIMITS.externalReference }),
    metadata: {
      type: 'object',
      maxProperties: LIMITS.metadataPairs,
      propertyNames: { minLength: 1, maxLength: LIMITS.metadataKey },
      additionalProperties: { type: 'string', maxLength: LIMITS.metadataValue },
    },
    coupon_code: nullable({ type: 'string', description: 'An active coupon of your company' }),
    single_use: { type: 'boolean', default: true },
    expires_at: {
      type: 'string',
      format: 'date-time',
      description: `With an offset; in the future and at most ${LIMITS.maxValidityDays} days ahead. Default: ${LIMITS.defaultValidityDays} days after creation`,
    },
  },
};

const rateLimitHeaders: JsonSchema = {
  'RateLimit-Limit': {
    description: 'Requests allowed per minute by the limit closest to running out',
    schema: { type: 'integer' },
  },
  'RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer' } },
};

const withHeaders = (response: JsonSchema, extra: JsonSchema = {}): JsonSchema => ({
  ...response,
  headers: { ...rateLimitHeaders, ...extra },
});

const linkResponse = (description: string, extra?: JsonSchema): JsonSchema =>
  withHeaders(json(ref('PaymentLink'), description), extra);

const unsupportedEncoding = {
  '415': json(ref('Error'), 'Request body in an unsupported charset or encoding'),
};

const idParam: JsonSchema = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: 'Link id',
};
const tags = ['Payment links'];

export const paymentLinksOpenApi: OpenApiFragment = {
  schemas: {
    PaymentLink: paymentLink,
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
    CreatePaymentLink: createBody,
  },
  paths: {
    '/v1/payment-links': {
      post: {
        operationId: 'createPaymentLink',
        summary: 'Create a payment link for one offer or one plan',
        tags,
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            schema: { type: 'string', minLength: 1, maxLength: LIMITS.idempotencyKey },
            description:
              'Scoped to your company and mode. The same key with the same body returns the original link (200, ' +
              '`Idempotent-Replayed: true`); with another body, 409.',
          },
        ],
        requestBody: {
          required: false,
          content: { 'application/json': { schema: ref('CreatePaymentLink') } },
        },
        responses: {
          '201': linkResponse('Created (`status` active, `order` null)'),
          '200': linkResponse('Idempotent replay: the link created earlier with this Idempotency-Key', {
            'Idempotent-Replayed': { schema: { const: 'true' } },
          }),
          ...standardErrors('400', '409', '413', '429'),
          ...unsupportedEncoding,
        },
      },
      get: {
        operationId: 'listPaymentLinks',
        summary: 'List payment links of your company in the key’s mode, newest first',
        tags,
        parameters: [
          {
            name: 'external_reference',
            in: 'query',
            schema: { type: 'string', maxLength: LIMITS.externalReference },
          },
          { name: 'status', in: 'query', schema: { type: 'string', enum: [...LINK_STATUSES] } },
          {
            name: 'limit',
            in: 'query',
            schema: { type: 'integer', minimum: 1, maximum: LIMITS.listMax, default: LIMITS.listDefault },
          },
          {
            name: 'starting_after',
            in: 'query',
            schema: { type: 'string' },
            description: '`id` of the last link of the previous page',
          },
        ],
        responses: {
          '200': withHeaders(json(ref('PaymentLinkList'), 'One page of links')),
          ...standardErrors('400', '429'),
        },
      },
    },
    '/v1/payment-links/{id}': {
      get: {
        operationId: 'getPaymentLink',
        summary: 'Get a payment link with its current status and order',
        tags,
        parameters: [idParam],
        responses: { '200': linkResponse('The link'), ...standardErrors('404', '429') },
      },
    },
    '/v1/payment-links/{id}/cancel': {
      post: {
        operationId: 'cancelPaymentLink',
        summary: 'Cancel an active link (a canceled link is returned unchanged; paid or expired: 409)',
        tags,
        parameters: [idParam],
        responses: {
          '200': linkResponse('The canceled link'),
          ...standardErrors('400', '404', '409', '413', '429'),
          ...unsupportedEncoding,
        },
      },
    },
  },
};
