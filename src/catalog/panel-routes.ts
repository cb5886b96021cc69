import { Router } from 'express';
import { celebrate } from 'celebrate';
import { panelPrincipal } from '../auth/principal.js';
import type { AppContext } from '../shared/context.js';
import { toOfferWire, toPlanWire } from './mappers.js';
import { toCouponWire, toProductWire } from './panel-mappers.js';
import {
  createCouponSchema,
  createOfferSchema,
  createPlanSchema,
  createProductSchema,
  productIdSchema,
  updateCouponSchema,
  updateOfferSchema,
  updatePlanSchema,
  updateProductSchema,
} from './panel-schemas.js';
import * as service from './panel-service.js';

interface CodeParams {
  code: string;
}

/**
 * The catalog in the panel (products, offers, plans, coupons): list, create, update and deactivate,
 * so a company can be run without the CLI. Mounted at `{panel_api_url}`, after panel auth.
 */
export function catalogPanelRouter(ctx: AppContext): Router {
  const router = Router();
  const company = (res: Parameters<typeof panelPrincipal>[0]): number => panelPrincipal(res).companyId;

  router.get('/products', async (_req, res) => {
    res.json((await service.listProducts(ctx.db, company(res))).map(toProductWire));
  });
  router.post('/products', celebrate(createProductSchema), async (req, res) => {
    res.status(201).json(toProductWire(await service.createProduct(ctx.db, company(res), req.body)));
  });
  router.patch('/products/:id', celebrate(updateProductSchema), async (req, res) => {
    const { id } = req.params as unknown as { id: number };
    res.json(toProductWire(await service.updateProduct(ctx.db, company(res), id, req.body)));
  });
  router.delete('/products/:id', celebrate(productIdSchema), async (req, res) => {
    const { id } = req.params as unknown as { id: number };
    await service.removeProduct(ctx.db, company(res), id);
    res.status(204).end();
  });

  router.get('/offers', async (_req, res) => {
    res.json((await service.listOffers(ctx.db, company(res))).map((o) => toOfferWire(ctx.config, o)));
  });
  router.post('/offers', celebrate(createOfferSchema), async (req, res) => {
    res.status(201).json(toOfferWire(ctx.config, await service.createOffer(ctx.db, company(res), req.body)));
  });
  router.patch('/offers/:code', celebrate(updateOfferSchema), async (req, res) => {
    const { code } = req.params as unknown as CodeParams;
    res.json(toOfferWire(ctx.config, await service.updateOffer(ctx.db, company(res), code, req.body)));
  });

  router.get('/plans', async (_req, res) => {
    res.json((await service.listPlans(ctx.db, company(res))).map((p) => toPlanWire(ctx.config, p)));
  });
  router.post('/plans', celebrate(createPlanSchema), async (req, res) => {
    res.status(201).json(toPlanWire(ctx.config, await service.createPlan(ctx.db, company(res), req.body)));
  });
  router.patch('/plans/:code', celebrate(updatePlanSchema), async (req, res) => {
    const { code } = req.params as unknown as CodeParams;
    res.json(toPlanWire(ctx.config, await service.updatePlan(ctx.db, company(res), code, req.body)));
  });

  router.get('/coupons', async (_req, res) => {
    res.json((await service.listCoupons(ctx.db, company(res))).map(toCouponWire));
  });
  router.post('/coupons', celebrate(createCouponSchema), async (req, res) => {
    res.status(201).json(toCouponWire(await service.createCoupon(ctx.db, company(res), req.body)));
  });
  router.patch('/coupons/:code', celebrate(updateCouponSchema), async (req, res) => {
    const { code } = req.params as unknown as CodeParams;
    const { status } = req.body as { status: 'active' | 'inactive' };
    res.json(toCouponWire(await service.updateCoupon(ctx.db, company(res), code, status)));
  });

  return router;
}
