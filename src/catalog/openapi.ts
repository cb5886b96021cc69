import { BILLING_CYCLES } from '../shared/enums/billing-cycles.js';
import { dateTime, money, nullable, ref } from '../shared/openapi/builders.js';
import type { JsonSchema } from '../shared/openapi/types.js';
import type { ItemKind } from './repository.js';

const status: JsonSchema = { type: 'string', enum: ['active', 'inactive'] };

const item = (kind: ItemKind): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required: [
    'object',
    'code',
    'name',
    'status',
    'price',
    'product',
    'url',
    'guarantee_days',
    'created_at',
    ...(kind === 'plan' ? ['billing_cycle'] : []),
  ],
  properties: {
    object: { const: kind },
    code: { type: 'string' },
    name: { type: 'string' },
    status,
    price: money,
    product: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'name'],
      properties: { id: { type: 'integer' }, name: { type: 'string' } },
    },
    url: { type: 'string', format: 'uri' },
    guarantee_days: {
      type: 'integer',
      minimum: 7,
      maximum: 30,
      description: 'Days after payment within which the buyer may ask for a refund from their own page',
    },
    created_at: dateTime,
    ...(kind === 'plan' ? { billing_cycle: { type: 'string', enum: [...BILLING_CYCLES] } } : {}),
  },
});

const list = (name: string): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required: ['object', 'data'],
  properties: { object: { const: 'list' }, data: { type: 'array', items: ref(name) } },
});

/** Named response schemas of the catalog (payments and panel APIs). */
export const catalogSchemas: Record<string, JsonSchema> = {
  Offer: item('offer'),
  Plan: item('plan'),
  OfferList: list('Offer'),
  PlanList: list('Plan'),
  Product: {
    type: 'object',
    additionalProperties: false,
    required: ['object', 'id', 'code', 'name', 'status', 'content', 'created_at', 'updated_at'],
    properties: {
      object: { const: 'product' },
      id: { type: 'integer' },
      code: { type: 'string', format: 'uuid' },
      name: { type: 'string' },
      status,
      content: {
        type: 'array',
        maxItems: 50,
        description:
          "What buying the product gives access to, shown on the buyer's page to a buyer who holds access " +
          '(a `members_area` integration with the builtin provider)',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['title', 'url', 'description'],
          properties: {
            title: { type: 'string' },
            url: { type: 'string', format: 'uri' },
            description: { type: 'string' },
          },
        },
      },
      created_at: dateTime,
      updated_at: dateTime,
    },
  },
  Coupon: {
    type: 'object',
    additionalProperties: false,
    required: ['object', 'code', 'percent_off', 'amount_off', 'status', 'created_at'],
    properties: {
      object: { const: 'coupon' },
      code: { type: 'string' },
      percent_off: nullable(money),
      amount_off: nullable(money),
      status,
      created_at: dateTime,
    },
  },
};

/** `Offer` or `Plan`, the component name of a kind. */
export const itemSchemaName = (kind: ItemKind): string => (kind === 'offer' ? 'Offer' : 'Plan');
