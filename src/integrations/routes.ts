import { Router } from 'express';
import { celebrate } from 'celebrate';
import { panelPrincipal } from '../auth/principal.js';
import type { AppContext } from '../shared/context.js';
import { NotFoundError } from '../shared/errors.js';
import { randomBase62 } from '../shared/ids.js';
import { toIntegrationProductWire, toIntegrationWire } from './mappers.js';
import {
  createIntegrationSchema,
  integrationIdSchema,
  linkProductSchema,
  listIntegrationsSchema,
  oauthAuthorizeSchema,
  oauthCallbackSchema,
  productLinkParamsSchema,
  updateIntegrationSchema,
  updateProductLinkSchema,
} from './schemas.js';
import * as service from './service.js';

interface IdParams {
  id: number;
}
interface LinkParams extends IdParams {
  product_id: number;
}

/** Integrations API (spec 4.2): mounted at `{panel_api_url}/integrations`, after panel auth. */
export function integrationsRouter(ctx: AppContext): Router {
  const router = Router();

  router.get('/events', (_req, res) => {
    res.json(service.panelEventTypes());
  });

  router.get('/alerts', async (_req, res) => {
    res.json(await service.pendingAlert(ctx, panelPrincipal(res).companyId));
  });

  router.get('/', celebrate(listIntegrationsSchema), async (req, res) => {
    const type = typeof req.query.type === 'string' ? req.query.type : undefined;
    const items = await service.listIntegrations(ctx.db, panelPrincipal(res).companyId, type);
    res.json(items.map(({ row, links }) => toIntegrationWire(row, links)));
  });

  router.post('/', celebrate(createIntegrationSchema), async (req, res) => {
    const { row, links } = await service.createIntegration(ctx, panelPrincipal(res).companyId, req.body);
    res.status(201).json(toIntegrationWire(row, links));
  });

  router.get('/:id', celebrate(integrationIdSchema), async (req, res) => {
    const { id } = req.params as unknown as IdParams;
    const { row, links } = await service.getIntegration(ctx.db, panelPrincipal(res).companyId, id);
    res.json(toIntegrationWire(row, links));
  });

  router.patch('/:id', celebrate(updateIntegrationSchema), async (req, res) => {
    const { id } = req.params as unknown as IdParams;
    const { row, links } = await service.updateIntegration(ctx, panelPrincipal(res).companyId, id, req.body);
    res.json(toIntegrationWire(row, links));
  });

  router.delete('/:id', celebrate(integrationIdSchema), async (req, res) => {
    const { id } = req.params as unknown as IdParams;
    await service.deleteIntegration(ctx.db, panelPrincipal(res).companyId, id);
    res.status(204).end();
  });

  router.get('/:id/products', celebrate(integrationIdSchema), async (req, res) => {
    const { id } = req.params as unknown as IdParams;
    const links = await service.listProductLinks(ctx.db, panelPrincipal(res).companyId, id);
    res.json(links.map(toIntegrationProductWire));
  });

  router.post('/:id/products', celebrate(linkProductSchema), async (req, res) => {
    const { id } = req.params as unknown as IdParams;
    const { product_id } = req.body as { product_id: number };
    const link = await service.linkProduct(ctx.db, panelPrincipal(res).companyId, id, product_id);
    res.status(201).json(toIntegrationProductWire(link));
  });

  router.patch('/:id/products/:product_id', celebrate(updateProductLinkSchema), async (req, res) => {
    const { id, product_id } = req.params as unknown as LinkParams;
    const { is_active } = req.body as { is_active: boolean };
    const link = await service.setProductLinkActive(
      ctx.db,
      panelPrincipal(res).companyId,
      id,
      product_id,
      is_active,
    );
    res.json(toIntegrationProductWire(link));
  });

  router.delete('/:id/products/:product_id', celebrate(productLinkParamsSchema), async (req, res) => {
    const { id, product_id } = req.params as unknown as LinkParams;
    await service.unlinkProduct(ctx.db, panelPrincipal(res).companyId, id, product_id);
    res.status(204).end();
  });

  return router;
}

/**
 * The gateway OAuth round trip, mounted before panel auth: the browser arriving from the gateway
 * carries no panel token, so the single-use `state` identifies the integration instead.
 */
export function integrationsOauthRouter(ctx: AppContext): Router {
  const router = Router();

  // Stands in for the gateway's consent page where no real gateway is configured (dev and test).
  router.get('/oauth/authorize', celebrate(oauthAuthorizeSchema), (req, res) => {
    if (!ctx.config.devGateway) throw new NotFoundError('No OAuth provider is configured');
    const { state } = req.query as { state: string };
    res.redirect(302, service.oauthCallbackUrl(ctx, state, `dev_${randomBase62(24)}`));
  });

  router.get('/oauth/callback', celebrate(oauthCallbackSchema), async (req, res) => {
    const { state, code } = req.query as { state: string; code: string };
    res.json(await service.completeOauth(ctx.db, state, code));
  });

  return router;
}
