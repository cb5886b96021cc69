import { json, ref, standardErrors } from '../openapi/common.js';
import type { JsonSchema, OpenApiFragment } from '../openapi/types.js';
import { paymentLinksOpenApi } from '../payment-links/openapi.js';

const paymentLink = (paymentLinksOpenApi.schemas?.PaymentLink ?? {}) as {
  properties?: Record<string, JsonSchema>;
  required?: string[];
};

const simulation: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['event', 'webhooks'],
  properties: {
    event: { type: 'string', enum: ['order.paid', 'order.payment_declined', 'order.expired'] },
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
          status: { type: 'integer', description: 'HTTP status of the first attempt; 0 when no response arrived' },
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
  required: [...(paymentLink.required ?? []), 'simulation'],
  properties: { ...paymentLink.properties, simulation: ref('Simulation') },
};

export const simulateOpenApi: OpenApiFragment = {
  schemas: { Simulation: simulation, SimulatedPaymentLink: simulatedLink },
  paths: {
    '/v1/payment-links/{id}/simulate': {
      post: {
        operationId: 'simulatePaymentLink',
        summary: 'Simulate a paid, failed or expired payment of a test link',
        tags: ['Payment links'],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Link id' }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                required: ['outcome'],
                properties: { outcome: { type: 'string', enum: ['paid', 'failed', 'expired'] } },
              },
            },
          },
        },
        responses: {
          '200': json(
            ref('SimulatedPaymentLink'),
            'The link after the simulation, plus what was dispatched. Test keys only (a live key gets 403); the link ' +
              'must be `active` (409 otherwise). `paid` marks the link paid (no order is created), `expired` expires it, ' +
              '`failed` leaves it active. The event (`order.paid`, `order.payment_declined` or `order.expired`, with ' +
              '`test` and `sandbox` true) goes to the webhook-kind integrations subscribed to it; the response comes ' +
              'once every first attempt has finished, and failed deliveries keep retrying in the background.',
          ),
          ...standardErrors('400', '404', '409', '413', '429'),
        },
      },
    },
  },
};
