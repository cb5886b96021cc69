import type { Express } from 'express';
import { panelAuth } from '../auth/panel-auth.js';
import { catalogPanelRouter } from '../catalog/panel-routes.js';
import { integrationsOauthRouter, integrationsRouter } from '../integrations/routes.js';
import { keysPanelRouter } from '../keys/panel-routes.js';
import { panelOpenApi } from '../openapi/panel.js';
import type { AppContext } from '../shared/context.js';
import { jsonApp } from '../shared/http/json-app.js';
import { rejectNulInBody } from '../shared/http/reject-nul.js';
import { deliveriesRouter } from '../webhooks/deliveries-routes.js';

/** The panel API, mounted at `{panel_api_url}` (default `/panel/v1`). */
export function panelApp(ctx: AppContext): Express {
  const openapi = panelOpenApi(ctx.config);
  return jsonApp(ctx, (app) => {
    app.get('/openapi.json', (_req, res) => {
      res.json(openapi);
    });
    // The gateway's OAuth redirect carries no panel token; its single-use state authenticates it.
    app.use('/integrations', integrationsOauthRouter(ctx));
    app.use(panelAuth(ctx));
    app.use(rejectNulInBody);
    app.use(deliveriesRouter(ctx));
    app.use('/integrations', integrationsRouter(ctx));
    app.use('/api-keys', keysPanelRouter(ctx));
    app.use(catalogPanelRouter(ctx));
  });
}
