import { Router } from 'express';
import { paymentsPrincipal } from '../auth/principal.js';
import type { AppContext } from '../shared/context.js';
import { toOfferWire, toPlanWire } from './mappers.js';
import { listOffers, listPlans } from './repository.js';

/** GET /v1/offers and GET /v1/plans: the caller's company catalog (spec 2.4, 2.5). */
export function catalogPaymentsRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/offers', async (_req, res) => {
    const { companyId } = paymentsPrincipal(res);
    const offers = await listOffers(ctx.db, companyId);
    res.json({ object: 'list', data: offers.map((o) => toOfferWire(ctx.config, o)) });
  });
  router.get('/plans', async (_req, res) => {
    const { companyId } = paymentsPrincipal(res);
    const plans = await listPlans(ctx.db, companyId);
    res.json({ object: 'list', data: plans.map((p) => toPlanWire(ctx.config, p)) });
  });
  return router;
}
