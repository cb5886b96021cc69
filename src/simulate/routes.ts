import type { RequestHandler } from 'express';
import { toPaymentLinkWire } from '../payment-links/mappers.js';
import { activeLinkIdParams } from '../payment-links/schemas.js';
import type { AppContext } from '../shared/context.js';
import { PermissionError } from '../shared/errors.js';
import { operation, route, type Route } from '../shared/http/operation.js';
import { paymentsPrincipal } from '../shared/http/principal.js';
import { errors, json, ref } from '../shared/openapi/builders.js';
import { v } from '../shared/validation/typed.js';
import { SIMULATE_OUTCOMES } from './outcomes.js';
import { simulateOutcome } from './service.js';

const simulateBody = v.required(
  v.object({
    outcome: v
      .required(v.enum(SIMULATE_OUTCOMES))
      .description(
        '`paid`, `failed` or `expired`: the payment of an active link. `renewal_paid` or `renewal_failed`: the next ' +
          'charge (renewal, or retry of a failed one) of the subscription a paid plan link started.',
      ),
  }),
);

// A live key is refused whatever the body says: simulation does not exist in production.
const testKeysOnly: RequestHandler = (_req, res, next) => {
  if (paymentsPrincipal(res).livemode)
    throw new PermissionError('Simulate is only available with a test key (vk_test_)');
  next();
};

/** POST /v1/payment-links/{id}/simulate: a test link's outcome, answered with the link plus `simulation`. */
export function simulateRoutes(ctx: AppContext): Route[] {
  return [
    route(
      operation({
        method: 'post',
        path: '/v1/payment-links/{id}/simulate',
        operationId: 'simulatePaymentLink',
        summary: "Simulate a paid, failed or expired payment of a test link, or its subscription's renewal",
        tags: ['Payment links'],
        request: { params: activeLinkIdParams, body: simulateBody },
        responses: {
          '200': json(
            ref('SimulatedPaymentLink'),
            'The link after the simulation, plus what was dispatched. Test keys only (a live key gets 403). ' +
              '`paid`, `failed` and `expired` need an `active` link (409 otherwise): `paid` marks the link paid (no ' +
              'order is created; a plan link starts a test-mode subscription and also sends `subscription.created`), ' +
              '`expired` expires it, `failed` leaves it active. `renewal_paid` and `renewal_failed` need a paid plan ' +
              'link whose subscription is not canceled (409 otherwise): its next charge runs now as the renewal job ' +
              'would (`order.paid` and `subscription.renewed`; or `order.failed` and `subscription.past_due`, or ' +
              '`subscription.canceled` after the last retry), or, when it was set to cancel at the period end, it is ' +
              'canceled. The events (with `test` and `sandbox` true) go to the webhook-kind integrations subscribed ' +
              'to them; the response comes once every first attempt has finished, and failed deliveries keep ' +
              'retrying in the background.',
          ),
          ...errors('404', '409'),
        },
      }),
      async ({ params, body }, res) => {
        const simulation = await simulateOutcome(ctx, paymentsPrincipal(res), params.id, body.outcome);
        res.json({
          ...toPaymentLinkWire(ctx.config, simulation.link.link, simulation.link.order),
          simulation: {
            event: simulation.event,
            events: simulation.events,
            webhooks: simulation.result.webhooks,
          },
        });
      },
      { before: [testKeysOnly] },
    ),
  ];
}
