import { DELIVERY_STATUSES } from '../shared/enums/delivery-statuses.js';
import { EVENT_KINDS } from '../events/kinds.js';
import { dateTime, nullable, ref } from '../shared/openapi/builders.js';
import type { JsonSchema } from '../shared/openapi/types.js';

const attempt: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['attempt', 'requested_at', 'status_code', 'error', 'duration_ms', 'response_body', 'request'],
  properties: {
    attempt: { type: 'integer', minimum: 1 },
    requested_at: dateTime,
    status_code: nullable({ type: 'integer' }),
    error: nullable({
      type: 'string',
      description: 'Network error, timeout, refused target, or `HTTP <status>`',
    }),
    duration_ms: { type: 'integer', minimum: 0 },
    response_body: nullable({ type: 'string', description: 'The receiver’s response, truncated to 20 kB' }),
    request: nullable({
      type: 'object',
      additionalProperties: false,
      required: ['headers', 'body'],
      description:
        'What this attempt sent: its headers without `webhook-signature` (a credential for that body and time), and the exact body. Null for attempts recorded before requests were kept.',
      properties: {
        headers: { type: 'object', additionalProperties: { type: 'string' } },
        body: { type: 'string' },
      },
    }),
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
      enum: [...DELIVERY_STATUSES],
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

/** Named response schemas of the deliveries endpoints. */
export const deliverySchemas: Record<string, JsonSchema> = {
  RecoveryAccepted: {
    type: 'object',
    additionalProperties: false,
    required: ['recovered'],
    properties: {
      recovered: {
        type: 'integer',
        minimum: 0,
        description: 'Failed and skipped deliveries since the given time, counted when the request was made',
      },
    },
  },
  TestSendResult: {
    type: 'object',
    additionalProperties: false,
    required: ['event_id', 'type', 'success', 'status', 'duration_ms'],
    properties: {
      event_id: { type: 'string', description: 'The example event’s id, also its `webhook-id`' },
      type: { type: 'string', enum: [...EVENT_KINDS] },
      success: { type: 'boolean', description: 'The receiver answered 2xx' },
      status: nullable({
        type: 'integer',
        description: 'The receiver’s HTTP status; null when none arrived',
      }),
      duration_ms: { type: 'integer', minimum: 0 },
    },
  },
  Delivery: delivery,
  DeliveryAttempt: attempt,
  DeliveryList: {
    type: 'object',
    additionalProperties: false,
    required: ['object', 'data', 'has_more'],
    properties: {
      object: { const: 'list' },
      data: { type: 'array', items: ref('Delivery') },
      has_more: { type: 'boolean' },
    },
  },
};
