import express, { type Express } from 'express';
import { shortLinkRouter } from '../payment-links/pay-routes.js';
import type { AppContext } from '../shared/context.js';
import { errorHandler, notFoundHandler } from '../shared/http/errors.js';

/** Buyer pages, mounted at `{checkout_url}` (default `/pay`). */
export function payApp(ctx: AppContext): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(express.urlencoded({ extended: false, limit: ctx.config.limits.bodyBytes }));
  app.use(shortLinkRouter(ctx));
  app.use(notFoundHandler());
  app.use(errorHandler(ctx.logger));
  return app;
}
