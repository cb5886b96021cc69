import express, { type Express } from 'express';
import type { AppContext } from '../context.js';
import { errorHandler, notFoundHandler } from './errors.js';
import { rejectNul } from './reject-nul.js';

/**
 * The shell every JSON API shares: body limit, strict JSON, and the error envelope for anything
 * that goes wrong, unknown routes included. `mount` adds the component routers.
 */
export function jsonApp(ctx: AppContext, mount: (app: Express) => void): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(
    express.json({
      limit: ctx.config.limits.bodyBytes,
      strict: true,
      type: ['application/json', 'application/*+json'],
    }),
  );
  app.use(rejectNul);
  mount(app);
  app.use(notFoundHandler());
  app.use(errorHandler(ctx.logger));
  return app;
}
