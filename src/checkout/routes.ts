import type { Request, Router } from 'express';
import { allowOnly, caseSensitiveRouter } from '../shared/http/operation.js';
import type { AppContext } from '../shared/context.js';
import { OUTCOMES, type Outcome } from '../simulate/outcomes.js';
import { sendPage } from './html.js';
import { pageLocale } from './locale.js';
import { invalidField, notFound, PayFormError } from './page-errors.js';
import {
  loadCheckout,
  loadTestLink,
  payAtCheckout,
  simulateFromPage,
  type PayFormValues,
} from './service.js';
import { checkoutPage, orderPage, simulationPage, simulationResultPage } from './views.js';

/** Form bodies as plain strings (a missing body reads as empty). */
function formValues(req: Request): PayFormValues {
  const body: unknown = req.body;
  if (body === null || typeof body !== 'object') return {};
  return Object.fromEntries(
    Object.entries(body).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
}

const isOutcome = (value: unknown): value is Outcome =>
  typeof value === 'string' && (OUTCOMES as readonly string[]).includes(value);

/**
 * `{checkout_url}/teste/<id>` (test links: the simulation page and its three buttons) and
 * `{checkout_url}/<code>[?plink=<id>]` (the real checkout and its pay step).
 */
export function checkoutRouter(ctx: AppContext): Router {
  const router = caseSensitiveRouter();

  router.get('/teste/:linkId', async (req, res) => {
    const page = pageLocale(req);
    sendPage(res, 200, page, simulationPage(page, await loadTestLink(ctx, String(req.params.linkId))));
  });

  router.post('/teste/:linkId/simulate', async (req, res) => {
    const page = pageLocale(req);
    const { outcome } = formValues(req);
    if (!isOutcome(outcome)) throw invalidField('outcome', 'unknown_outcome');
    const simulation = await simulateFromPage(ctx, String(req.params.linkId), outcome);
    sendPage(res, 200, page, simulationResultPage(page, simulation));
  });

  router.get('/:code', async (req, res) => {
    const page = pageLocale(req);
    const plink = typeof req.query.plink === 'string' ? req.query.plink : undefined;
    if (req.query.plink !== undefined && plink === undefined) throw notFound('link_not_found');
    sendPage(res, 200, page, checkoutPage(page, await loadCheckout(ctx, String(req.params.code), plink)));
  });

  router.post('/:code/pay', async (req, res) => {
    const page = pageLocale(req);
    const code = String(req.params.code);
    const values = formValues(req);
    try {
      const payment = await payAtCheckout(ctx, code, values);
      sendPage(res, payment.paid ? 200 : 202, page, orderPage(page, payment.order, payment.view));
    } catch (err) {
      // Form mistakes show the form again with the buyer's entries and the messages.
      if (!(err instanceof PayFormError) || 'plink' in err.problems) throw err;
      const view = await loadCheckout(ctx, code, values.plink || undefined);
      sendPage(res, 400, page, checkoutPage(page, view, values, err.problems));
    }
  });

  allowOnly(router, '/teste/:linkId', ['get']);
  allowOnly(router, '/teste/:linkId/simulate', ['post']);
  allowOnly(router, '/:code', ['get']);
  allowOnly(router, '/:code/pay', ['post']);

  // Every other address under the buyer pages gets the same small HTML 404.
  router.use(() => {
    throw notFound('page_not_found');
  });
  return router;
}
