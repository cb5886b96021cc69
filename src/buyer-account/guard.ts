/**
 * (Mounted at `/account` of the buyer pages: `req.path` here is below it.)
 * Who is asking on the buyer's page, and whether they may post. The session comes from its own
 * cookie (never the dashboard's), scoped to the page's path, HttpOnly, SameSite=Strict. Every POST
 * must come from this origin and carry a CSRF token: a signed-in form the session's (derived from
 * its id), a form before sign-in (asking for a link, using one) the value of a form cookie set with
 * the page (a double-submit token, so no other site can sign a browser into an account of its own).
 */
import { parseCookie } from 'cookie';
import type { Request, RequestHandler, Response } from 'express';
import { mountPath } from '../shared/config.js';
import type { AppContext } from '../shared/context.js';
import { PermissionError } from '../shared/errors.js';
import { randomBase62 } from '../shared/ids.js';
import { findSession, sameToken, type BuyerSession } from './sign-in.js';

export const BUYER_SESSION_COOKIE = 'plinks_buyer';
const FORM_COOKIE = 'plinks_buyer_form';
const FORM_TOKEN = /^[0-9A-Za-z]{32}$/;
/** The posts a browser makes before it has a session. */
const BEFORE_SIGN_IN = new Set(['/link', '/sign-in']);
/**
 * The forms of the page (below `/account`). A POST elsewhere is left to the routes (405 with Allow,
 * or the 404 page), as is a path that does not decode (400).
 */
const FORMS = /^\/(?:link|sign-in|sign-out|orders\/[^/]+\/refund|subscriptions\/[^/]+\/(?:cancel|method))$/;

const decodes = (path: string): boolean => {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
};

const AS_SENT = { decode: (value: string) => value };

/** A cookie's value; two different ones (a parent domain's beside ours) choose none. */
function cookieOf(req: Request, name: string): string | undefined {
  const header = req.get('cookie');
  if (header === undefined) return undefined;
  const first = parseCookie(header, AS_SENT)[name];
  const last = parseCookie(header.split(';').reverse().join(';'), AS_SENT)[name];
  return first === last ? first : undefined;
}

const sessions = new WeakMap<Request, BuyerSession>();

export const buyerSessionOf = (req: Request): BuyerSession | undefined => sessions.get(req);

export function requireBuyer(req: Request): BuyerSession {
  const session = sessions.get(req);
  if (!session) throw new PermissionError('Not signed in, or the session ended');
  return session;
}

/** The cookies' path: the buyer's page only (`{checkout_url}/account`). */
const cookiePath = (ctx: AppContext): string =>
  `${mountPath(ctx.config.urls.checkout).replace(/\/$/, '')}/account`;

const cookieOptions = (ctx: AppContext, _req: Request, maxAgeMs: number) => ({
  path: cookiePath(ctx),
  httpOnly: true,
  sameSite: 'strict' as const,
  secure: ctx.config.env !== 'development',
  maxAge: maxAgeMs,
});

export function setBuyerSessionCookie(
  ctx: AppContext,
  req: Request,
  res: Response,
  value: string,
  maxAgeMs: number,
): void {
  res.cookie(BUYER_SESSION_COOKIE, value, cookieOptions(ctx, req, maxAgeMs));
}

export function clearBuyerSessionCookie(ctx: AppContext, req: Request, res: Response): void {
  res.clearCookie(BUYER_SESSION_COOKIE, { ...cookieOptions(ctx, req, 0), maxAge: undefined });
}

/** The form token of a page before sign-in: the browser's, or a new one set with the page. */
export function formToken(ctx: AppContext, req: Request, res: Response): string {
  const known = cookieOf(req, FORM_COOKIE);
  if (known !== undefined && FORM_TOKEN.test(known)) return known;
  const made = randomBase62(32);
  res.cookie(FORM_COOKIE, made, cookieOptions(ctx, req, 3_600_000));
  return made;
}

/** Same-origin posts only (Sec-Fetch-Site, which no page can forge; else Origin). */
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

const sentToken = (req: Request): unknown => {
  const body: unknown = req.body;
  return typeof body === 'object' && body !== null ? Reflect.get(body, '_csrf') : undefined;
};

export function buyerGuard(ctx: AppContext): RequestHandler[] {
  const attach: RequestHandler = async (req, _res, next) => {
    const id = cookieOf(req, BUYER_SESSION_COOKIE);
    const session = id === undefined ? undefined : await findSession(ctx, id);
    if (session) sessions.set(req, session);
    next();
  };
  const guard: RequestHandler = (req, _res, next) => {
    if (req.method !== 'POST' || !FORMS.test(req.path) || !decodes(req.path)) {
      next();
      return;
    }
    refuseCrossSite(req);
    if (BEFORE_SIGN_IN.has(req.path)) {
      const expected = cookieOf(req, FORM_COOKIE);
      if (expected === undefined || !FORM_TOKEN.test(expected) || !sameToken(expected, sentToken(req)))
        throw new PermissionError('The form is stale or was not sent by this page');
      next();
      return;
    }
    const session = requireBuyer(req);
    if (!sameToken(session.csrfToken, sentToken(req)))
      throw new PermissionError('The form is stale or was not sent by this page');
    next();
  };
  return [attach, guard];
}
