import type { Router } from 'express';
import { panelAuth } from '../auth/panel-auth.js';
import { catalogPanelRoutes } from '../catalog/routes.js';
import { integrationsOauthRoutes, integrationsRoutes } from '../integrations/routes.js';
import { productChanges } from '../integrations/service.js';
import { keysRoutes } from '../keys/routes.js';
import { ordersRoutes, subscriptionsRoutes } from '../orders/routes.js';
import { emailSettingsRoutes } from '../emails/routes.js';
import { orderEmailsOf } from '../emails/order-emails.js';
import { invoiceRoutes } from '../invoices/routes.js';
import { orderInvoicesOf } from '../invoices/service.js';
import type { AppContext } from '../shared/context.js';
import { jsonApp } from '../shared/http/json-app.js';
import { caseSensitiveRouter, mountRoutes } from '../shared/http/operation.js';
import { deliveriesRoutes } from '../webhooks/routes.js';
import { eventFilterPaths } from './filter-paths.js';
import { panelDocumentRoute } from './openapi.js';

/** The panel API, mounted at `{panel_api_url}` (default `/panel/v1`). */
export function panelApp(ctx: AppContext): Router {
  // The gateway's OAuth redirect carries no panel token; its single-use state authenticates it.
  const publicRoutes = integrationsOauthRoutes(ctx);
  const routes = [
    ...integrationsRoutes(ctx, eventFilterPaths),
    ...deliveriesRoutes(ctx),
    ...keysRoutes(ctx),
    ...catalogPanelRoutes(ctx, productChanges),
    ...ordersRoutes(ctx, orderEmailsOf(ctx.db), orderInvoicesOf(ctx.db)),
    ...invoiceRoutes(ctx),
    ...subscriptionsRoutes(ctx),
    ...emailSettingsRoutes(ctx),
  ];
  return jsonApp(ctx, { nulInBody: 'refuse' }, (app) => {
    const open = caseSensitiveRouter();
    mountRoutes(open, [panelDocumentRoute(ctx.config, [...publicRoutes, ...routes]), ...publicRoutes]);
    app.use(open);
    app.use(panelAuth(ctx));
    const api = caseSensitiveRouter();
    mountRoutes(api, routes);
    app.use(api);
  });
}
