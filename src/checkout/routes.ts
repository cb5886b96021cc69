import { Router, type Request, type Response } from 'express';
import type { AppContext } from '../shared/context.js';
import { AppError, ValidationError } from '../shared/errors.js';
import { OUTCOMES, type Outcome } from '../simulate/outcomes.js';
import { errorPage, sendPage } from './html.js';
import {
  loadCheckout,
  loadTestLink,
  payAtCheckout,
  simulateFromPage,
  type PayFormValues,
} from './service.js';
import { checkoutPage, orderPage, simulationPage, simulationResultPage } from './views.js';

const TITLES: Record<number, string> = {
  400: 'Invalid request',
  404: 'Not found',
  409: 'Payment not possible',
};

type PageHandler = (req: Request, res: Response) => Promise<void>;

/**
 * Buyer pages answer in HTML, errors included: an AppError becomes a page with its status and
 * message; anything else is logged and shown as a 500 page naming the request id.
 */
function page(ctx: AppContext, handler: PageHandler): PageHandler {
  return async (req, res) => {
    try {
      await handler(req, res);
    } catch (err) {
      if (err instanceof AppError) {
        sendPage(
          res,
          err.status,
          errorPage(err.status, TITLES[err.status] ?? 'Something went wrong', err.message),
        );
        return;
      }
      const requestId = String(res.locals.requestId ?? '');
      ctx.logger.error({ err, requestId }, 'buyer page failed');
      sendPage(
        res,
        500,
        errorPage(500, 'Something went wrong', `Please try again later (request ${requestId}).`),
      );
    }
  };
}

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
  const router = Router();

  router.get(
    '/teste/:linkId',
    page(ctx, async (req, res) => {
      sendPage(res, 200, simulationPage(ctx.config, await loadTestLink(ctx, String(req.params.linkId))));
    }),
  );

  router.post(
    '/teste/:linkId/simulate',
    page(ctx, async (req, res) => {
      const { outcome } = formValues(req);
      if (!isOutcome(outcome))
        throw ValidationError.field('outcome', `must be one of ${OUTCOMES.join(', ')}`);
      const simulation = await simulateFromPage(ctx, String(req.params.linkId), outcome);
      sendPage(res, 200, simulationResultPage(ctx.config, simulation));
    }),
  );

  router.get(
    '/:code',
    page(ctx, async (req, res) => {
      const plink = typeof req.query.plink === 'string' ? req.query.plink : undefined;
      if (req.query.plink !== undefined && plink === undefined)
        throw ValidationError.field('plink', 'must be one link id');
      sendPage(res, 200, checkoutPage(ctx.config, await loadCheckout(ctx, String(req.params.code), plink)));
    }),
  );

  router.post(
    '/:code/pay',
    page(ctx, async (req, res) => {
      const code = String(req.params.code);
      const values = formValues(req);
      try {
        const payment = await payAtCheckout(ctx, code, values);
        sendPage(res, payment.paid ? 200 : 202, orderPage(payment.order, payment.view));
      } catch (err) {
        // Form mistakes show the form again with the buyer's entries and the messages.
        if (!(err instanceof ValidationError) || !err.fields || 'plink' in err.fields) throw err;
        const view = await loadCheckout(ctx, code, values.plink || undefined);
        sendPage(res, 400, checkoutPage(ctx.config, view, values, err.fields));
      }
    }),
  );

  // Every other address under the buyer pages gets the same small HTML 404.
  router.use(
    page(ctx, async (_req, res) => {
      sendPage(
        res,
        404,
        errorPage(404, 'Not found', 'This page does not exist. Check the address you received.'),
      );
    }),
  );
  return router;
}
