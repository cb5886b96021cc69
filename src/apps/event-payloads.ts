/**
 * The one module that reads the webhook payload schemas (`event-schemas.ts`) for what is built on
 * them elsewhere: the events API's item schema, and the paths a webhook filter may name. Everything
 * else imports these from here, so moving the schemas changes one import line.
 */
import { EVENT_KINDS } from '../events/kinds.js';
import { ref } from '../shared/openapi/builders.js';
import type { JsonSchema } from '../shared/openapi/types.js';
import { eventSchemaName } from './event-schemas.js';

export { eventSchemaName, eventSchemas, eventWebhooks } from './event-schemas.js';

/** `Event` (any kind's body, told apart by `type`) and `EventList`, for `GET /v1/events`. */
export const eventListSchemas: Record<string, JsonSchema> = {
  Event: {
    description: 'An event exactly as its webhooks carried it: one of the kinds under `webhooks`',
    oneOf: EVENT_KINDS.map((kind) => ref(eventSchemaName(kind))),
  },
  EventList: {
    type: 'object',
    additionalProperties: false,
    required: ['object', 'data', 'has_more'],
    properties: {
      object: { const: 'list' },
      data: { type: 'array', items: ref('Event') },
      has_more: { type: 'boolean' },
    },
  },
};
