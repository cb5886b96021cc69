/**
 * Who is asking, and whether they may post. Every request's session is read from its cookie (by the
 * `cookie` package); every POST must come from this very origin and, past sign-in, carry its
 * session's CSRF token and a role that may change things. The pages ask here for the signed-in
 * session they are drawn for.
 */
import { parseCookie } from 'cookie';
import type { Request, RequestHandler, Response } from 'express';
import type { AppContext } from '../shared/context.js';
import { PermissionError } from '../shared/errors.js';
import { dashboardLocale } from './locale.js';
import { canChange, type Chrome } from './page.js';
import { csrfMatches, findSession, type DashboardSession } from './sessions.js';

export const SESSION_COOKIE = 'plinks_dashboard';
const SESSION_ID = /^ds_[0-9A-Za-z]{40}$/;

// Session ids are base62: read as sent, never percent-decoded into something else.
const AS_SENT = { decode: (value: string) => value };

/**
 * The session cookie's value. Two different ones (a cookie set for a parent domain beside ours)
 * choose none: which session a request acts in is never left to the order a browser sends them in.
 * The header is read forwards and backwards (`;` never occurs inside a cookie), so the package's
 * first-wins rule gives the first and the last.
 */
function sessionCookie(req: Request): string | undefined {
  const header = req.get('cookie');
  if (header === undefined) return undefined;
  const first = parseCookie(header, AS_SENT)[SESSION_COOKIE];
  const last = parseCookie(header.split(';').reverse().join(';'), AS_SENT)[SESSION_COOKIE];
  return first === last ? first : undefined;
}

const sessions = new WeakMap<Request, { id: string; session: DashboardSession }>();

/** The session of the request, if a live one came with it. */
export const sessionOf = (req: Request): DashboardSession | undefined => sessions.get(req)?.session;

export const chromeOf = (req: Request): Chrome | undefined => {
  const found = sessions.get(req);
  return found && { principal: found.session.principal, csrfToken: found.session.csrfToken };
};

/** The signed-in session of a page; without one a GET goes to the sign-in page (see `signedIn`). */
export function requireChrome(req: Request): Chrome {
  const chrome = chromeOf(req);
  if (!chrome) throw new PermissionError('Not signed in');
  return chrome;
}

export const companyOf = (req: Request): number => requireChrome(req).principal.companyId;

/** A page without a session: to the sign-in page. */
export function signedIn(req: Request, res: Response): Chrome | undefined {
  const chrome = chromeOf(req);
  if (!chrome) res.redirect(303, dashboardLocale(req).href('/sign-in'));
  return chrome;
}

/** A GET that leads to a change (a form, a confirmation): for sessions that may change only. */
export function changing(req: Request, res: Response): Chrome | undefined {
  const chrome = signedIn(req, res);
  if (chrome && !canChange(chrome)) throw new PermissionError('A read-only session cannot change anything');
  return chrome;
}

/** As the panel API: only the company owner creates or revokes keys. */
export function requireOwner(req: Request): Chrome {
  const chrome = requireChrome(req);
  if (chrome.principal.role !== 'owner')
    throw new PermissionError('Only the company owner can create or revoke keys');
  return chrome;
}

/** The session cookie: this dashboard's path only, out of scripts' reach, never sent cross-site. */
export function setSessionCookie(
  ctx: AppContext,
  req: Request,
  res: Response,
  value: string,
  maxAgeMs: number,
): void {
  res.cookie(SESSION_COOKIE, value, {
    path: req.baseUrl || '/',
    httpOnly: true,
    sameSite: 'strict',
    secure: ctx.config.env !== 'development',
    maxAge: maxAgeMs,
  });
}

/**
 * Who may post: this very origin. A browser says where a form came from in Sec-Fetch-Site (which
 * no page can forge); one that does not send it still sends Origin on a POST.
 */
function refuseCrossSite(req: Request): void {
  const site = req.get('sec-fetch-site');
  if (site !== undefined) {
    if (site !== 'same-origin') throw new PermissionError('Cross-site form posts are refused');
    return;
  }
  const origin = req.get('origin');
  if (origin !== undefined && origin !== `${req.protocol}://${req.get('host') ?? ''}`)
    throw new PermissionError('Form posts from another origin are refused');
}

/**
 * The two steps every request passes: its session, if its cookie names a live one; then, for a
 * POST, this origin and, past sign-in, the session's CSRF token and a role that may change.
 */
export function sessionGuard(ctx: AppContext): RequestHandler[] {
  const attach: RequestHandler = async (req, _res, next) => {
    const id = sessionCookie(req);
    if (id !== undefined && SESSION_ID.test(id)) {
      const session = await findSession(ctx.db, id);
      if (session) sessions.set(req, { id, session });
    }
    next();
  };
  const guard: RequestHandler = (req, _res, next) => {
    if (req.method !== 'POST') {
      next();
      return;
    }
    refuseCrossSite(req);
    if (req.path === '/sign-in') {
      next();
      return;
    }
    const found = sessions.get(req);
    if (!found) throw new PermissionError('Not signed in, or the session ended');
    const body: unknown = req.body;
    const sent: unknown = typeof body === 'object' && body !== null ? Reflect.get(body, '_csrf') : undefined;
    if (!csrfMatches(found.id, sent))
      throw new PermissionError('The form is stale or was not sent by this dashboard');
    if (req.path !== '/sign-out' && found.session.principal.role === 'read_only')
      throw new PermissionError('A read-only session cannot change anything');
    next();
  };
  return [attach, guard];
}
