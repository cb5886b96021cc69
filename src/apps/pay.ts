import express, { type Express } from 'express';
import { buyerAccountRouter } from '../buyer-account/routes.js';
import { pageErrorHandler } from '../checkout/layout.js';
import { checkoutRouter } from '../checkout/routes.js';
import { defaultGateway } from '../gateways/index.js';
import { gatewayCallbackRouter, mercadoPagoNotificationsRouter } from '../orders/gateway-routes.js';
import { shortLinkRouter } from '../checkout/short-link.js';
import { focusNfeNoticesRouter } from '../invoices/notice-routes.js';
import type { AppContext } from '../shared/context.js';
import { bodyGuard, queryGuard } from '../shared/http/request-guards.js';

/** Buyer pages, mounted at `{checkout_url}` (default `/pay`). */
export function payApp(ctx: AppContext): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('case sensitive routing', true);
  // The gateway callback is signed over its raw body, so it is routed before any body parser.
  const { readCallback } = defaultGateway(ctx.config);
  if (readCallback) app.use(gatewayCallbackRouter(ctx, readCallback));
  else ctx.logger.warn('GATEWAY_WEBHOOK_SECRET is not set: the gateway payment callback is disabled');
  const mp = ctx.config.mercadoPago;
  if (mp) app.use(mercadoPagoNotificationsRouter(ctx, mp.webhookSecret));
  // Focus NFe's webhook notices of invoice integrations (raw body: read before the parsers).
  app.use(focusNfeNoticesRouter(ctx));
  app.use(express.urlencoded({ extended: false, limit: ctx.config.limits.bodyBytes }));
  app.use(queryGuard, bodyGuard({ nul: true }));
  app.use(shortLinkRouter(ctx));
  // Before the checkout, whose `/:code` would take `/account` for an offer's code.
  app.use(buyerAccountRouter(ctx));
  app.use(checkoutRouter(ctx));
  app.use(pageErrorHandler(ctx.logger));
  return app;
}
