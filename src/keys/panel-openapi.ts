import { dateTime, json, nullable, ref, standardErrors } from '../openapi/common.js';
import type { JsonSchema, OpenApiFragment } from '../openapi/types.js';

const tags = ['API keys'];

const keyProperties: Record<string, JsonSchema> = {
  id: { type: 'integer' },
  name: { type: 'string' },
  kind: { type: 'string', enum: ['payments', 'read_only'] },
  test: { type: 'boolean' },
  prefix: { type: 'string', description: 'First 12 characters of the key' },
  last4: { type: 'string', description: 'Last 4 characters of the key' },
  created_at: dateTime,
  last_used_at: nullable(dateTime),
  revoked_at: nullable(dateTime),
};
const keyRequired = Object.keys(keyProperties);

export const keysPanelOpenApi: OpenApiFragment = {
  schemas: {
    ApiKey: { type: 'object', additionalProperties: false, required: keyRequired, properties: keyProperties },
    CreatedApiKey: {
      type: 'object',
      additionalProperties: false,
      required: [...keyRequired, 'key'],
      properties: {
        ...keyProperties,
        key: {
          type: 'string',
          pattern: '^vk_(test|live)_[0-9A-Za-z]{32,}$',
          description: 'Full value, shown once',
        },
      },
    },
  },
  paths: {
    '/api-keys': {
      get: {
        operationId: 'listApiKeys',
        summary: "The company's keys, masked (revoked ones included)",
        tags,
        responses: { '200': json({ type: 'array', items: ref('ApiKey') }, 'Keys'), ...standardErrors('402') },
      },
      post: {
        operationId: 'createApiKey',
        summary: 'Create a key (owner only); the full value is returned this once',
        tags,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                required: ['name', 'kind'],
                properties: {
                  name: { type: 'string', minLength: 1, maxLength: 100 },
                  kind: { type: 'string', enum: ['payments', 'read_only'] },
                  test: { type: 'boolean', default: false },
                },
              },
            },
          },
        },
        responses: {
          '201': json(ref('CreatedApiKey'), 'Created'),
          ...standardErrors('400', '402', '409', '413'),
        },
      },
    },
    '/api-keys/{id}': {
      delete: {
        operationId: 'revokeApiKey',
        summary: 'Revoke a key (owner only); refused from the next request on',
        tags,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
        responses: { '204': { description: 'Revoked' }, ...standardErrors('400', '402', '404') },
      },
    },
  },
};
