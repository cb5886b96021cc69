/**
 * The buyer pages an e-mail links to, each opened by the message's own token (in the query, which
 * the request log redacts):
 * - `{checkout_url}/emails/unsubscribe?token=`: GET asks, POST unsubscribes. A mail provider's
 *   one-click unsubscribe (RFC 8058) is that POST with `List-Unsubscribe=One-Click`, sent from no page.
 * - `{checkout_url}/renewals?token=` and its pay step `…/renewals/pay?token=`: pay a failed renewal now.
 */
import type { Request, Response, Router } from 'express';
import { unsubscribeByToken, unsubscribeTarget } from '../emails/buyer-links.js';
import type { AppContext } from '../shared/context.js';
import { allowOnly, caseSensitiveRouter } from '../shared/http/operation.js';
import { html, type SafeHtml } from '../ui/html.js';
import { EMAIL_PAGE_WORDS } from './email-messages.js';
import { layout, sendPage } from './layout.js';
import { pageLocale, type PageLocale } from './locale.js';
import { notFound, PayFormError } from './page-errors.js';
import { loadRenewalCheckout, payRenewalAtCheckout } from './renewal.js';
import type { PayFormValues } from './pay-form.js';
import { checkoutPage } from './views/form.js';

const tokenOf = (req: Request): string => (typeof req.query.token === 'string' ? req.query.token : '');

function formValues(req: Request): PayFormValues {
  const body: unknown = req.body;
  if (body === null || typeof body !== 'object') return {};
  return Object.fromEntries(
    Object.entries(body).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
}

/** A short page of one heading and one sentence (and, to ask, one button). */
function notePage(page: PageLocale, title: string, sentence: string, form?: SafeHtml): SafeHtml {
  return layout(
    page,
    title,
    html`<h1>${title}</h1>
      <p class="notice">${sentence}</p>
      ${form ?? ''}`,
  );
}

function redirect(res: Response, location: string): void {
  res.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' }).redirect(303, location);
}

export function emailPagesRouter(ctx: AppContext): Router {
  const router = caseSensitiveRouter();

  router.get('/emails/unsubscribe', async (req, res) => {
    const page = pageLocale(req);
    const words = EMAIL_PAGE_WORDS[page.lang].unsubscribe;
    const target = await unsubscribeTarget(ctx.db, tokenOf(req));
    if (!target) throw notFound('page_not_found');
    const form = html`<form
      method="post"
      action="${page.href(['emails', 'unsubscribe'], { token: tokenOf(req) })}"
    >
      <button class="ok" type="submit">${words.confirm}</button>
    </form>`;
    sendPage(res, 200, page, notePage(page, words.title, words.question(target.seller), form));
  });

  router.post('/emails/unsubscribe', async (req, res) => {
    const page = pageLocale(req);
    const words = EMAIL_PAGE_WORDS[page.lang].unsubscribe;
    const done = await unsubscribeByToken(ctx.db, tokenOf(req));
    if (!done) throw notFound('page_not_found');
    sendPage(res, 200, page, notePage(page, words.title, words.done(done.seller)));
  });

  router.get('/renewals', async (req, res) => {
    const page = pageLocale(req);
    const words = EMAIL_PAGE_WORDS[page.lang].renewal;
    const checkout = await loadRenewalCheckout(ctx, tokenOf(req));
    if (!checkout.due) {
      const sentence = checkout.subscription.status === 'active' ? words.paid : words.notDue;
      sendPage(res, 200, page, notePage(page, words.title(checkout.view.item.name), sentence));
      return;
    }
    sendPage(res, 200, page, checkoutPage(page, checkout.view));
  });

  router.post('/renewals/pay', async (req, res) => {
    const page = pageLocale(req);
    const words = EMAIL_PAGE_WORDS[page.lang].renewal;
    const values = formValues(req);
    try {
      const payment = await payRenewalAtCheckout(ctx, tokenOf(req), values);
      if (!payment) {
        const checkout = await loadRenewalCheckout(ctx, tokenOf(req));
        sendPage(res, 409, page, notePage(page, words.title(checkout.view.item.name), words.notDue));
        return;
      }
      redirect(res, page.href(['orders', payment.order.code]));
    } catch (err) {
      if (!(err instanceof PayFormError)) throw err;
      const checkout = await loadRenewalCheckout(ctx, tokenOf(req));
      sendPage(res, 400, page, checkoutPage(page, checkout.view, values, err.problems));
    }
  });

  allowOnly(router, '/emails/unsubscribe', ['get', 'post']);
  allowOnly(router, '/renewals', ['get']);
  allowOnly(router, '/renewals/pay', ['post']);
  return router;
}
