import { Router } from 'express';
import { celebrate, Joi, Segments } from 'celebrate';
import { paymentsPrincipal } from '../auth/principal.js';
import type { AppContext } from '../shared/context.js';
import { PermissionError } from '../shared/errors.js';
import { toPaymentLinkWire } from '../payment-links/mappers.js';
import { OUTCOMES, simulateOutcome, type Outcome } from './simulate-service.js';

const simulateRules = {
  [Segments.PARAMS]: Joi.object({ id: Joi.string().max(64).required() }),
  [Segments.BODY]: Joi.object({
    outcome: Joi.string()
      .valid(...OUTCOMES)
      .required(),
  }).required(),
};

/** POST /v1/payment-links/{id}/simulate (spec 4.1, 2.6), mounted under `/v1`. */
export function simulateRouter(ctx: AppContext): Router {
  const router = Router();
  router.post(
    '/payment-links/:id/simulate',
    (_req, res, next) => {
      // A live key is refused whatever the body says: simulation does not exist in production.
      if (paymentsPrincipal(res).livemode) throw new PermissionError('Simulate is only available with a test key (vk_test_)');
      next();
    },
    celebrate(simulateRules, { abortEarly: false }),
    async (req, res) => {
      const body = req.body as { outcome: Outcome };
      const simulation = await simulateOutcome(ctx, paymentsPrincipal(res), String(req.params.id), body.outcome);
      res.json({
        ...toPaymentLinkWire(ctx.config, simulation.link.link, simulation.link.order),
        simulation: { event: simulation.event, webhooks: simulation.result.webhooks },
      });
    },
  );
  return router;
}
