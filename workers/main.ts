import { boot } from '../src/shared/bootstrap.js';
import { onShutdown } from '../src/shared/shutdown.js';
import { startWorkers } from './index.js';

/** Procfile `worker`: every BullMQ worker, no HTTP. */
const runtime = await boot();
const workers = await startWorkers(runtime.ctx, runtime.infra.redisUrl);
onShutdown(runtime.ctx.logger, async () => {
  await workers.close();
  await runtime.close();
});
