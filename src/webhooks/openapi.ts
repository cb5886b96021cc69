import { DELIVERY_STATUSES } from '../shared/enums/delivery-statuses.js';
import { EVENT_KINDS, LISTED_EVENT_KINDS, SENT_WHEN, type EventKind } from '../events/kinds.js';
import { eventSchemaName } from '../events/outbox.js';
import { dateTime, nullable, ref } from '../shared/openapi/builders.js';
import type { JsonSchema, PathItem } from '../shared/openapi/types.js';

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

const header = (name: string, description: string): JsonSchema => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
});

const LABELS: Partial<Record<EventKind, string>> = Object.fromEntries(
  LISTED_EVENT_KINDS.map((k) => [k.value, k.label]),
);

/**
 * The payments document's `webhooks` (OpenAPI 3.1): what this service POSTs to an integration's
 * `config.url`, one entry per kind, its body the kind's envelope schema, so a receiver can generate
 * its types (the test suite checks every delivery it receives against them).
 */
export function eventWebhooks(): Record<string, PathItem> {
  return Object.fromEntries(
    EVENT_KINDS.map((kind): [string, PathItem] => [
      kind,
      {
        post: {
          operationId: `${eventSchemaName(kind).replace(/^./, (c) => c.toLowerCase())}Webhook`,
          summary: `${kind}${LABELS[kind] ? ` (${LABELS[kind]})` : ''}`,
          description: SENT_WHEN[kind],
          tags: ['Webhooks'],
          security: [],
          parameters: [
            header('webhook-id', 'The event id (`evt_…`): the same on every retry; deduplicate on it'),
            header('webhook-timestamp', 'Unix seconds when this attempt was signed'),
            header(
              'webhook-signature',
              '`v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` (Standard Webhooks); ' +
                'space-separated when more than one secret signs',
            ),
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref(eventSchemaName(kind)) } },
          },
          responses: {
            '2XX': { description: 'Received: any 2xx ends the delivery' },
            '410': { description: 'Gone: no more retries of this delivery' },
            default: { description: 'Anything else (or no answer in time) is retried on the schedule' },
          },
        },
      },
    ]),
  );
}
