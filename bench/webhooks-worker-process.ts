/**
 * The worker process of `npm run bench:webhooks`: the event engine's workers (`engine`), a raw BullMQ
 * worker running no-op jobs at the same concurrency (`raw`), or a bare sender (`bare`): the baselines.
 */
import { configuredStores, createContext } from '../src/infra/bootstrap.js';
import { Worker } from 'bullmq';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/shared/config.js';
import { createLogger } from '../src/shared/logger.js';
import { createRedis } from '../src/shared/redis.js';
import { startWorkers } from '../workers/index.js';

const mode = process.argv[2];
const config = loadConfig();
const redisUrl = config.redisUrl ?? '';
let close: () => Promise<void>;
if (mode === 'bare') {
  // The second baseline: per delivery, one signed undici POST to the same receiver and one INSERT of
  // the attempt, DELIVERY_CONCURRENCY at once; no queue, no fan-out, no retries, no breaker. It
  // sends until SIGTERM (the bench counts what the receiver got in its window), or BARE_DELIVERIES.
  const count = Number(process.env.BARE_DELIVERIES ?? 0) || Number.POSITIVE_INFINITY;
  const url = process.env.BARE_URL ?? '';
  const secret = process.env.BARE_SECRET ?? '';
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 20 });
  const agent = new Agent({ connections: 64, keepAliveTimeout: 10_000 });
  const signer = new Webhook(secret);
  let stopping = false;
  process.stdout.write('workers-ready\n');
  const started = performance.now();
  let next = 0;
  const sending = Promise.all(
    Array.from({ length: config.workers.deliveryConcurrency }, async () => {
      while (!stopping && next < count) {
        next += 1;
        const id = `evt_bare${String(process.pid)}_${String(next).padStart(14, '0')}`;
        const now = new Date();
        const body = JSON.stringify({
          id,
          type: 'lead.created',
          created_at: now.toISOString(),
          data: { bench: true },
        });
        const requestedAt = performance.now();
        const res = await request(url, {
          method: 'POST',
          dispatcher: agent,
          headers: {
            'content-type': 'application/json',
            'webhook-id': id,
            'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
            'webhook-signature': signer.sign(id, now, body),
          },
          body,
        });
        const responseBody = await res.body.text();
        await pool.query(
          'INSERT INTO bench_bare_attempts (event_id, requested_at, status_code, duration_ms, response_body, request_body) VALUES ($1, $2, $3, $4, $5, $6)',
          [id, now, res.statusCode, Math.round(performance.now() - requestedAt), responseBody, body],
        );
      }
    }),
  ).then(() => {
    if (!stopping) process.stdout.write(`bare-done ${((performance.now() - started) / 1000).toFixed(3)}\n`);
  });
  close = async () => {
    stopping = true;
    await sending;
    await agent.close();
    await pool.end();
  };
} else if (mode === 'raw') {
  const worker = new Worker('bench-raw', async () => undefined, {
    connection: createRedis({ kind: 'single', url: redisUrl }),
    prefix: config.queuePrefix,
    concurrency: config.workers.deliveryConcurrency,
  });
  await worker.waitUntilReady();
  close = () => worker.close();
} else {
  const stores = configuredStores(config);
  const owned = createContext(config, createLogger(config.logLevel), stores, 20);
  // As the Procfile's worker does: its pool readied before it takes jobs.
  const startedAt = performance.now();
  const poolSize = owned.ctx.pool.options.max;
  const workers = await startWorkers(owned.ctx, stores.redis, { warmConnections: poolSize });
  process.stderr.write(
    `engine worker: started in ${(performance.now() - startedAt).toFixed(0)} ms, its ${poolSize} database connections readied first\n`,
  );
  close = async () => {
    await workers.close();
    await owned.close();
  };
}
/**
 * On SIGUSR2, a line `loop-delay <p50> <p99> <max> gc <count> <total ms> <longest ms>`: this
 * process's event-loop delay and garbage-collection pauses since the last SIGUSR2 (then reset), so
 * the bench can tell a worker that waits on its own event loop from one that waits on something else.
 */
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
loopDelay.enable();
const gc = { count: 0, totalMs: 0, longestMs: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gc.count += 1;
    gc.totalMs += entry.duration;
    gc.longestMs = Math.max(gc.longestMs, entry.duration);
  }
}).observe({ entryTypes: ['gc'] });
process.on('SIGUSR2', () => {
  // The histogram holds the intervals of a 5 ms timer: the delay is what exceeds them.
  const ms = (ns: number): string => Math.max(0, ns / 1e6 - 5).toFixed(1);
  process.stdout.write(
    `loop-delay ${ms(loopDelay.percentile(50))} ${ms(loopDelay.percentile(99))} ${ms(loopDelay.max)} ` +
      `gc ${gc.count} ${gc.totalMs.toFixed(1)} ${gc.longestMs.toFixed(1)}\n`,
  );
  loopDelay.reset();
  Object.assign(gc, { count: 0, totalMs: 0, longestMs: 0 });
});
process.on('SIGTERM', () => {
  void close().then(() => process.exit(0));
});
process.stdout.write('workers-ready\n');
