import { dateTime, json, money, nullable, ref, standardErrors } from '../openapi/common.js';
import type { JsonSchema, OpenApiFragment, PathItem } from '../openapi/types.js';
import { BILLING_CYCLES } from '../shared/db/schema.js';
import { catalogOpenApi } from './openapi.js';

const tags = ['Catalog'];
const status: JsonSchema = { type: 'string', enum: ['active', 'inactive'] };
const amountIn: JsonSchema = {
  oneOf: [
    { type: 'string', pattern: '^\\d{1,10}(\\.\\d{1,2})?$' },
    { type: 'number', minimum: 0 },
  ],
  description: 'Decimal amount, at most two decimals ("97.00" or 97)',
};
const body = (properties: Record<string, JsonSchema>, required: string[]): JsonSchema => ({
  required: true,
  content: {
    'application/json': { schema: { type: 'object', additionalProperties: false, required, properties } },
  },
});
const param = (name: string, schema: JsonSchema): JsonSchema => ({
  name,
  in: 'path',
  required: true,
  schema,
});
const codeParam = param('code', { type: 'string' });

/** list + create on the collection, update on the item, for offers and plans alike. */
function priced(object: 'offer' | 'plan', schemaName: string): Record<string, PathItem> {
  const extra: Record<string, JsonSchema> =
    object === 'plan' ? { billing_cycle: { type: 'string', enum: [...BILLING_CYCLES] } } : {};
  const label = `${object}s`;
  const cap = object === 'offer' ? 'Offer' : 'Plan';
  return {
    [`/${label}`]: {
      get: {
        operationId: `listPanel${cap}s`,
        summary: `List the company's ${label} (all statuses), newest first`,
        tags,
        responses: {
          '200': json({ type: 'array', items: ref(schemaName) }, cap + 's'),
          ...standardErrors('402'),
        },
      },
      post: {
        operationId: `create${cap}`,
        summary: `Create an ${object} for an active product of the company`,
        tags,
        requestBody: body(
          { product_id: { type: 'integer' }, name: { type: 'string' }, price: amountIn, status, ...extra },
          ['product_id', 'name', 'price', ...Object.keys(extra)],
        ),
        responses: { '201': json(ref(schemaName), 'Created'), ...standardErrors('400', '402', '413') },
      },
    },
    [`/${label}/{code}`]: {
      patch: {
        operationId: `update${cap}`,
        summary: `Rename, reprice, deactivate or reactivate an ${object}; inactive ones accept no new links`,
        tags,
        parameters: [codeParam],
        requestBody: body({ name: { type: 'string' }, price: amountIn, status }, []),
        responses: { '200': json(ref(schemaName), 'Updated'), ...standardErrors('400', '402', '404', '413') },
      },
    },
  };
}

export const catalogPanelOpenApi: OpenApiFragment = {
  schemas: {
    Offer: catalogOpenApi.schemas?.Offer ?? {},
    Plan: catalogOpenApi.schemas?.Plan ?? {},
    Product: {
      type: 'object',
      additionalProperties: false,
      required: ['object', 'id', 'code', 'name', 'status', 'created_at', 'updated_at'],
      properties: {
        object: { const: 'product' },
        id: { type: 'integer' },
        code: { type: 'string', format: 'uuid' },
        name: { type: 'string' },
        status,
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
  },
  paths: {
    '/products': {
      get: {
        operationId: 'listProducts',
        summary: "List the company's products (all statuses), oldest first",
        tags,
        responses: {
          '200': json({ type: 'array', items: ref('Product') }, 'Products'),
          ...standardErrors('402'),
        },
      },
      post: {
        operationId: 'createProduct',
        summary: 'Create a product (integrations sending to all products pick it up)',
        tags,
        requestBody: body({ name: { type: 'string' }, status }, ['name']),
        responses: { '201': json(ref('Product'), 'Created'), ...standardErrors('400', '402', '413') },
      },
    },
    '/products/{id}': {
      patch: {
        operationId: 'updateProduct',
        summary: 'Rename, deactivate or reactivate a product',
        tags,
        parameters: [param('id', { type: 'integer', minimum: 1 })],
        requestBody: body({ name: { type: 'string' }, status }, []),
        responses: { '200': json(ref('Product'), 'Updated'), ...standardErrors('400', '402', '404', '413') },
      },
      delete: {
        operationId: 'removeProduct',
        summary: 'Remove a product that never sold, with its offers, plans and integration links',
        tags,
        parameters: [param('id', { type: 'integer', minimum: 1 })],
        responses: { '204': { description: 'Removed' }, ...standardErrors('400', '402', '404', '409') },
      },
    },
    ...priced('offer', 'Offer'),
    ...priced('plan', 'Plan'),
    '/coupons': {
      get: {
        operationId: 'listCoupons',
        summary: "List the company's coupons, newest first",
        tags,
        responses: {
          '200': json({ type: 'array', items: ref('Coupon') }, 'Coupons'),
          ...standardErrors('402'),
        },
      },
      post: {
        operationId: 'createCoupon',
        summary: 'Create a coupon with exactly one of percent_off and amount_off',
        tags,
        requestBody: body(
          {
            code: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,40}$' },
            percent_off: amountIn,
            amount_off: amountIn,
            status,
          },
          ['code'],
        ),
        responses: { '201': json(ref('Coupon'), 'Created'), ...standardErrors('400', '402', '409', '413') },
      },
    },
    '/coupons/{code}': {
      patch: {
        operationId: 'updateCoupon',
        summary: 'Deactivate or reactivate a coupon',
        tags,
        parameters: [codeParam],
        requestBody: body({ status }, ['status']),
        responses: { '200': json(ref('Coupon'), 'Updated'), ...standardErrors('400', '402', '404', '413') },
      },
    },
  },
};
