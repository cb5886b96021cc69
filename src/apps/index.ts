import express, { type Express } from 'express';
import { installGateways } from '../gateways/install.js';
import { panelApp } from './panel.js';
import { payApp } from './pay.js';
import { paymentsApp } from './payments.js';
import { mountPath } from '../shared/config.js';
import type { AppContext } from '../shared/context.js';
import { errorHandler, notFoundHandler } from '../shared/http/errors.js';
import { answerJsonDirectly } from '../shared/http/json-response.js';
import { requestId } from '../shared/http/request-id.js';
import { requestLog } from '../shared/http/request-log.js';
import { checkReadiness } from '../shared/readiness.js';
import { ADMIN_QUEUES_PATH, adminQueuesRouter } from './admin-board.js';
import { DASHBOARD_PATH, dashboardApp } from './dashboard.js';
import { DOCS_PATH, docsRouter } from './docs.js';
import { METRICS_PATH, metricsApp, metricsHandler, recordHttpMetrics } from './metrics.js';

/**
 * One Express app that mounts the three surfaces (panel and buyer pages at the path of their
 * configured public URL, payments at the root) plus health endpoints.
 */
export function createApp(ctx: AppContext): Express {
  // The gateway integration type's kind (a PSP connection), provided to the integration core.
  installGateways();
  const app = express();
  app.disable('x-powered-by');
  // The JSON APIs are routers of this app, whose responses carry no ETag (they are never cached).
  app.set('etag', false);
  app.set('trust proxy', ctx.config.trustProxy);
  answerJsonDirectly(app);
  app.use(requestId);
  app.use(requestLog(ctx.logger, recordHttpMetrics));
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
  app.get(METRICS_PATH, metricsHandler(ctx));
  app.use(ADMIN_QUEUES_PATH, metricsApp('admin'), adminQueuesRouter(ctx));
  app.use(DOCS_PATH, metricsApp('docs'), docsRouter(ctx.config));
  app.use(DASHBOARD_PATH, metricsApp('dashboard'), dashboardApp(ctx));
  app.use(mountPath(ctx.config.urls.panel), metricsApp('panel'), panelApp(ctx));
  app.use(mountPath(ctx.config.urls.checkout), metricsApp('pay'), payApp(ctx));
  app.use(metricsApp('payments'), paymentsApp(ctx));
  app.use(notFoundHandler());
  app.use(errorHandler(ctx.logger));
  return app;
}
