import { startWebServer } from './apps/server.js';
import { announceReady } from './ready-banner.js';
import { boot } from './infra/bootstrap.js';
import { isStoreUnavailable } from './shared/availability.js';
import { onShutdown, onUnexpectedError } from './shared/shutdown.js';
import { stopTracing } from './shared/tracing.js';

/** Procfile `web` (through src/web.ts): the three HTTP apps only (the `release` step migrates; see boot). */
const runtime = await boot({ checkPort: true });
const web = await startWebServer(runtime.ctx).catch(runtime.abort);
announceReady(runtime.ctx.logger, runtime.ctx.config, { port: web.port });
const stop = async (): Promise<void> => {
  await web.close();
  await runtime.close();
  await stopTracing();
};
onShutdown(runtime.ctx.logger, stop);
onUnexpectedError(runtime.ctx.logger, stop, isStoreUnavailable);
