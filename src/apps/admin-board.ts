import { timingSafeEqual } from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { Router, type RequestHandler } from 'express';
import type { AppContext } from '../shared/context.js';
import { patientConnection, Producers } from '../../queues/index.js';

export const ADMIN_QUEUES_PATH = '/admin/queues';

const same = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * HTTP Basic with ADMIN_USER / ADMIN_PASSWORD. With no credentials configured the board does not
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
    if (colon < 0 || !same(decoded.slice(0, colon), user) || !same(decoded.slice(colon + 1), password)) {
      res.setHeader('WWW-Authenticate', 'Basic realm="queues", charset="UTF-8"');
      res
        .status(401)
        .json({ error: { type: 'authentication_error', message: 'Admin credentials required' } });
      return;
    }
    next();
  };
}

/** Bull Board at /admin/queues, listing every queue of `queues/`. */
export function adminQueuesRouter(ctx: AppContext): Router {
  const router = Router();
  const { user, password } = ctx.config.admin;
  router.use(basicAuth(user, password));
  if (user && password) {
    const serverAdapter = new ExpressAdapter();
    serverAdapter.setBasePath(ADMIN_QUEUES_PATH);
    // The board's own connection: it reads a lot and should wait out a Redis blip, not fail fast.
    const redis = patientConnection(ctx.redis);
    createBullBoard({
      queues: new Producers(redis, ctx.config.queuePrefix).all().map((queue) => new BullMQAdapter(queue)),
      // @bull-board/express pins its own patch release of @bull-board/api: same shape, separate typings.
      serverAdapter: serverAdapter as unknown as Parameters<typeof createBullBoard>[0]['serverAdapter'],
    });
    router.use(serverAdapter.getRouter() as RequestHandler);
  }
  return router;
}
