import { startWorkers } from '../workers/index.js';
import { startWebServer } from './apps/server.js';
import { announceReady } from './ready-banner.js';
import { boot } from './infra/bootstrap.js';
import { isStoreUnavailable } from './shared/availability.js';
import { onShutdown, onUnexpectedError } from './shared/shutdown.js';
import { stopTracing } from './shared/tracing.js';

/** `npm start` (through src/main.ts): web and workers in one process, on embedded defaults unless URLs are configured. */
const started = Date.now();
const runtime = await boot({ checkPort: true, migrate: true, mail: true });
const workers = await startWorkers(runtime.ctx, runtime.stores.redis);
const web = await startWebServer(runtime.ctx).catch(runtime.abort);
announceReady(runtime.ctx.logger, runtime.ctx.config, {
  port: web.port,
  startupMs: Date.now() - started,
  inboxUrl: runtime.infra.inboxUrl,
});
const stop = async (): Promise<void> => {
  await web.close();
  await workers.close();
  await runtime.close();
  await stopTracing();
};
onShutdown(runtime.ctx.logger, stop);
onUnexpectedError(runtime.ctx.logger, stop, isStoreUnavailable);
