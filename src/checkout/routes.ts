import type { Request, Response, Router } from 'express';
import type { OrderRow } from '../orders/repository.js';
import { errorHandler } from '../shared/http/errors.js';
import { allowOnly, caseSensitiveRouter } from '../shared/http/operation.js';
import type { AppContext } from '../shared/context.js';
import { OUTCOMES, type Outcome } from '../simulate/outcomes.js';
import { PAY_ASSETS, sendPage, type PageOptions } from './layout.js';
import { boletoBarcodeImage, qrCodeImage } from './instructions.js';
import { pageLocale } from './locale.js';
import { emailPagesRouter } from './email-routes.js';
import { carriedFromAddress, splitVisit } from './visit.js';
import { GatewayUnavailablePageError, invalidField, notFound, PayFormError } from './page-errors.js';
import {
  loadCheckout,
  loadOrder,
  loadTestLink,
  orderStatus,
  payAtCheckout,
  simulateFromPage,
  successRedirectUrl,
} from './service.js';
import { type CheckoutView } from './view-models.js';
import { type PayFormValues } from './pay-form.js';
import { checkoutPage, retryPage } from './views/form.js';
import { boletoPage, orderPage, orderState, type OrderImages } from './views/order.js';
import { simulationPage, simulationResultPage } from './views/simulation.js';

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

/** The pictures a page of this order shows: the Pix QR code, the boleto's barcode. */
async function orderImages(order: OrderRow, show: { qr: boolean; barcode: boolean }): Promise<OrderImages> {
  const [qr, barcode] = await Promise.all([
    show.qr && order.pixCopyPaste !== null ? qrCodeImage(order.pixCopyPaste) : null,
    show.barcode && order.boletoBarcode !== null ? boletoBarcodeImage(order.boletoBarcode) : null,
  ]);
  return { qr, barcode };
}

/** A checkout whose card a PSP tokenizes in the browser loads that PSP's script (and allows it). */
const checkoutPageOptions = (view: CheckoutView): PageOptions =>
  view.notice === null && view.gateway.cardTokenizer && view.methods.includes('credit_card')
    ? { cardTokenizer: view.gateway.cardTokenizer.sdkUrl }
    : {};

/** A redirect of the buyer pages: never cached, and the next page is not told where the buyer was. */
function redirect(res: Response, location: string): void {
  res.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' }).redirect(303, location);
}

/**
 * `{checkout_url}/teste/<id>` (test links: the simulation page and its three buttons) and
 * `{checkout_url}/<code>[?plink=<id>]` (the real checkout and its pay step).
 */
export function checkoutRouter(ctx: AppContext): Router {
  const router = caseSensitiveRouter();
  router.use(PAY_ASSETS.router());

  // The pages an e-mail links to (unsubscribe, pay a failed renewal now).
  router.use(emailPagesRouter(ctx));

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
    const view = await loadCheckout(ctx, String(req.params.code), plink);
    const carried = carriedFromAddress(req, ctx.config.urls.checkout);
    sendPage(res, 200, page, checkoutPage(page, view, carried), checkoutPageOptions(view));
  });

  router.post('/:code/pay', async (req, res) => {
    const page = pageLocale(req);
    const code = String(req.params.code);
    const values = formValues(req);
    const now = new Date();
    const { form, visit } = splitVisit(req, values, now);
    try {
      const payment = await payAtCheckout(ctx, code, form, now, page.lang, visit);
      // The order's own page, so a reload shows its current state instead of posting again.
      redirect(res, page.href(['orders', payment.order.code]));
    } catch (err) {
      // The gateway did not answer: a page whose button posts the same form again (the same charge).
      if (err instanceof GatewayUnavailablePageError) {
        res.setHeader('Retry-After', String(err.retryAfterSeconds));
        sendPage(res, 503, page, retryPage(page, code, values));
        return;
      }
      // Form mistakes show the form again with the buyer's entries and the messages.
      if (!(err instanceof PayFormError) || 'plink' in err.problems) throw err;
      const view = await loadCheckout(ctx, code, values.plink || undefined);
      sendPage(res, 400, page, checkoutPage(page, view, values, err.problems), checkoutPageOptions(view));
    }
  });

  // The order's page: a pending Pix or boleto to pay, or what became of the order. Once paid, a
  // link with a success_url sends the buyer there.
  router.get('/orders/:code', async (req, res) => {
    const page = pageLocale(req);
    const view = await loadOrder(ctx, String(req.params.code), true);
    const { order, link } = view;
    if (order.status === 'paid' && link?.successUrl) {
      redirect(res, successRedirectUrl(link.successUrl, link.id, order.code));
      return;
    }
    const now = new Date();
    const state = orderState(order, now);
    const images = await orderImages(order, { qr: state === 'pix', barcode: state === 'boleto' });
    sendPage(res, 200, page, orderPage(page, view, images, now), {
      scripts: true,
      ...(view.pixel ? { adPixel: view.pixel } : {}),
    });
  });

  router.get('/orders/:code/boleto', async (req, res) => {
    const page = pageLocale(req);
    const view = await loadOrder(ctx, String(req.params.code));
    if (view.order.boletoDigitableLine === null) throw notFound('page_not_found');
    const images = await orderImages(view.order, { qr: false, barcode: view.order.status === 'pending' });
    sendPage(res, 200, page, boletoPage(page, view, images), { scripts: true });
  });

  // What the order page polls: `{status}` and nothing else (the order code is the only credential).
  router.get('/orders/:code/status', async (req, res) => {
    const status = await orderStatus(ctx, String(req.params.code));
    res.set({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' }).json({ status });
  });
  router.use('/orders/:code/status', errorHandler(ctx.logger));

  allowOnly(router, '/orders/:code', ['get']);
  allowOnly(router, '/orders/:code/boleto', ['get']);
  allowOnly(router, '/orders/:code/status', ['get']);
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
