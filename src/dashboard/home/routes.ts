/** The home (`/dashboard`): a picture of the last 30 days of sales in the mode chosen, live by default. */
import { Router } from 'express';
import { listIntegrations } from '../../integrations/service.js';
import { salesSummary } from '../../orders/sales.js';
import type { AppContext } from '../../shared/context.js';
import { dashboardLocale } from '../locale.js';
import { sendPage } from '../page.js';
import { mode, pageQuery, queryOf } from '../params.js';
import { signedIn } from '../session-guard.js';
import { homePage } from './views.js';

const homeQuery = pageQuery({ mode: mode().empty('') });

export function homeRoutes(ctx: AppContext): Router {
  const router = Router({ caseSensitive: true });

  router.get('/', async (req, res) => {
    const chrome = signedIn(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const livemode = queryOf(req, homeQuery).mode !== 'test';
    const { companyId } = chrome.principal;
    // The sums and the integrations side by side: one round of statements.
    const [sales, integrations] = await Promise.all([
      salesSummary(ctx.db, companyId, livemode),
      listIntegrations(ctx.db, companyId, undefined),
    ]);
    const failing = integrations
      .map(({ row }) => row)
      .filter((row) => row.failureCount > 0 || row.disabledReason === 'auto_disabled');
    sendPage(res, 200, page, homePage(page, chrome, { sales, failing }));
  });

  return router;
}
