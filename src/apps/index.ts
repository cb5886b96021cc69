import express, { type Express } from 'express';
import { pinoHttp } from 'pino-http';
import { panelApp } from './panel.js';
import { payApp } from './pay.js';
import { paymentsApp } from './payments.js';
import { mountPath } from '../shared/config.js';
import type { AppContext } from '../shared/context.js';
import { errorHandler, notFoundHandler } from '../shared/http/errors.js';
import { requestId } from '../shared/http/request-id.js';
import { checkReadiness } from '../shared/readiness.js';
import { ADMIN_QUEUES_PATH, adminQueuesRouter } from './admin-board.js';
import { DOCS_PATH, docsRouter } from './docs.js';

// OAuth codes and states travel in query strings; they are credentials and stay out of the logs.
const SENSITIVE_QUERY = /([?&](?:code|state|token|key|secret)=)[^&]*/gi;
const redactQuery = (url: string): string => url.replace(SENSITIVE_QUERY, '$1[redacted]');

/**
 * One Express app that mounts the three surfaces (panel and buyer pages at the path of their
 * configured public URL, payments at the root) plus health endpoints.
 */
export function createApp(ctx: AppContext): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.use(requestId);
  app.use(
    pinoHttp({
      logger: ctx.logger,
      genReqId: (_req, res) => (res as express.Response).locals.requestId,
      // pino binds the request to a child logger on every request, serializing it eagerly: keep
      // that to the fields worth reading (and never the headers, so no credential can leak).
      wrapSerializers: false,
      serializers: {
        req: (req: express.Request) => ({
          id: req.id,
          method: req.method,
          url: redactQuery(req.originalUrl ?? req.url),
        }),
        res: (res: express.Response) => ({ statusCode: res.statusCode }),
      },
      customLogLevel: (_req, res, err) =>
        err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
      autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' },
    }),
  );
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const readiness = await checkReadiness(ctx);
    if (readiness.ready) {
      res.json({ status: 'ok', checks: readiness.checks });
      return;
    }
    const down = Object.entries(readiness.checks)
      .filter(([, v]) => v !== 'ok')
      .map(([k]) => k);
    res.status(503).json({
      error: { type: 'api_error', message: `Not ready: ${down.join(', ')} unreachable` },
      checks: readiness.checks,
    });
  });
  app.use(ADMIN_QUEUES_PATH, adminQueuesRouter(ctx));
  app.use(DOCS_PATH, docsRouter(ctx.config));
  app.use(mountPath(ctx.config.urls.panel), panelApp(ctx));
  app.use(mountPath(ctx.config.urls.checkout), payApp(ctx));
  app.use(paymentsApp(ctx));
  app.use(notFoundHandler());
  app.use(errorHandler(ctx.logger));
  return app;
}
