import { paymentLinkSchema } from '../payment-links/openapi.js';
import { ref } from '../shared/openapi/builders.js';
import type { JsonSchema } from '../shared/openapi/types.js';
import { OUTCOMES, OUTCOME_EVENTS } from './outcomes.js';

const paymentLink = paymentLinkSchema;

const simulation: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['event', 'webhooks'],
  properties: {
    event: { type: 'string', enum: OUTCOMES.map((o) => OUTCOME_EVENTS[o]) },
    webhooks: {
      type: 'array',
      description: 'One entry per webhook-kind integration that received the event, with its first attempt',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['integration_id', 'destination', 'success', 'status'],
        properties: {
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

/** The PaymentLink of spec 2.1 plus `simulation` (spec 2.6). */
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
