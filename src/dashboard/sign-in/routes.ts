/**
 * Signing in (a panel credential exchanged for a session cookie, then the home) and out.
 */
import { Router } from 'express';
import type { AppContext } from '../../shared/context.js';
import { AppError } from '../../shared/errors.js';
import { v } from '../../shared/validation/typed.js';
import { dashboardLocale } from '../locale.js';
import { sendPage } from '../page.js';
import { doneQuery, formOf, queryOf } from '../params.js';
import { chromeOf, sessionOf, setSessionCookie } from '../session-guard.js';
import { openSession, revokeSession, SESSION_TTL_MS } from '../sessions.js';
import { signInPage } from './views.js';

const signInForm = v.object({ credential: v.required(v.string().trim()) }).unknown(true);

export function signInRoutes(ctx: AppContext): Router {
  const router = Router({ caseSensitive: true });

  router.get('/sign-in', (req, res) => {
    const page = dashboardLocale(req);
    if (chromeOf(req)) {
      res.redirect(303, page.href(''));
      return;
    }
    sendPage(res, 200, page, signInPage(page, { done: queryOf(req, doneQuery).done }));
  });

  // A refused credential shows the form again (400 when none was given, 401 otherwise).
  router.post('/sign-in', async (req, res) => {
    const page = dashboardLocale(req);
    try {
      const { credential } = formOf(req, signInForm);
      const { sessionId } = await openSession(ctx.db, credential);
      setSessionCookie(ctx, req, res, sessionId, SESSION_TTL_MS);
      res.redirect(303, page.href(''));
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      sendPage(res, err.status === 400 ? 400 : 401, page, signInPage(page, { refused: true }));
    }
  });

  router.post('/sign-out', async (req, res) => {
    const session = sessionOf(req);
    if (session) await revokeSession(ctx.db, session.id);
    setSessionCookie(ctx, req, res, '', 0);
    res.redirect(303, dashboardLocale(req).href('/sign-in', { done: 'signed_out' }));
  });

  return router;
}
