import express, { type Express, type RequestHandler } from 'express';
import type { AppContext } from '../context.js';
import { UnsupportedMediaTypeError } from '../errors.js';
import { errorHandler, notFoundHandler } from './errors.js';
import { bodyGuard, rejectNul } from './reject-nul.js';

const JSON_TYPES = ['application/json', 'application/*+json'];

// Responses carry keys and secrets: no cache may keep them, and no browser may sniff them as HTML.
const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
};

/** A body that is not JSON is refused by name (415), rather than read as "no body". */
const jsonBodiesOnly: RequestHandler = (req, _res, next) => {
  const hasBody =
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (hasBody && !req.is(JSON_TYPES)) {
    throw new UnsupportedMediaTypeError(
      `Request body must be JSON: send Content-Type: application/json (got ${req.headers['content-type'] ?? 'none'})`,
    );
  }
  next();
};

/**
 * The shell every JSON API shares: no-store responses, JSON bodies only (size-limited, strict, not
 * nested too deep, no U+0000), and the error envelope for anything that goes wrong, unknown routes
 * included. `mount` adds the routes.
 */
export function jsonApp(
  ctx: AppContext,
  options: { nulInBody: 'refuse' | 'left-to-schemas' },
  mount: (app: Express) => void,
): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(noStore, jsonBodiesOnly);
  app.use(express.json({ limit: ctx.config.limits.bodyBytes, strict: true, type: JSON_TYPES }));
  app.use(rejectNul, bodyGuard({ nul: options.nulInBody === 'refuse' }));
  mount(app);
  app.use(notFoundHandler());
  app.use(errorHandler(ctx.logger));
  return app;
}
