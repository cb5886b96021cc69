import express, { type Express } from 'express';
import { checkoutRouter } from '../checkout/routes.js';
import { gatewayCallbackRouter } from '../orders/gateway-routes.js';
import { shortLinkRouter } from '../checkout/short-link.js';
import type { AppContext } from '../shared/context.js';
import { errorHandler, notFoundHandler } from '../shared/http/errors.js';
import { rejectNul, rejectNulInBody } from '../shared/http/reject-nul.js';

/** Buyer pages, mounted at `{checkout_url}` (default `/pay`). */
export function payApp(ctx: AppContext): Express {
  const app = express();
  app.disable('x-powered-by');
  // The gateway callback is signed over its raw body, so it is routed before any body parser.
  const gatewaySecret = ctx.config.gatewayWebhookSecret;
  if (gatewaySecret !== undefined) app.use(gatewayCallbackRouter(ctx, gatewaySecret));
  else ctx.logger.warn('GATEWAY_WEBHOOK_SECRET is not set: the gateway payment callback is disabled');
  app.use(express.urlencoded({ extended: false, limit: ctx.config.limits.bodyBytes }));
  app.use(rejectNul, rejectNulInBody);
  app.use(shortLinkRouter(ctx));
  app.use(checkoutRouter(ctx));
  app.use(notFoundHandler());
  app.use(errorHandler(ctx.logger));
  return app;
}
