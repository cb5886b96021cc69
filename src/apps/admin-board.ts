import { createHash, timingSafeEqual } from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { Router, type RequestHandler } from 'express';
import type { AppContext } from '../shared/context.js';
import { closeWith, patientConnection, Producers } from '../../queues/index.js';

export const ADMIN_QUEUES_PATH = '/admin/queues';

/**
 * The board's page loads its own scripts and styles only. Its stylesheet asks for Google Fonts,
 * which stays blocked: an operator tool should not tell a third party who opens it (the system font
 * is used instead).
 */
export const ADMIN_BOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** Equal-length digests, so the comparison takes the same time whatever the input's length. */
const same = (given: string, expected: string): boolean => timingSafeEqual(digest(given), digest(expected));

/**
 * HTTP Basic with ADMIN_USER / ADMIN_PASSWORD, user and password both compared every time (a wrong
 * user name takes as long as a wrong password). With no credentials configured the board does not
 * exist (404): an operator tool must never be open by default.
 */
function basicAuth(user: string | undefined, password: string | undefined): RequestHandler {
  return (req, res, next) => {
    if (!user || !password) {
      res.status(404).json({ error: { type: 'not_found', message: 'Not found' } });
      return;
    }
    const header = req.get('authorization') ?? '';
    const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header);
    const decoded = match?.[1] ? Buffer.from(match[1], 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    const userOk = same(colon < 0 ? '' : decoded.slice(0, colon), user);
    const passwordOk = same(colon < 0 ? '' : decoded.slice(colon + 1), password);
    if (colon < 0 || !(userOk && passwordOk)) {
      res.setHeader('WWW-Authenticate', 'Basic realm="queues", charset="UTF-8"');
      res
        .status(401)
        .json({ error: { type: 'authentication_error', message: 'Admin credentials required' } });
      return;
    }
    next();
  };
}

/**
 * Read-only unless ADMIN_READ_WRITE=true: the board's API changes jobs and queues through
 * non-GET requests (retry, promote, clean, pause…), refused here whatever the board's own checks do.
 */
function readOnlyGuard(readWrite: boolean): RequestHandler {
  return (req, res, next) => {
    if (readWrite || req.method === 'GET' || req.method === 'HEAD') {
      next();
      return;
    }
    res.status(403).json({
      error: {
        type: 'permission_error',
        message: 'Bull Board is read-only; set ADMIN_READ_WRITE=true to retry, promote, clean or pause jobs',
      },
    });
  };
}

const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', ADMIN_BOARD_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-store');
  next();
};

/** Bull Board at /admin/queues, listing every queue of `queues/`. */
export function adminQueuesRouter(ctx: AppContext): Router {
  const router = Router();
  const { user, password, readWrite } = ctx.config.admin;
  router.use(securityHeaders);
  router.use(basicAuth(user, password));
  if (user && password) {
    router.use(readOnlyGuard(readWrite));
    const serverAdapter = new ExpressAdapter();
    serverAdapter.setBasePath(ADMIN_QUEUES_PATH);
    // The board's own connection: it reads a lot and should wait out a Redis blip, not fail fast.
    const redis = patientConnection(ctx.redis);
    // Its queues hold nothing but this connection: closing it, with the process's, closes the board.
    closeWith(ctx.redis, () => redis.disconnect());
    createBullBoard({
      queues: new Producers(redis, ctx.config.queuePrefix)
        .all()
        .map((queue) => new BullMQAdapter(queue, { readOnlyMode: !readWrite })),
      serverAdapter,
    });
    router.use(serverAdapter.getRouter() as RequestHandler);
  }
  return router;
}
