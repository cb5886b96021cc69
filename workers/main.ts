import { boot } from '../src/shared/bootstrap.js';
import { isStoreUnavailable } from '../src/shared/availability.js';
import { onShutdown, onUnexpectedError } from '../src/shared/shutdown.js';
import { startWorkers } from './index.js';

/** Procfile `worker`: every BullMQ worker, no HTTP. */
const runtime = await boot();
const workers = await startWorkers(runtime.ctx, runtime.infra.redisUrl);
const stop = async (): Promise<void> => {
  await workers.close();
  await runtime.close();
};
onShutdown(runtime.ctx.logger, stop);
onUnexpectedError(runtime.ctx.logger, stop, isStoreUnavailable);
