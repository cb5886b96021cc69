/**
 * `npm run bench:webhooks`: webhook deliveries per second through the whole engine (outbox commit →
 * relay → fan-out → signed POST → attempt recorded) with one worker process, then with two, against
 * two baselines in the same run at the same concurrency: raw BullMQ no-op jobs, and a bare sender
 * (one signed undici POST and one INSERT per delivery); then event-commit → first-attempt latency at
 * fixed offered rates (500 and 1,000 events/s). Starts its own PostgreSQL and private redis-server.
 */
import { createContext } from '../src/infra/bootstrap.js';
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { seedCompany } from '../src/cli/seed.js';
import { recordEvent } from '../src/events/outbox.js';
import { publishAfterCommit } from '../src/events/publish.js';
import { schema } from '../src/shared/db/index.js';
import { createLogger } from '../src/shared/logger.js';
import { createRedis } from '../src/shared/redis.js';
import { startTestEnvironment } from '../test/helpers/environment.js';
import { benchTracing, startOtlpSink } from './harness/otlp-sink.js';

const THROUGHPUT_EVENTS = Number(process.env.BENCH_EVENTS ?? 3000);
const RATES = (process.env.BENCH_RATES ?? '500,1000').split(',').map(Number);
const LATENCY_SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const CONCURRENCY = process.env.DELIVERY_CONCURRENCY ?? '32';

const log = (message: string): void =>
  console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const hardStop = setTimeout(() => {
  console.error('bench: took longer than 8 minutes, giving up');
  process.exit(2);
}, 480_000);
hardStop.unref();

log('starting embedded PostgreSQL (fast mode) and a private redis-server');
const env = await startTestEnvironment();
const tracingSink = benchTracing() ? await startOtlpSink() : undefined;
const baseEnv = {
  LOG_LEVEL: 'silent',
  DELIVERY_CONCURRENCY: CONCURRENCY,
  OUTBOX_CONCURRENCY: CONCURRENCY,
  QUEUE_PREFIX: '{bench}',
  WEBHOOK_RETRY_JITTER: '0',
};
const config = env.config(baseEnv);
const owned = createContext(
  config,
  createLogger('silent'),
  { databaseUrl: env.databaseUrl, redis: { kind: 'single', url: env.redis.url } },
  20,
);
const { ctx } = owned;

// The receiver: answers 200 at once and notes when each event first arrived.
const firstArrival = new Map<string, number>();
let received = 0;
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received += 1;
    const id = String(req.headers['webhook-id']);
    if (!firstArrival.has(id)) firstArrival.set(id, performance.now());
    res.writeHead(200).end('ok');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const tenant = await seedCompany(ctx.db);
const SECRET = `whsec_${Buffer.from('bench-secret-bench-secret-bench!').toString('base64')}`;
await ctx.db.insert(schema.integrations).values({
  companyId: tenant.company.id,
  type: 'webhook',
  config: { url, secret: SECRET },
  events: ['lead.created'],
});
// The bare sender's attempts: the engine's attempt columns, without the foreign keys.
await ctx.pool.query(`CREATE TABLE bench_bare_attempts (
  id bigserial PRIMARY KEY, event_id text NOT NULL, requested_at timestamptz NOT NULL, status_code int,
  duration_ms int NOT NULL, response_body text, request_body text)`);

function startWorkerProcess(
  mode: 'engine' | 'raw' | 'bare',
  extraEnv: Record<string, string> = {},
  onLine?: (line: string) => void,
): Promise<ChildProcess> {
  const profile =
    process.env.BENCH_PROFILE && mode === 'engine'
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
      : [];
  const child = spawn(
    process.execPath,
    [...profile, '--import', 'tsx', path.join(import.meta.dirname, 'webhooks-worker.ts'), mode],
    {
      env: {
        ...process.env,
        ...baseEnv,
        NODE_ENV: 'test',
        DATABASE_URL: env.databaseUrl,
        REDIS_URL: env.redis.url,
        // BENCH_TRACING=1: the engine's workers export their spans (to a sink that drops them).
        ...(tracingSink && mode === 'engine' ? { OTEL_EXPORTER_OTLP_ENDPOINT: tracingSink.url } : {}),
        ...extraEnv,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      for (const line of text.split('\n')) if (line) onLine?.(line);
      if (text.includes('workers-ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`${mode} worker exited (${String(code)})`)));
  });
}

async function stopWorkerProcess(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

const commitTimes = new Map<string, number>();
async function commitEvent(): Promise<void> {
  // No state change to join here, so the event row is its own (single-statement) transaction.
  const { id } = await recordEvent(ctx.db, {
    companyId: tenant.company.id,
    type: 'lead.created',
    livemode: false,
    test: false,
    productId: null,
    data: { bench: true },
  });
  commitTimes.set(id, performance.now());
  publishAfterCommit(ctx, [id]);
}

async function waitFor(what: string, done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastLog = Date.now();
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    if (Date.now() - lastLog > 2000) {
      log(`  … ${what}: ${received} received`);
      lastLog = Date.now();
    }
    await sleep(5);
  }
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

try {
  // Both throughput runs measure the worker process alone: the work is queued first, then one
  // worker process starts and the clock runs from its "ready" to the last job done.
  // 1. Raw BullMQ: no-op jobs, same concurrency.
  log(`raw BullMQ baseline: ${THROUGHPUT_EVENTS} no-op jobs, concurrency ${CONCURRENCY}`);
  const rawConnection = createRedis({ kind: 'single', url: env.redis.url });
  const rawQueue = new Queue('bench-raw', { connection: rawConnection, prefix: '{bench}' });
  const rawEvents = new QueueEvents('bench-raw', {
    connection: { host: '127.0.0.1', port: env.redis.port },
    prefix: '{bench}',
  });
  await rawEvents.waitUntilReady();
  let rawDone = 0;
  rawEvents.on('completed', () => {
    rawDone += 1;
  });
  for (let i = 0; i < THROUGHPUT_EVENTS; i += 500) {
    await rawQueue.addBulk(
      Array.from({ length: Math.min(500, THROUGHPUT_EVENTS - i) }, (_, j) => ({
        name: 'noop',
        data: { i: i + j },
        opts: { removeOnComplete: { age: 3600, count: 10_000 } },
      })),
    );
  }
  const rawWorker = await startWorkerProcess('raw');
  const rawStart = performance.now();
  await waitFor('raw jobs', () => rawDone >= THROUGHPUT_EVENTS, 120_000);
  const rawSeconds = (performance.now() - rawStart) / 1000;
  const rawRate = THROUGHPUT_EVENTS / rawSeconds;
  log(`raw BullMQ: ${rawRate.toFixed(0)} jobs/s (${rawSeconds.toFixed(2)} s)`);
  await stopWorkerProcess(rawWorker);
  await rawEvents.close();
  await rawQueue.close();
  rawConnection.disconnect();

  // 2. The bare sender: a signed POST and an INSERT per delivery, same concurrency, no engine.
  log(
    `bare sender baseline: ${THROUGHPUT_EVENTS} signed POSTs + attempt INSERTs, concurrency ${CONCURRENCY}`,
  );
  let bareSeconds = NaN;
  const bareDone = new Promise<void>((resolve) => {
    void startWorkerProcess(
      'bare',
      { BARE_DELIVERIES: String(THROUGHPUT_EVENTS), BARE_URL: url, BARE_SECRET: SECRET },
      (line) => {
        if (line.startsWith('bare-done ')) {
          bareSeconds = Number(line.slice('bare-done '.length));
          resolve();
        }
      },
    ).then((child) => bareDone.then(() => stopWorkerProcess(child)));
  });
  await bareDone;
  const bareRate = THROUGHPUT_EVENTS / bareSeconds;
  log(`bare sender: ${bareRate.toFixed(0)} deliveries/s (${bareSeconds.toFixed(2)} s)`);
  received = 0;
  firstArrival.clear();

  /** THROUGHPUT_EVENTS events committed by 16 writers at once, for a worker to drain afterwards. */
  const commitBacklog = async (): Promise<void> => {
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < THROUGHPUT_EVENTS) {
          next += 1;
          await commitEvent();
        }
      }),
    );
  };

  // 3. The engine: events committed (outbox + fast path) first, then the worker drains them:
  // relay, fan-out, signed POST, attempt recorded.
  log(`engine throughput: committing ${THROUGHPUT_EVENTS} events, 1 integration each`);
  await commitBacklog();
  // Let the fast path's enqueues land before the worker starts.
  await sleep(500);
  log(`engine throughput: worker draining ${THROUGHPUT_EVENTS} events, concurrency ${CONCURRENCY}`);
  const engineWorker = await startWorkerProcess('engine');
  const engineStart = performance.now();
  await waitFor('engine deliveries', () => received >= THROUGHPUT_EVENTS, 180_000);
  const engineSeconds = (performance.now() - engineStart) / 1000;
  const engineRate = THROUGHPUT_EVENTS / engineSeconds;
  log(`engine: ${engineRate.toFixed(0)} deliveries/s (${engineSeconds.toFixed(2)} s)`);

  // 4. Two worker processes drain the same amount (after the one-worker run is stopped).
  await stopWorkerProcess(engineWorker);
  received = 0;
  log(`engine with two worker processes: committing ${THROUGHPUT_EVENTS} events`);
  await commitBacklog();
  await sleep(500);
  const pair = await Promise.all([startWorkerProcess('engine'), startWorkerProcess('engine')]);
  const pairStart = performance.now();
  await waitFor('two-worker deliveries', () => received >= THROUGHPUT_EVENTS, 180_000);
  const pairSeconds = (performance.now() - pairStart) / 1000;
  const pairRate = THROUGHPUT_EVENTS / pairSeconds;
  log(`engine, two workers: ${pairRate.toFixed(0)} deliveries/s (${pairSeconds.toFixed(2)} s)`);
  await Promise.all(pair.map(stopWorkerProcess));
  const latencyWorker = await startWorkerProcess('engine');

  // 5. Latency at fixed offered rates: commit → first attempt arriving at the receiver.
  const latencyResults: string[] = [];
  for (const rate of RATES) {
    log(`latency: ${rate} events/s for ${LATENCY_SECONDS} s`);
    commitTimes.clear();
    firstArrival.clear();
    const total = rate * LATENCY_SECONDS;
    const latencyStart = performance.now();
    const inflight: Array<Promise<void>> = [];
    for (let i = 0; i < total; i++) {
      const due = latencyStart + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      inflight.push(commitEvent());
    }
    await Promise.all(inflight);
    const achievedRate = total / ((performance.now() - latencyStart) / 1000);
    await waitFor(
      'latency deliveries',
      () => [...commitTimes.keys()].every((id) => firstArrival.has(id)),
      60_000,
    );
    const latencies = [...commitTimes.entries()]
      .map(([id, at]) => (firstArrival.get(id) ?? NaN) - at)
      .sort((x, y) => x - y);
    const line = `commit → first attempt at ${rate}/s offered (${achievedRate.toFixed(0)}/s committed): p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${(latencies.at(-1) ?? NaN).toFixed(1)} ms over ${latencies.length} events`;
    log(line);
    latencyResults.push(line);
  }
  await stopWorkerProcess(latencyWorker);

  console.log('\nResults');
  console.log(`  raw BullMQ no-op jobs:        ${rawRate.toFixed(0)} jobs/s`);
  console.log(`  bare sender (POST + INSERT):  ${bareRate.toFixed(0)} deliveries/s`);
  console.log(
    `  engine, one worker process:   ${engineRate.toFixed(0)} deliveries/s  (${(engineRate / bareRate).toFixed(2)} × bare; target ≥ 0.6)`,
  );
  console.log(
    `  engine, two worker processes: ${pairRate.toFixed(0)} deliveries/s  (${(pairRate / engineRate).toFixed(2)} × one; target ≥ 1.6)`,
  );
  for (const line of latencyResults) console.log(`  ${line}`);
  console.log('  (target: p99 < 100 ms at 1,000 events/s)');
  if (tracingSink)
    console.log(`  tracing on: the engine sent ${tracingSink.exports()} span exports to the OTLP sink`);
} finally {
  await tracingSink?.close();
  await owned.close();
  receiver.closeAllConnections();
  receiver.close();
  await env.stop();
}
process.exit(0);
