import { boot } from '../src/infra/bootstrap.js';
import { isStoreUnavailable } from '../src/shared/availability.js';
import { onShutdown, onUnexpectedError } from '../src/shared/shutdown.js';
import { startMetricsServer } from '../src/apps/metrics.js';
import { stopTracing } from '../src/shared/tracing.js';
import { startWorkers } from './index.js';

/** Procfile `worker` (through workers/main.ts): every BullMQ worker, no HTTP. */
const runtime = await boot({ mail: true });
const workers = await startWorkers(runtime.ctx, runtime.stores.redis, {
  warmConnections: runtime.ctx.pool.options.max,
});
const { port: metricsPort, token: metricsToken } = runtime.ctx.config.metrics;
const metrics =
  metricsPort !== undefined && metricsToken
    ? await startMetricsServer(runtime.ctx, metricsPort).catch(runtime.abort)
    : undefined;
if (metrics) runtime.ctx.logger.info({ port: metrics.port }, 'worker metrics at /metrics');
const stop = async (): Promise<void> => {
  await metrics?.close();
  await workers.close();
  await runtime.close();
  await stopTracing();
};
onShutdown(runtime.ctx.logger, stop);
onUnexpectedError(runtime.ctx.logger, stop, isStoreUnavailable);
