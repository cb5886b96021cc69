import express, { type Express } from 'express';
import { dashboardRouter } from '../dashboard/routes.js';
import type { AppContext } from '../shared/context.js';
import { eventFilterPaths } from './filter-paths.js';

/** The dashboard's pages, mounted at `/dashboard`. */
export const DASHBOARD_PATH = '/dashboard';

export function dashboardApp(ctx: AppContext): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('case sensitive routing', true);
  app.set('trust proxy', ctx.config.trustProxy);
  app.use(dashboardRouter(ctx, eventFilterPaths));
  return app;
}
