import { dateTime, json, nullable, ref, responseRef, standardErrors } from '../openapi/common.js';
import type { JsonSchema, OpenApiFragment } from '../openapi/types.js';
import { EVENT_KINDS, INTEGRATION_TYPES, PANEL_EVENT_KINDS } from './kinds.js';

const tags = ['Integrations'];
const idParam = (name: string, description: string): JsonSchema => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'integer', minimum: 1, maximum: 2147483647 },
});
const integrationId = idParam('id', 'Integration id');
const productId = idParam('product_id', 'Product id (not the link id)');
const noContent = (description: string): JsonSchema => ({ description });

const integrationBody = (required: string[]): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required,
  properties: {
    type: { type: 'string', enum: [...INTEGRATION_TYPES] },
    config: {
      type: 'object',
      description:
        'Webhook-kind types (`webhook`, `automation_webhook`, `notification_topic`, `database_webhook`): ' +
        '`url` (https, public address) and optional `secret` (generated as `whsec_…` when absent). ' +
        'Other types: free-form string values, may be empty.',
      additionalProperties: { type: 'string' },
    },
    events: { type: 'array', uniqueItems: true, items: { type: 'string', enum: [...EVENT_KINDS] } },
    is_active: { type: 'boolean', default: true },
    send_to_all_products: { type: 'boolean', default: false },
  },
});

const jsonBody = (schema: JsonSchema): JsonSchema => ({
  required: true,
  content: { 'application/json': { schema } },
});

export const integrationsOpenApi: OpenApiFragment = {
  schemas: {
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
        'created_at',
        'updated_at',
      ],
      properties: {
        id: { type: 'integer' },
        type: { type: 'string', enum: [...INTEGRATION_TYPES] },
        is_active: { type: 'boolean' },
        config: { type: 'object', additionalProperties: { type: 'string' } },
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
        value: { type: 'string', enum: PANEL_EVENT_KINDS.map((k) => k.value) },
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
          required: ['pending', 'type', 'oauth_url'],
          properties: {
            pending: { const: true },
            type: { const: 'gateway' },
            oauth_url: { type: 'string', format: 'uri' },
          },
        },
      ],
    },
  },
  paths: {
    // Listed before /integrations/{id} so the fixed segments are matched first.
    '/integrations/events': {
      get: {
        operationId: 'listEventTypes',
        summary: 'The event kinds of the panel list, with their labels',
        tags,
        responses: {
          '200': json({ type: 'array', items: ref('EventType') }, 'Event type descriptors'),
          ...standardErrors('402'),
        },
      },
    },
    '/integrations/alerts': {
      get: {
        operationId: 'getIntegrationAlert',
        summary: 'Whether a gateway integration awaits its OAuth authorization',
        tags,
        responses: { '200': json(ref('Alert'), 'The alert'), ...standardErrors('402') },
      },
    },
    '/integrations/oauth/authorize': {
      get: {
        operationId: 'authorizeGatewayOauth',
        summary: "Stand-in for the gateway's consent page (dev gateway only): redirects to the callback",
        tags,
        security: [],
        parameters: [{ name: 'state', in: 'query', required: true, schema: { type: 'string' } }],
        responses: {
          '302': noContent('Redirect to the OAuth callback with a code'),
          '400': responseRef('ValidationError'),
          '404': responseRef('NotFound'),
          '500': responseRef('ServerError'),
        },
      },
    },
    '/integrations/oauth/callback': {
      get: {
        operationId: 'completeGatewayOauth',
        summary: 'OAuth redirect target: completes the pending gateway named by the single-use state',
        tags,
        security: [],
        parameters: [
          { name: 'state', in: 'query', required: true, schema: { type: 'string' } },
          { name: 'code', in: 'query', required: true, schema: { type: 'string' } },
        ],
        responses: {
          '200': json(ref('Alert'), 'Authorization recorded; nothing pending'),
          '400': responseRef('ValidationError'),
          '500': responseRef('ServerError'),
        },
      },
    },
    '/integrations/': {
      get: {
        operationId: 'listIntegrations',
        summary: "List the company's integrations, oldest first",
        tags,
        parameters: [
          {
            name: 'type',
            in: 'query',
            required: false,
            description: 'Only integrations of this type',
            schema: { type: 'string', enum: [...INTEGRATION_TYPES] },
          },
        ],
        responses: {
          '200': json({ type: 'array', items: ref('Integration') }, 'Integrations'),
          ...standardErrors('400', '402'),
        },
      },
      post: {
        operationId: 'createIntegration',
        summary: 'Create an integration',
        tags,
        requestBody: jsonBody(integrationBody(['type', 'config', 'events'])),
        responses: {
          '201': json(ref('Integration'), 'Created'),
          ...standardErrors('400', '402', '409', '413'),
        },
      },
    },
    '/integrations/{id}': {
      get: {
        operationId: 'getIntegration',
        summary: 'One integration',
        tags,
        parameters: [integrationId],
        responses: {
          '200': json(ref('Integration'), 'The integration'),
          ...standardErrors('400', '402', '404'),
        },
      },
      patch: {
        operationId: 'updateIntegration',
        summary: 'Update an integration (creation fields, all optional); is_active true re-enables',
        tags,
        parameters: [integrationId],
        requestBody: jsonBody(integrationBody([])),
        responses: {
          '200': json(ref('Integration'), 'Updated'),
          ...standardErrors('400', '402', '404', '409', '413'),
        },
      },
      delete: {
        operationId: 'deleteIntegration',
        summary: 'Remove an integration',
        tags,
        parameters: [integrationId],
        responses: { '204': noContent('Removed'), ...standardErrors('400', '402', '404') },
      },
    },
    '/integrations/{id}/products': {
      get: {
        operationId: 'listIntegrationProducts',
        summary: 'Products linked to the integration (active or not)',
        tags,
        parameters: [integrationId],
        responses: {
          '200': json({ type: 'array', items: ref('IntegrationProduct') }, 'Product links'),
          ...standardErrors('400', '402', '404'),
        },
      },
      post: {
        operationId: 'linkIntegrationProduct',
        summary: "Link one of the company's products",
        tags,
        parameters: [integrationId],
        requestBody: jsonBody({
          type: 'object',
          additionalProperties: false,
          required: ['product_id'],
          properties: { product_id: { type: 'integer' } },
        }),
        responses: {
          '201': json(ref('IntegrationProduct'), 'Linked'),
          ...standardErrors('400', '402', '404', '409', '413'),
        },
      },
    },
    '/integrations/{id}/products/{product_id}': {
      patch: {
        operationId: 'updateIntegrationProduct',
        summary: 'Activate or deactivate a product link',
        tags,
        parameters: [integrationId, productId],
        requestBody: jsonBody({
          type: 'object',
          additionalProperties: false,
          required: ['is_active'],
          properties: { is_active: { type: 'boolean' } },
        }),
        responses: {
          '200': json(ref('IntegrationProduct'), 'Updated link'),
          ...standardErrors('400', '402', '404', '413'),
        },
      },
      delete: {
        operationId: 'unlinkIntegrationProduct',
        summary: 'Unlink a product',
        tags,
        parameters: [integrationId, productId],
        responses: { '204': noContent('Unlinked'), ...standardErrors('400', '402', '404') },
      },
    },
  },
};
