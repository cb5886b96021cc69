import type { RequestHandler } from 'express';
import { toPaymentLinkWire } from '../payment-links/mappers.js';
import { activeLinkIdParams } from '../payment-links/schemas.js';
import type { AppContext } from '../shared/context.js';
import { PermissionError } from '../shared/errors.js';
import { operation, route, type Route } from '../shared/http/operation.js';
import { paymentsPrincipal } from '../shared/http/principal.js';
import { errors, json, ref } from '../shared/openapi/builders.js';
import { v } from '../shared/validation/typed.js';
import { OUTCOMES } from './outcomes.js';
import { simulateOutcome } from './service.js';

const simulateBody = v.required(v.object({ outcome: v.required(v.enum(OUTCOMES)) }));

// A live key is refused whatever the body says: simulation does not exist in production.
const testKeysOnly: RequestHandler = (_req, res, next) => {
  if (paymentsPrincipal(res).livemode)
    throw new PermissionError('Simulate is only available with a test key (vk_test_)');
  next();
};

/** POST /v1/payment-links/{id}/simulate (spec 4.1, 2.6). */
export function simulateRoutes(ctx: AppContext): Route[] {
  return [
    route(
      operation({
        method: 'post',
        path: '/v1/payment-links/{id}/simulate',
        operationId: 'simulatePaymentLink',
        summary: 'Simulate a paid, failed or expired payment of a test link',
        tags: ['Payment links'],
        request: { params: activeLinkIdParams, body: simulateBody },
        responses: {
          '200': json(
            ref('SimulatedPaymentLink'),
            'The link after the simulation, plus what was dispatched. Test keys only (a live key gets 403); the link ' +
              'must be `active` (409 otherwise). `paid` marks the link paid (no order is created), `expired` expires it, ' +
              '`failed` leaves it active. The event (`order.paid`, `order.payment_declined` or `order.expired`, with ' +
              '`test` and `sandbox` true) goes to the webhook-kind integrations subscribed to it; the response comes ' +
              'once every first attempt has finished, and failed deliveries keep retrying in the background.',
          ),
          ...errors('404', '409'),
        },
      }),
      async ({ params, body }, res) => {
        const simulation = await simulateOutcome(ctx, paymentsPrincipal(res), params.id, body.outcome);
        res.json({
          ...toPaymentLinkWire(ctx.config, simulation.link.link, simulation.link.order),
          simulation: { event: simulation.event, webhooks: simulation.result.webhooks },
        });
      },
      { before: [testKeysOnly] },
    ),
  ];
}
