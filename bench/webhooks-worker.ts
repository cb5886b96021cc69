/**
 * The worker process of `npm run bench:webhooks`: either the event engine's workers (`engine`), or a
 * raw BullMQ worker running no-op jobs at the same concurrency (`raw`), the baseline.
 */
import { createContext } from '../src/shared/bootstrap.js';
import { Worker } from 'bullmq';
import { loadConfig } from '../src/shared/config.js';
import { createLogger } from '../src/shared/logger.js';
import { createRedis } from '../src/shared/redis.js';
import { startWorkers } from '../workers/index.js';

const mode = process.argv[2];
const config = loadConfig();
const redisUrl = config.redisUrl ?? '';
let close: () => Promise<void>;
if (mode === 'raw') {
  const worker = new Worker('bench-raw', async () => undefined, {
    connection: createRedis(redisUrl),
    prefix: config.queuePrefix,
    concurrency: config.workers.deliveryConcurrency,
  });
  await worker.waitUntilReady();
  close = () => worker.close();
} else {
  const owned = createContext(
    config,
    createLogger(config.logLevel),
    { databaseUrl: config.databaseUrl ?? '', redisUrl },
    20,
  );
  const workers = await startWorkers(owned.ctx, redisUrl);
  close = async () => {
    await workers.close();
    await owned.close();
  };
}
process.on('SIGTERM', () => {
  void close().then(() => process.exit(0));
});
process.stdout.write('workers-ready\n');
