import { dateTime, json, money, ref, standardErrors } from '../openapi/common.js';
import type { JsonSchema, OpenApiFragment } from '../openapi/types.js';

const catalogItem = (object: 'offer' | 'plan'): JsonSchema => ({
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
    'created_at',
    ...(object === 'plan' ? ['billing_cycle'] : []),
  ],
  properties: {
    object: { const: object },
    code: { type: 'string' },
    name: { type: 'string' },
    status: { type: 'string', enum: ['active', 'inactive'] },
    price: money,
    product: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'name'],
      properties: { id: { type: 'integer' }, name: { type: 'string' } },
    },
    url: { type: 'string', format: 'uri' },
    created_at: dateTime,
    ...(object === 'plan'
      ? {
          billing_cycle: { type: 'string', enum: ['weekly', 'monthly', 'quarterly', 'semiannual', 'yearly'] },
        }
      : {}),
  },
});

const list = (item: string): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required: ['object', 'data'],
  properties: { object: { const: 'list' }, data: { type: 'array', items: ref(item) } },
});

export const catalogOpenApi: OpenApiFragment = {
  schemas: {
    Offer: catalogItem('offer'),
    Plan: catalogItem('plan'),
    OfferList: list('Offer'),
    PlanList: list('Plan'),
  },
  paths: {
    '/v1/offers': {
      get: {
        operationId: 'listOffers',
        summary: "List the company's offers (all statuses; only active offers accept links)",
        tags: ['Catalog'],
        responses: { '200': json(ref('OfferList'), 'Offers, newest first'), ...standardErrors('429') },
      },
    },
    '/v1/plans': {
      get: {
        operationId: 'listPlans',
        summary: "List the company's subscription plans (all statuses; only active plans accept links)",
        tags: ['Catalog'],
        responses: { '200': json(ref('PlanList'), 'Plans, newest first'), ...standardErrors('429') },
      },
    },
  },
};
