import { dateTime, json, nullable, ref, standardErrors } from '../openapi/common.js';
import type { JsonSchema, OpenApiFragment } from '../openapi/types.js';

const attempt: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['attempt', 'requested_at', 'status_code', 'error', 'duration_ms', 'response_body'],
  properties: {
    attempt: { type: 'integer', minimum: 1 },
    requested_at: dateTime,
    status_code: nullable({ type: 'integer' }),
    error: nullable({ type: 'string', description: 'Network error, timeout, refused target, or `HTTP <status>`' }),
    duration_ms: { type: 'integer', minimum: 0 },
    response_body: nullable({ type: 'string', description: 'The receiver’s response, truncated to 20 kB' }),
  },
};

const delivery: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'object',
    'id',
    'event_id',
    'event_type',
    'integration_id',
    'status',
    'attempts',
    'next_attempt_at',
    'last_status_code',
    'last_error',
    'created_at',
    'updated_at',
    'attempt_history',
  ],
  properties: {
    object: { const: 'delivery' },
    id: { type: 'integer' },
    event_id: { type: 'string', description: 'Also the `webhook-id` header of every attempt' },
    event_type: { type: 'string' },
    integration_id: { type: 'integer' },
    status: {
      type: 'string',
      enum: ['pending', 'succeeded', 'failed', 'skipped'],
      description: '`skipped`: the integration was inactive, nothing was sent',
    },
    attempts: { type: 'integer', minimum: 0 },
    next_attempt_at: nullable(dateTime),
    last_status_code: nullable({ type: 'integer' }),
    last_error: nullable({ type: 'string' }),
    created_at: dateTime,
    updated_at: dateTime,
    attempt_history: { type: 'array', items: ref('DeliveryAttempt') },
  },
};

const integrationId: JsonSchema = { name: 'id', in: 'path', required: true, schema: { type: 'integer' }, description: 'Integration id' };
const tags = ['Deliveries'];

export const deliveriesOpenApi: OpenApiFragment = {
  schemas: {
    Delivery: delivery,
    DeliveryAttempt: attempt,
    DeliveryList: {
      type: 'object',
      additionalProperties: false,
      required: ['object', 'data', 'has_more'],
      properties: { object: { const: 'list' }, data: { type: 'array', items: ref('Delivery') }, has_more: { type: 'boolean' } },
    },
  },
  paths: {
    '/integrations/{id}/deliveries': {
      get: {
        operationId: 'listIntegrationDeliveries',
        summary: 'Deliveries of an integration with every attempt, newest first',
        tags,
        parameters: [
          integrationId,
          { name: 'status', in: 'query', schema: { type: 'string', enum: ['pending', 'succeeded', 'failed', 'skipped'] } },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
          {
            name: 'starting_after',
            in: 'query',
            schema: { type: 'integer' },
            description: '`id` of the last delivery of the previous page',
          },
        ],
        responses: { '200': json(ref('DeliveryList'), 'One page of deliveries'), ...standardErrors('400', '402', '404', '429') },
      },
    },
    '/integrations/{id}/deliveries/{delivery_id}/resend': {
      post: {
        operationId: 'resendDelivery',
        summary: 'Send a delivery again (same event, same webhook-id); refused while pending or when the integration is inactive',
        tags,
        parameters: [integrationId, { name: 'delivery_id', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: {
          '202': json(ref('Delivery'), 'The delivery, pending again; the attempt runs in the background'),
          ...standardErrors('400', '402', '404', '409', '429'),
        },
      },
    },
  },
};
