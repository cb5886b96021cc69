/** The dashboard's invoice actions: retry an order's invoice, ask the provider about the settings. */
import { Router } from 'express';
import { checkInvoiceSettings, retryInvoice } from '../../invoices/service.js';
import type { AppContext } from '../../shared/context.js';
import { dashboardLocale } from '../locale.js';
import { sendPage } from '../page.js';
import { integrationId, orderCode, pathPart } from '../params.js';
import { companyOf, requireChrome } from '../session-guard.js';
import { settingsCheckPage } from './views.js';

export function invoicesRoutes(ctx: AppContext): Router {
  const router = Router({ caseSensitive: true });

  // Back to the order's page, which shows the invoice pending again.
  router.post('/orders/:code/invoice/retry', async (req, res) => {
    const code = pathPart(orderCode(), req.params.code).toLowerCase();
    await retryInvoice(ctx, companyOf(req), code);
    res.redirect(303, dashboardLocale(req).href(`/orders/${code}`));
  });

  // A POST (it calls the provider with the stored token), answered with a page of its answer.
  router.post('/integrations/:id/check', async (req, res) => {
    const chrome = requireChrome(req);
    const page = dashboardLocale(req);
    const id = pathPart(integrationId(), req.params.id);
    const check = await checkInvoiceSettings(ctx, chrome.principal.companyId, id);
    sendPage(res, 200, page, settingsCheckPage(page, chrome, id, check));
  });

  return router;
}
