import type { Response } from 'express';
import type { AppContext } from '../shared/context.js';
import { AppError, NotFoundError } from '../shared/errors.js';
import { operation, route, type Route } from '../shared/http/operation.js';
import { panelPrincipal } from '../shared/http/principal.js';
import { arrayOf, errors, json, noContent, ref, responseRef } from '../shared/openapi/builders.js';
import { randomBase62 } from '../shared/ids.js';
import { requireProvidedKinds } from './kinds/registry.js';
import { toIntegrationProductWire, toIntegrationWire, type IntegrationView } from './mappers.js';
import type { EventPathCheck } from './filters.js';
import type { IntegrationWithLinks } from './service.js';
import {
  integrationBodies,
  integrationParams,
  linkProductBody,
  listIntegrationsQuery,
  oauthAuthorizeQuery,
  oauthCallbackQuery,
  productLinkParams,
  rotateSecretBody,
  updateProductLinkBody,
} from './schemas.js';
import * as service from './service.js';

const tags = ['Integrations'];

const caller = (res: Response) => {
  const principal = panelPrincipal(res);
  const view: IntegrationView = { revealSecret: principal.role !== 'read_only' };
  return { companyId: principal.companyId, view };
};

/**
 * Integrations API, at `{panel_api_url}/integrations`, behind panel auth. `eventPaths` checks a
 * filter's paths against the event schemas (the apps hand it down: see src/apps/filter-paths.ts).
 */
export function integrationsRoutes(ctx: AppContext, eventPaths: EventPathCheck): Route[] {
  // The `gateway` type's kind comes from the gateways room at start-up: without it, no panel.
  requireProvidedKinds();
  const deps = { ...ctx, eventPaths };
  const wire = ({ row, links }: IntegrationWithLinks, view: IntegrationView) =>
    toIntegrationWire(row, links, view);
  return [
    route(
      operation({
        method: 'get',
        path: '/integrations/events',
        operationId: 'listEventTypes',
        summary: 'The event kinds of the panel list, with their labels',
        tags,
        request: {},
        responses: { '200': arrayOf('EventType', 'Event type descriptors') },
      }),
      (_input, res) => {
        res.json(service.panelEventTypes());
      },
    ),
    route(
      operation({
        method: 'get',
        path: '/integrations/alerts',
        operationId: 'getIntegrationAlert',
        summary: 'Whether a gateway integration awaits its OAuth authorization',
        tags,
        request: {},
        responses: { '200': json(ref('Alert'), 'The alert') },
      }),
      async (_input, res) => {
        const { companyId, view } = caller(res);
        // The OAuth state in the URL completes the authorization: a read-only key must not get it.
        res.json(await service.pendingAlert(ctx, companyId, { withOauthUrl: view.revealSecret }));
      },
    ),
    route(
      operation({
        method: 'get',
        path: '/integrations/',
        operationId: 'listIntegrations',
        summary: "List the company's integrations, oldest first",
        tags,
        request: { query: listIntegrationsQuery },
        responses: { '200': arrayOf('Integration', 'Integrations') },
      }),
      async ({ query }, res) => {
        const { companyId, view } = caller(res);
        const items = await service.listIntegrations(ctx.db, companyId, query.type);
        res.json(items.map((item) => wire(item, view)));
      },
    ),
    route(
      operation({
        method: 'post',
        path: '/integrations/',
        operationId: 'createIntegration',
        summary: 'Create an integration',
        tags,
        request: { body: integrationBodies().create },
        responses: { '201': json(ref('Integration'), 'Created'), ...errors('409') },
      }),
      async ({ body }, res) => {
        const { companyId, view } = caller(res);
        res.status(201).json(wire(await service.createIntegration(deps, companyId, body), view));
      },
    ),
    route(
      operation({
        method: 'get',
        path: '/integrations/{id}',
        operationId: 'getIntegration',
        summary: 'One integration',
        tags,
        request: { params: integrationParams },
        responses: { '200': json(ref('Integration'), 'The integration'), ...errors('404') },
      }),
      async ({ params }, res) => {
        const { companyId, view } = caller(res);
        res.json(wire(await service.getIntegration(ctx.db, companyId, params.id), view));
      },
    ),
    route(
      operation({
        method: 'patch',
        path: '/integrations/{id}',
        operationId: 'updateIntegration',
        summary: 'Update an integration (creation fields, all optional); is_active true re-enables',
        tags,
        request: { params: integrationParams, body: integrationBodies().update },
        responses: { '200': json(ref('Integration'), 'Updated'), ...errors('404', '409') },
      }),
      async ({ params, body }, res) => {
        const { companyId, view } = caller(res);
        res.json(wire(await service.updateIntegration(deps, companyId, params.id, body), view));
      },
    ),
    route(
      operation({
        method: 'post',
        path: '/integrations/{id}/rotate-secret',
        operationId: 'rotateIntegrationSecret',
        summary:
          'Replace the signing secret; the old one keeps signing beside the new one until it expires (both signatures in webhook-signature)',
        tags,
        request: { params: integrationParams, body: rotateSecretBody },
        responses: {
          '200': json(ref('Integration'), 'The integration with its new secret'),
          ...errors('404', '409'),
        },
      }),
      async ({ params, body }, res) => {
        const { companyId, view } = caller(res);
        res.json(wire(await service.rotateSecret(ctx.db, companyId, params.id, body), view));
      },
    ),
    route(
      operation({
        method: 'delete',
        path: '/integrations/{id}',
        operationId: 'deleteIntegration',
        summary: 'Remove an integration',
        tags,
        request: { params: integrationParams },
        responses: { '204': noContent('Removed'), ...errors('404') },
      }),
      async ({ params }, res) => {
        await service.deleteIntegration(ctx.db, caller(res).companyId, params.id);
        res.status(204).end();
      },
    ),
    route(
      operation({
        method: 'get',
        path: '/integrations/{id}/products',
        operationId: 'listIntegrationProducts',
        summary: 'Products linked to the integration (active or not)',
        tags,
        request: { params: integrationParams },
        responses: { '200': arrayOf('IntegrationProduct', 'Product links'), ...errors('404') },
      }),
      async ({ params }, res) => {
        const links = await service.listProductLinks(ctx.db, caller(res).companyId, params.id);
        res.json(links.map(toIntegrationProductWire));
      },
    ),
    route(
      operation({
        method: 'post',
        path: '/integrations/{id}/products',
        operationId: 'linkIntegrationProduct',
        summary: "Link one of the company's products",
        tags,
        request: { params: integrationParams, body: linkProductBody },
        responses: { '201': json(ref('IntegrationProduct'), 'Linked'), ...errors('404', '409') },
      }),
      async ({ params, body }, res) => {
        const link = await service.linkProduct(ctx.db, caller(res).companyId, params.id, body.product_id);
        res.status(201).json(toIntegrationProductWire(link));
      },
    ),
    route(
      operation({
        method: 'patch',
        path: '/integrations/{id}/products/{product_id}',
        operationId: 'updateIntegrationProduct',
        summary: 'Activate or deactivate a product link',
        tags,
        request: { params: productLinkParams, body: updateProductLinkBody },
        responses: { '200': json(ref('IntegrationProduct'), 'Updated link'), ...errors('404') },
      }),
      async ({ params, body }, res) => {
        const { companyId } = caller(res);
        const link = await service.setProductLinkActive(
          ctx.db,
          companyId,
          params.id,
          params.product_id,
          body.is_active,
        );
        res.json(toIntegrationProductWire(link));
      },
    ),
    route(
      operation({
        method: 'delete',
        path: '/integrations/{id}/products/{product_id}',
        operationId: 'unlinkIntegrationProduct',
        summary: 'Unlink a product',
        tags,
        request: { params: productLinkParams },
        responses: { '204': noContent('Unlinked'), ...errors('404') },
      }),
      async ({ params }, res) => {
        await service.unlinkProduct(ctx.db, caller(res).companyId, params.id, params.product_id);
        res.status(204).end();
      },
    ),
  ];
}

const OAUTH_PROBLEM = {
  400: [
    'Este link de autorização é inválido, já foi usado ou expirou.',
    'This authorization link is invalid, was already used or has expired.',
  ],
  502: [
    'O provedor de pagamentos não respondeu. Nada foi conectado.',
    'The payment provider did not answer. Nothing was connected.',
  ],
} as const;

/**
 * The OAuth callback's refusal as a page, for the seller's browser: the same status as the JSON
 * answer would have, in both languages (the callback has no session to know the seller's), and the
 * way back to the dashboard, whose Connect button starts a new authorization.
 */
function sendOauthProblemPage(res: Response, err: AppError): undefined {
  const [pt, en] = err.status >= 500 ? OAUTH_PROBLEM[502] : OAUTH_PROBLEM[400];
  res
    .status(err.status)
    .set({
      'Content-Security-Policy': "default-src 'none'; base-uri 'none'; frame-ancestors 'none'",
      'Cache-Control': 'no-store',
    })
    .type('html')
    .send(
      `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><title>Autorização / Authorization</title></head>` +
        `<body><main><h1>Autorização não concluída</h1><p>${pt}</p>` +
        `<p lang="en">${en}</p>` +
        `<p><a href="/dashboard/integrations">Voltar ao painel / Back to the dashboard</a></p></main></body></html>`,
    );
  return undefined;
}

/**
 * The gateway OAuth round trip, served without a panel token: the browser arriving from the gateway
 * carries none, so the single-use `state` identifies the integration instead.
 */
export function integrationsOauthRoutes(ctx: AppContext): Route[] {
  return [
    route(
      operation({
        method: 'get',
        path: '/integrations/oauth/authorize',
        operationId: 'authorizeGatewayOauth',
        summary: "Stand-in for the gateway's consent page (dev gateway only): redirects to the callback",
        tags,
        public: true,
        request: { query: oauthAuthorizeQuery },
        responses: {
          '302': noContent('Redirect to the OAuth callback with a code'),
          '404': responseRef('NotFound'),
        },
      }),
      ({ query }, res) => {
        if (!ctx.config.devGateway) throw new NotFoundError('No OAuth provider is configured');
        // No body: the document promises none, and a browser follows the Location header alone.
        res
          .status(302)
          .location(service.oauthCallbackUrl(ctx, query.state, `dev_${randomBase62(24)}`))
          .end();
      },
    ),
    route(
      operation({
        method: 'get',
        path: '/integrations/oauth/callback',
        operationId: 'completeGatewayOauth',
        summary: 'OAuth redirect target: completes the pending gateway named by the single-use state',
        tags,
        public: true,
        request: { query: oauthCallbackQuery },
        responses: {
          '200': json(ref('Alert'), 'Authorization recorded; the alert as it is now'),
          '303': noContent('A browser is sent to the dashboard, which says the gateway is connected'),
          ...errors('502'),
        },
      }),
      async ({ query }, res) => {
        // The seller's browser, back from the provider's consent page, gets pages, not JSON.
        const browser = res.req.accepts(['json', 'html']) === 'html';
        const done = await service.completeOauth(ctx, query.state, query.code).catch((err: unknown) => {
          if (browser && err instanceof AppError) return sendOauthProblemPage(res, err);
          throw err;
        });
        if (done === undefined) return;
        if (browser) {
          res
            .status(303)
            .location(`${ctx.config.urls.payments}/dashboard/integrations?done=gateway_connected`)
            .end();
          return;
        }
        res.json(done.alert);
      },
    ),
  ];
}
