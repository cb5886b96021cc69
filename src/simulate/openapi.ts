import { paymentLinkSchema } from '../payment-links/openapi.js';
import { ref } from '../shared/openapi/builders.js';
import type { JsonSchema } from '../shared/openapi/types.js';
import { EVENT_KINDS } from '../events/kinds.js';
import { FIRST_SIMULATED_EVENTS } from './outcomes.js';

const paymentLink = paymentLinkSchema;

const simulation: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['event', 'events', 'webhooks'],
  properties: {
    event: { type: 'string', enum: FIRST_SIMULATED_EVENTS, description: 'The first event dispatched' },
    events: {
      type: 'array',
      minItems: 1,
      items: { type: 'string', enum: [...EVENT_KINDS] },
      description:
        'Every event dispatched, in the order they were committed (e.g. `order.paid`, `subscription.renewed`)',
    },
    webhooks: {
      type: 'array',
      description:
        'One entry per webhook-kind integration that received an event, per event (in `events` order), with its ' +
        'first attempt',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['event', 'integration_id', 'destination', 'success', 'status'],
        properties: {
          event: {
            type: 'string',
            enum: [...EVENT_KINDS],
            description: 'The kind of the event this attempt carried',
          },
          integration_id: { type: 'integer' },
          destination: { type: 'string', description: 'The URL the event was sent to' },
          success: { type: 'boolean', description: 'The first attempt got a 2xx' },
          status: {
            type: 'integer',
            description: 'HTTP status of the first attempt; 0 when no response arrived',
          },
        },
      },
    },
  },
};

/** The PaymentLink plus `simulation` (the events dispatched and each first delivery attempt). */
const simulatedLink: JsonSchema = {
  ...paymentLink,
  type: 'object',
  additionalProperties: false,
  required: [...paymentLink.required, 'simulation'],
  properties: { ...paymentLink.properties, simulation: ref('Simulation') },
};

/** Named response schemas of simulate. */
export const simulateSchemas: Record<string, JsonSchema> = {
  Simulation: simulation,
  SimulatedPaymentLink: simulatedLink,
};
