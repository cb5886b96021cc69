import { startWorkers } from '../workers/index.js';
import { startWebServer } from './apps/server.js';
import { boot } from './shared/bootstrap.js';
import { isStoreUnavailable } from './shared/availability.js';
import { onShutdown, onUnexpectedError } from './shared/shutdown.js';

/** `npm start`: web and workers in one process, on embedded defaults unless URLs are configured. */
const started = Date.now();
const runtime = await boot({ migrate: true });
const workers = await startWorkers(runtime.ctx, runtime.infra.redisUrl);
const web = await startWebServer(runtime.ctx);
runtime.ctx.logger.info(
  { port: web.port, urls: runtime.ctx.config.urls, startupMs: Date.now() - started },
  `ready: payments API ${runtime.ctx.config.urls.payments}/v1, panel ${runtime.ctx.config.urls.panel}, checkout ${runtime.ctx.config.urls.checkout}`,
);
const stop = async (): Promise<void> => {
  await web.close();
  await workers.close();
  await runtime.close();
};
onShutdown(runtime.ctx.logger, stop);
onUnexpectedError(runtime.ctx.logger, stop, isStoreUnavailable);
