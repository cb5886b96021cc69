/**
 * The worker process of `npm run bench:webhooks`: either the event engine's workers (`engine`), or a
 * raw BullMQ worker running no-op jobs at the same concurrency (`raw`), the baseline.
 */
import { Worker } from 'bullmq';
import { loadConfig } from '../src/shared/config.js';
import { createDatabase } from '../src/shared/db/index.js';
import { createLogger } from '../src/shared/logger.js';
import { createFailFastRedis, createRedis } from '../src/shared/redis.js';
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
  const database = createDatabase(config.databaseUrl ?? '', 20);
  const redis = createFailFastRedis(redisUrl);
  const ctx = { config, db: database.db, pool: database.pool, redis, logger: createLogger(config.logLevel) };
  const workers = await startWorkers(ctx, redisUrl);
  close = async () => {
    await workers.close();
    redis.disconnect();
    await database.close();
  };
}
process.on('SIGTERM', () => {
  void close().then(() => process.exit(0));
});
process.stdout.write('workers-ready\n');
