import type { Router } from 'express';
import { paymentsAuth } from '../auth/payments-auth.js';
import { paymentsRateLimit } from '../auth/rate-limit.js';
import { catalogPaymentsRoutes } from '../catalog/routes.js';
import { eventsRoutes } from '../events/routes.js';
import { paymentLinksRoutes } from '../payment-links/routes.js';
import type { AppContext } from '../shared/context.js';
import { jsonApp } from '../shared/http/json-app.js';
import { caseSensitiveRouter, mountRoutes } from '../shared/http/operation.js';
import { simulateRoutes } from '../simulate/routes.js';
import { paymentsDocumentRoute } from './openapi.js';

/** The payments API, mounted at `{base_url}`; every path starts with `/v1`. */
export function paymentsApp(ctx: AppContext): Router {
  const routes = [
    ...catalogPaymentsRoutes(ctx),
    ...paymentLinksRoutes(ctx),
    ...eventsRoutes(ctx),
    ...simulateRoutes(ctx),
  ];
  return jsonApp(ctx, { nulInBody: 'left-to-schemas' }, (app) => {
    const open = caseSensitiveRouter();
    mountRoutes(open, [paymentsDocumentRoute(ctx.config, routes)]);
    app.use(open);
    app.use('/v1', paymentsAuth(ctx, routes), paymentsRateLimit(ctx, routes));
    const api = caseSensitiveRouter();
    mountRoutes(api, routes);
    app.use(api);
  });
}
