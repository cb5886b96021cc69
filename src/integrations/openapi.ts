import { EVENT_KINDS, LISTED_EVENT_KINDS } from '../events/kinds.js';
import { dateTime, nullable, ref } from '../shared/openapi/builders.js';
import type { JsonSchema } from '../shared/openapi/types.js';
import { INTEGRATION_TYPES } from './kinds/types.js';

/** Named response schemas of the integrations endpoints. */
export const integrationSchemas: Record<string, JsonSchema> = {
  Integration: {
    type: 'object',
    additionalProperties: false,
    required: [
      'id',
      'type',
      'is_active',
      'config',
      'events',
      'products',
      'send_to_all_products',
      'product_ids',
      'failure_count',
      'last_failure_at',
      'disabled_reason',
      'rate_limit_per_second',
      'filter',
      'created_at',
      'updated_at',
    ],
    properties: {
      id: { type: 'integer' },
      type: { type: 'string', enum: [...INTEGRATION_TYPES] },
      is_active: { type: 'boolean' },
      config: {
        type: 'object',
        properties: {
          headers: {
            type: 'object',
            maxProperties: 10,
            additionalProperties: { const: '••••' },
            description: 'Custom headers of a webhook-kind integration: their names, values always masked',
          },
          browser_pixel: { type: 'boolean', description: '`ad_pixel` with provider `meta`' },
        },
        additionalProperties: { type: ['string', 'number', 'boolean'] },
        description:
          'Read-only keys see `secret` masked (`whsec_…` + its last 4 characters); custom header values, an ' +
          '`ad_pixel`’s `access_token` or `api_secret`, and an `invoice`’s `token` are `••••` for everyone. ' +
          'An `invoice` integration: its settings (`aliquota` a number, `iss_retido` a boolean)',
      },
      events: { type: 'array', items: { type: 'string', enum: [...EVENT_KINDS] } },
      products: { type: 'array', items: ref('IntegrationProduct') },
      send_to_all_products: { type: 'boolean' },
      product_ids: {
        type: 'array',
        items: { type: 'integer' },
        description: 'Cache: active products linked with an active link, or every active product',
      },
      failure_count: { type: 'integer', minimum: 0 },
      last_failure_at: nullable(dateTime),
      disabled_reason: { type: 'string', enum: ['', 'auto_disabled'] },
      filter: {
        type: 'object',
        maxProperties: 10,
        additionalProperties: {
          anyOf: [
            { type: ['string', 'number', 'boolean'] },
            { type: 'array', items: { type: ['string', 'number', 'boolean'] } },
          ],
        },
        description:
          'Deliver only the events whose body matches every entry (dotted path → value, or list of values: any of); `{}`: no filter',
      },
      rate_limit_per_second: {
        ...nullable({ type: 'integer', minimum: 1, maximum: 1000 }),
        description: 'Most webhook attempts started per second across every worker process; null: no limit',
      },
      created_at: dateTime,
      updated_at: dateTime,
    },
  },
  IntegrationProduct: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'product', 'product_code', 'product_name', 'is_active', 'created_at'],
    properties: {
      id: { type: 'integer' },
      product: { type: 'integer', description: 'Product id' },
      product_code: { type: 'string', format: 'uuid' },
      product_name: { type: 'string' },
      is_active: { type: 'boolean' },
      created_at: dateTime,
    },
  },
  EventType: {
    type: 'object',
    additionalProperties: false,
    required: ['value', 'label'],
    properties: {
      value: { type: 'string', enum: LISTED_EVENT_KINDS.map((k) => k.value) },
      label: { type: 'string' },
    },
  },
  Alert: {
    oneOf: [
      {
        type: 'object',
        additionalProperties: false,
        required: ['pending'],
        properties: { pending: { const: false } },
      },
      {
        type: 'object',
        additionalProperties: false,
        required: ['pending', 'type'],
        description: '`oauth_url` is shown to owners and members, never to read-only keys',
        properties: {
          pending: { const: true },
          type: { const: 'gateway' },
          oauth_url: { type: 'string', format: 'uri' },
        },
      },
    ],
  },
};
