/**
 * The buyer's page, `{checkout_url}/account` (docs/api.md, "The buyer's page"):
 * - `GET /account`: the purchases when signed in, else the sign-in form; `POST /account/link` mails a link.
 * - `GET /account/sign-in?token=` shows a button that `POST /account/sign-in` uses the link with.
 * - `POST /account/sign-out`; `POST /account/orders/<code>/refund` (the right of regret);
 *   `POST /account/subscriptions/<id>/cancel` (`when`: `now` or `period_end`);
 *   `GET|POST /account/subscriptions/<id>/method` (how it renews: `pix` or `credit_card`).
 */
import type { Request, Response, Router } from 'express';
import { sendPage } from '../checkout/layout.js';
import { pageLocale } from '../checkout/locale.js';
import type { AppContext } from '../shared/context.js';
import { NotFoundError, ValidationError } from '../shared/errors.js';
import { allowOnly, caseSensitiveRouter } from '../shared/http/operation.js';
import {
  buyerGuard,
  buyerSessionOf,
  clearBuyerSessionCookie,
  formToken,
  requireBuyer,
  setBuyerSessionCookie,
} from './guard.js';
import { ACCOUNT_WORDS } from './messages.js';
import {
  askRefund,
  cancelBuyerSubscription,
  loadAccount,
  renewalMethodPage,
  switchBuyerRenewal,
} from './service.js';
import { EMAIL_SHAPE, requestSignInLink, signInWithLink, signOut } from './sign-in.js';
import { accountPage, linkSentPage, renewalMethodView, signInPage, useLinkPage } from './views.js';

/** A form field as a string ('' when missing or repeated). */
function field(req: Request, name: string): string {
  const body: unknown = req.body;
  if (body === null || typeof body !== 'object') return '';
  const value: unknown = Reflect.get(body, name);
  return typeof value === 'string' ? value : '';
}

/** The subscription id of the path (digits only), else a 404. */
function subscriptionIdOf(req: Request): number {
  const raw = String(req.params.id);
  const id = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(id) || id < 1)
    throw new NotFoundError('No such subscription');
  return id;
}

function redirect(res: Response, location: string): void {
  res.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' }).redirect(303, location);
}

export function buyerAccountRouter(ctx: AppContext): Router {
  const router = caseSensitiveRouter();
  router.use('/account', ...buyerGuard(ctx));

  router.get('/account', async (req, res) => {
    const page = pageLocale(req);
    const session = buyerSessionOf(req);
    if (!session) {
      sendPage(res, 200, page, signInPage(page, formToken(ctx, req, res)));
      return;
    }
    const words = ACCOUNT_WORDS[page.lang];
    const notices: Record<string, string> = {
      refund: words.refund.done,
      refund_queued: words.refund.queued,
      method: words.renewalMethod.done,
    };
    const done = typeof req.query.done === 'string' ? req.query.done : '';
    const notice = Object.hasOwn(notices, done) ? notices[done] : undefined;
    const view = await loadAccount(ctx, session.email);
    sendPage(res, 200, page, accountPage(page, view, session.csrfToken, notice));
  });

  router.post('/account/link', async (req, res) => {
    const page = pageLocale(req);
    const email = field(req, 'email').trim();
    if (!EMAIL_SHAPE.test(email) || email.length > 320) {
      sendPage(res, 400, page, signInPage(page, formToken(ctx, req, res), 'invalid', email.slice(0, 320)));
      return;
    }
    const outcome = await requestSignInLink(ctx, { email, ip: req.ip ?? '', language: page.lang });
    if (outcome.kind === 'limited') {
      res.setHeader('Retry-After', String(outcome.retryAfterS));
      sendPage(res, 429, page, signInPage(page, formToken(ctx, req, res), 'limited'));
      return;
    }
    sendPage(res, 200, page, linkSentPage(page));
  });

  router.get('/account/sign-in', (req, res) => {
    const page = pageLocale(req);
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    sendPage(res, 200, page, useLinkPage(page, token, formToken(ctx, req, res)));
  });

  router.post('/account/sign-in', async (req, res) => {
    const page = pageLocale(req);
    const opened = await signInWithLink(ctx, field(req, 'token'));
    if (!opened) {
      sendPage(res, 400, page, signInPage(page, formToken(ctx, req, res), 'refused'));
      return;
    }
    setBuyerSessionCookie(ctx, req, res, opened.sessionId, opened.expiresAt.getTime() - Date.now());
    redirect(res, page.href(['account']));
  });

  router.post('/account/sign-out', async (req, res) => {
    const page = pageLocale(req);
    await signOut(ctx, requireBuyer(req));
    clearBuyerSessionCookie(ctx, req, res);
    redirect(res, page.href(['account']));
  });

  router.post('/account/orders/:code/refund', async (req, res) => {
    const page = pageLocale(req);
    const session = requireBuyer(req);
    const outcome = await askRefund(ctx, session.email, String(req.params.code), field(req, 'reason'));
    redirect(res, page.href(['account'], { done: outcome === 'queued' ? 'refund_queued' : 'refund' }));
  });

  router.post('/account/subscriptions/:id/cancel', async (req, res) => {
    const page = pageLocale(req);
    const session = requireBuyer(req);
    const id = subscriptionIdOf(req);
    const when = field(req, 'when');
    if (when !== 'now' && when !== 'period_end')
      throw ValidationError.field('when', 'must be now or period_end');
    await cancelBuyerSubscription(ctx, session.email, id, when === 'period_end');
    redirect(res, page.href(['account']));
  });

  router.get('/account/subscriptions/:id/method', async (req, res) => {
    const page = pageLocale(req);
    const session = requireBuyer(req);
    const { purchase, tokenizer } = await renewalMethodPage(ctx, session.email, subscriptionIdOf(req));
    sendPage(
      res,
      200,
      page,
      renewalMethodView(page, purchase, tokenizer, session.csrfToken),
      tokenizer ? { cardTokenizer: tokenizer.sdkUrl } : {},
    );
  });

  router.post('/account/subscriptions/:id/method', async (req, res) => {
    const page = pageLocale(req);
    const session = requireBuyer(req);
    const body: unknown = req.body;
    const form = body !== null && typeof body === 'object' ? { ...body } : {};
    await switchBuyerRenewal(ctx, session.email, subscriptionIdOf(req), form);
    redirect(res, page.href(['account'], { done: 'method' }));
  });

  allowOnly(router, '/account', ['get']);
  allowOnly(router, '/account/subscriptions/:id/method', ['get', 'post']);
  allowOnly(router, '/account/subscriptions/:id/cancel', ['post']);
  allowOnly(router, '/account/link', ['post']);
  allowOnly(router, '/account/sign-in', ['get', 'post']);
  allowOnly(router, '/account/sign-out', ['post']);
  allowOnly(router, '/account/orders/:code/refund', ['post']);
  return router;
}
