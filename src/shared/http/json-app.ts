import express, { type RequestHandler, type Router } from 'express';
import type { AppContext } from '../context.js';
import { UnsupportedMediaTypeError, ValidationError } from '../errors.js';
import { errorHandler, notFoundHandler } from './errors.js';
import { caseSensitiveRouter } from './operation.js';
import { bodyGuard, queryGuard } from './request-guards.js';

const JSON_TYPES = ['application/json', 'application/*+json'];

// Responses carry keys and secrets: no cache may keep them, and no browser may sniff them as HTML.
const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
};

/**
 * A body that is not JSON is refused by name (415), rather than read as "no body"; so is JSON in a
 * charset other than UTF-8 (RFC 8259). An empty body that says it is JSON is not JSON (400); a
 * request that sends no body and no Content-Type reads as `{}`.
 */
const jsonBodiesOnly: RequestHandler = (req, _res, next) => {
  const hasBody =
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  const declaresJson = req.headers['content-type'] !== undefined && req.is(JSON_TYPES) !== false;
  if (hasBody && !declaresJson) {
    throw new UnsupportedMediaTypeError(
      `Request body must be JSON: send Content-Type: application/json (got ${req.headers['content-type'] ?? 'none'})`,
    );
  }
  const charset = /;\s*charset=("?)([^";\s]+)\1/i.exec(req.headers['content-type'] ?? '')?.[2];
  if (declaresJson && charset !== undefined && charset.toLowerCase() !== 'utf-8') {
    throw new UnsupportedMediaTypeError(`JSON bodies are read as UTF-8; got charset ${charset}`);
  }
  if (declaresJson && !hasBody && req.headers['content-length'] === '0') {
    throw new ValidationError(
      'Request body is empty but says it is JSON; send a JSON object or no Content-Type',
    );
  }
  next();
};

/**
 * The shell every JSON API shares: no-store responses, JSON bodies only (size-limited, strict, not
 * nested too deep, no U+0000), and the error envelope for anything that goes wrong, unknown routes
 * included. `mount` adds the routes. A router, not an Express app of its own: a mounted app costs
 * every request a swap of its request and response prototypes and a second dispatch, both ways.
 */
export function jsonApp(
  ctx: AppContext,
  options: { nulInBody: 'refuse' | 'left-to-schemas' },
  mount: (app: Router) => void,
): Router {
  // Paths are case-sensitive, as the documents write them: /v1/OPENAPI.JSON names nothing.
  const app = caseSensitiveRouter();
  app.use(noStore, jsonBodiesOnly);
  app.use(express.json({ limit: ctx.config.limits.bodyBytes, strict: true, type: JSON_TYPES }));
  app.use(queryGuard, bodyGuard({ nul: options.nulInBody === 'refuse' }));
  mount(app);
  app.use(notFoundHandler());
  app.use(errorHandler(ctx.logger));
  return app;
}
