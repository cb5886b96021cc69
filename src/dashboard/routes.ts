/**
 * The dashboard at `/dashboard`: the panel API's services behind a browser session instead of a
 * bearer token. Every page is a GET; every change is a POST form that carries the session's CSRF
 * token and comes from this very origin (`session-guard.ts`). Read-only sessions see no changing
 * forms and get 403 if they post anyway. Each area has its own folder, its routes and its views:
 * sign-in, home, links, catalog, integrations, deliveries, orders (and subscriptions), e-mails, keys.
 */
import express, { type Router } from 'express';
import type { EventPathCheck } from '../integrations/filters.js';
import type { AppContext } from '../shared/context.js';
import { NotFoundError } from '../shared/errors.js';
import { errorHandler } from '../shared/http/errors.js';
import { bodyGuard, queryGuard } from '../shared/http/request-guards.js';
import { catalogRoutes } from './catalog/routes.js';
import { deliveriesRoutes } from './deliveries/routes.js';
import { emailsRoutes } from './emails/routes.js';
import { homeRoutes } from './home/routes.js';
import { integrationsRoutes } from './integrations/routes.js';
import { invoicesRoutes } from './invoices/routes.js';
import { keysRoutes } from './keys/routes.js';
import { linksRoutes } from './links/routes.js';
import { dashboardLocale } from './locale.js';
import { ordersRoutes } from './orders/routes.js';
import { DASHBOARD_ASSETS, errorPageOf, sendPage } from './page.js';
import { problemSentences } from './problems.js';
import { chromeOf, sessionGuard } from './session-guard.js';
import { signInRoutes } from './sign-in/routes.js';

/** `eventPaths` checks a webhook filter's paths (src/apps/filter-paths.ts). */
export function dashboardRouter(ctx: AppContext, eventPaths: EventPathCheck): Router {
  const router = express.Router({ caseSensitive: true, strict: false });
  // Before the session is read: a stylesheet or a script needs none.
  router.use(DASHBOARD_ASSETS.router());
  // Parsed and checked here, so a bad body or query is answered with a page too.
  router.use(express.urlencoded({ extended: false, limit: ctx.config.limits.bodyBytes }));
  router.use(queryGuard, bodyGuard({ nul: true }));
  router.use(sessionGuard(ctx));

  router.use(signInRoutes(ctx));
  router.use(homeRoutes(ctx));
  router.use(linksRoutes(ctx));
  router.use(catalogRoutes(ctx));
  router.use(integrationsRoutes(ctx, eventPaths));
  router.use(deliveriesRoutes(ctx));
  router.use(ordersRoutes(ctx));
  router.use(emailsRoutes(ctx));
  router.use(invoicesRoutes(ctx, eventPaths));
  router.use(keysRoutes(ctx));

  router.use((_req, _res, next) => {
    next(new NotFoundError('Not found'));
  });

  // Errors as pages, in the page's language.
  router.use(
    errorHandler(ctx.logger, (res, err) => {
      const page = dashboardLocale(res.req);
      const said = problemSentences(page, err).join(' ');
      const message = err.status === 403 ? `${page.t.forbidden} ${said}` : said;
      sendPage(res, err.status, page, errorPageOf(page, err.status, message, chromeOf(res.req)));
    }),
  );
  return router;
}
