import type { Express } from 'express';
import { paymentsAuth } from '../auth/payments-auth.js';
import { paymentsRateLimits } from '../auth/rate-limit.js';
import { catalogPaymentsRouter } from '../catalog/payments-routes.js';
import { paymentsOpenApi } from '../openapi/payments.js';
import { paymentLinksRouter } from '../payment-links/routes.js';
import type { AppContext } from '../shared/context.js';
import { jsonApp } from '../shared/http/json-app.js';
import { simulateRouter } from '../webhooks/simulate-routes.js';

/** The payments API, mounted at `{base_url}`; every path starts with `/v1`. */
export function paymentsApp(ctx: AppContext): Express {
  const openapi = paymentsOpenApi(ctx.config);
  return jsonApp(ctx, (app) => {
    app.get('/v1/openapi.json', (_req, res) => {
      res.json(openapi);
    });
    const rateLimits = paymentsRateLimits(ctx);
    app.use('/v1', paymentsAuth(ctx), rateLimits.all);
    app.use('/v1', catalogPaymentsRouter(ctx));
    app.use('/v1', paymentLinksRouter(ctx, { writeLimit: rateLimits.writes }));
    app.use('/v1', simulateRouter(ctx));
  });
}
