/**
 * `npm run bench:webhooks`: webhook deliveries per second through the whole engine (outbox commit →
 * relay → fan-out → signed POST → attempt recorded) against a bare sender (one signed undici POST and
 * one INSERT per delivery) to the same receiver, with the same number of requests allowed in flight:
 * alternating rounds of at least 10 s each (after a warm-up), median of the per-round ratios. Then
 * raw BullMQ no-op jobs for scale, the engine with two worker processes, and event-commit →
 * first-attempt latency at fixed offered rates (500 and 1,000 events/s), hop by hop (harness/hops.ts).
 * Every worker process runs compiled (`node dist/bench/webhooks-worker.js`), as the Procfile runs the
 * service's worker; the latency runs commit their events from a compiled web process of their own
 * (`dist/bench/webhooks-web-process.js`), so web and worker are apart as in the Procfile and this
 * process is only the receiver. Starts its own PostgreSQL and private redis-server.
 */
import { createContext } from '../src/infra/bootstrap.js';
import { randomBytes } from 'node:crypto';
import { execFile, spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import { EventEmitter } from 'node:events';
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { createRequire } from 'node:module';
import readline from 'node:readline';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { jobIds, QUEUE } from '../queues/index.js';
import { seedCompany } from '../src/cli/seed.js';
import { schema } from '../src/shared/db/index.js';
import type { TraceCarrier } from '../src/shared/tracing.js';
import { createLogger } from '../src/shared/logger.js';
import { createRedis } from '../src/shared/redis.js';
import { startTestEnvironment } from '../test/helpers/environment.js';
import { benchTracing, percentChange, startOtlpSink } from './harness/otlp-sink.js';
import { PgWaitSampler, QueueTap, summarizeHops, type EventTimes } from './harness/hops.js';
import { benchEventRow, commitAtRate, commitBenchEvent } from './harness/commits.js';
import {
  cpuSeconds,
  epochNow,
  percentile,
  postgresCpuSeconds,
  serverPids,
  sleep,
  waitFor as waitUntil,
} from './harness/util.js';

const RAW_JOBS = Number(process.env.BENCH_EVENTS ?? 3000);
const RATES = (process.env.BENCH_RATES ?? '500,1000').split(',').map(Number);
const LATENCY_SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
/** The latency runs' worker takes the first rate for this long, fresh, before the runs that count. */
const LATENCY_WARMUP_SECONDS = Number(process.env.BENCH_LATENCY_WARMUP_SECONDS ?? 5);
/** Alternating rounds: bare sender and engine, each measured for ROUND_SECONDS after WARMUP_SECONDS. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
/** Requests in flight at most, both sides: the bare sender's parallel senders, the engine's in-flight cap. */
const CONCURRENCY = process.env.DELIVERY_CONCURRENCY ?? '32';

const log = (message: string): void =>
  console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);

const hardStop = setTimeout(() => {
  console.error('bench: took longer than 20 minutes, giving up');
  process.exit(2);
}, 1_200_000);
hardStop.unref();

log('building dist/ (tsconfig.bench.json): the worker processes run compiled, plain node');
await promisify(execFile)(process.execPath, [
  createRequire(import.meta.url).resolve('typescript/bin/tsc'),
  '-p',
  path.join(import.meta.dirname, '..', 'tsconfig.bench.json'),
]);
log('starting embedded PostgreSQL (fast mode) and a private redis-server');
/**
 * BENCH_PG_STATEMENTS=1: PostgreSQL keeps per-statement figures (pg_stat_statements), and each engine
 * round prints the statements that took most of its time: where the engine's database CPU goes.
 */
const PG_STATEMENTS = process.env.BENCH_PG_STATEMENTS === '1';
const env = await startTestEnvironment(
  PG_STATEMENTS
    ? {
        postgresSettings: {
          shared_preload_libraries: 'pg_stat_statements',
          'pg_stat_statements.track': 'all',
        },
      }
    : {},
);
/**
 * BENCH_TRACING=compare: what tracing costs the engine, in one run: each round drains one backlog
 * with the engine's worker untraced and one with it traced (which goes first alternates), instead of
 * the bare sender; prints both rates, CPU per delivery and the difference, then stops.
 */
const TRACING_COMPARE = process.env.BENCH_TRACING === 'compare';
/** BENCH_LATENCY_ONLY=1: only the latency runs (on fresh tables), for iterating on latency. */
const LATENCY_ONLY = process.env.BENCH_LATENCY_ONLY === '1';
const tracingSink = benchTracing() || TRACING_COMPARE ? await startOtlpSink() : undefined;
/** What a traced engine worker adds to its environment. */
const tracedEnv = (): Record<string, string> =>
  tracingSink ? { OTEL_EXPORTER_OTLP_ENDPOINT: tracingSink.url } : {};
const baseEnv = {
  LOG_LEVEL: 'silent',
  DELIVERY_CONCURRENCY: CONCURRENCY,
  OUTBOX_CONCURRENCY: CONCURRENCY,
  // One integration receives everything: its lane may have as many requests in flight as the bare
  // sender has senders.
  WEBHOOK_MAX_IN_FLIGHT: CONCURRENCY,
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

// The receiver (the same for both sides): answers 200 at once, counts each event once (a repeat,
// the same webhook-id again, is counted apart), and in the latency runs notes when each first arrived.
const firstArrival = new Map<string, number>();
let trackArrivals = false;
const seen = new Set<string>();
let received = 0;
let repeats = 0;
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const id = String(req.headers['webhook-id']);
    if (seen.has(id)) repeats += 1;
    else {
      seen.add(id);
      received += 1;
    }
    if (trackArrivals && !firstArrival.has(id)) firstArrival.set(id, epochNow());
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
  receives: 'all',
  events: ['lead.created'],
});
// The bare sender's attempts: the engine's attempt columns, without the foreign keys.
if (PG_STATEMENTS) await ctx.pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
await ctx.pool.query(`CREATE TABLE bench_bare_attempts (
  id bigserial PRIMARY KEY, event_id text NOT NULL, requested_at timestamptz NOT NULL, status_code int,
  duration_ms int NOT NULL, response_body text, request_body text)`);

/** Worker processes still running: a run that fails stops them too, rather than leave them orphaned. */
const children = new Set<ChildProcess>();
function spawnWorker(args: string[], env: NodeJS.ProcessEnv): ChildProcessByStdio<null, Readable, null> {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

function startWorkerProcess(
  mode: 'engine' | 'raw' | 'bare',
  extraEnv: Record<string, string> = {},
  onLine?: (line: string) => void,
): Promise<ChildProcess> {
  const profile =
    process.env.BENCH_PROFILE && mode === 'engine'
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
      : [];
  const child = spawnWorker(
    [...profile, path.join(import.meta.dirname, '..', 'dist', 'bench', 'webhooks-worker.js'), mode],
    {
      ...process.env,
      ...baseEnv,
      NODE_ENV: 'test',
      DATABASE_URL: env.databaseUrl,
      REDIS_URL: env.redis.url,
      SMTP_URL: env.smtp.url,
      // BENCH_TRACING=1: the engine's workers export their spans (to a sink that drops them).
      ...(benchTracing() && mode === 'engine' ? tracedEnv() : {}),
      ...extraEnv,
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

/**
 * The trace context a traced web process would store with its next event: its request's, a trace of
 * its own, in the share of requests OTEL_TRACES_SAMPLER samples; none for a request left out.
 */
function sampledTraceContext(): TraceCarrier | null {
  if (Math.random() >= sampledShare()) return null;
  return { traceparent: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01` };
}

/** Commits one event and takes the fast path. `traced`: stored as a traced web process would store it. */
const commitOne = (traced = false): Promise<string> =>
  commitBenchEvent(ctx, tenant.company.id, traced ? sampledTraceContext() : null);

/** Latency runs: each event's commit, as the committing web process saw its INSERT resolve. */
const commitTimes = new Map<string, number>();

type WebProcess = ((rate: number, seconds: number) => Promise<number>) & { pid: number | undefined };

/**
 * The latency runs' web process (webhooks-web-process.ts), compiled and apart as in the Procfile:
 * commits `rate` events/s for `seconds` and notes each commit in `commitTimes`; resolves to the rate
 * it achieved.
 */
async function startWebProcess(): Promise<WebProcess> {
  const child = spawn(
    process.execPath,
    [path.join(import.meta.dirname, '..', 'dist', 'bench', 'webhooks-web-process.js')],
    {
      env: {
        ...process.env,
        ...baseEnv,
        NODE_ENV: 'test',
        DATABASE_URL: env.databaseUrl,
        REDIS_URL: env.redis.url,
        BENCH_COMPANY_ID: String(tenant.company.id),
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  children.add(child);
  child.once('exit', () => children.delete(child));
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const nextLine = async (): Promise<string> => {
    const next = await lines.next();
    if (next.done) throw new Error('the web process exited');
    return String(next.value);
  };
  if ((await nextLine()) !== 'web-ready') throw new Error('the web process did not start');
  const commit = async (rate: number, seconds: number): Promise<number> => {
    child.stdin.write(`${rate} ${seconds}\n`);
    const answer = /^committed (\S+) (.*)$/.exec(await nextLine());
    if (!answer) throw new Error('the web process answered out of turn');
    for (const [id, at] of JSON.parse(answer[2] ?? '[]') as Array<[string, number]>) commitTimes.set(id, at);
    return Number(answer[1]);
  };
  return Object.assign(commit, { pid: child.pid });
}

/** Waits for `done`, saying every 2 s how many deliveries the receiver has got so far. */
const waitFor = (what: string, done: () => boolean, timeoutMs: number): Promise<void> =>
  waitUntil(what, done, timeoutMs, () => log(`  … ${what}: ${received} received`));

const lastEventSeq = async (): Promise<string> =>
  (await ctx.pool.query<{ seq: string }>('SELECT coalesce(max(seq), 0) AS seq FROM events')).rows[0]?.seq ??
  '0';

/**
 * The share of requests a traced web process samples, by OTEL_TRACES_SAMPLER and its argument as
 * the service reads them (unset: one in ten, `src/shared/tracing.ts`).
 */
function sampledShare(): number {
  const sampler = (process.env.OTEL_TRACES_SAMPLER || 'parentbased_traceidratio').replace(
    /^parentbased_/,
    '',
  );
  if (sampler === 'always_off') return 0;
  if (sampler !== 'traceidratio') return 1;
  const ratio = Number(process.env.OTEL_TRACES_SAMPLER_ARG || 0.1);
  return Number.isFinite(ratio) ? Math.min(1, Math.max(0, ratio)) : 1;
}

/**
 * Commits `count` events the way web processes do: one transaction per event, many at once, each
 * published by the fast path when it commits (which puts the events of one event-loop turn in one
 * relay job). BENCH_JOB_PER_EVENT=1 builds it as this bench did before the fast path coalesced: 500
 * events per INSERT and one relay job per event.
 */
async function commitBacklog(count: number, traced = false): Promise<void> {
  const started = performance.now();
  const seqBefore = await lastEventSeq();
  if (process.env.BENCH_JOB_PER_EVENT === '1') {
    for (let done = 0; done < count; done += 500) {
      const rows = Array.from({ length: Math.min(500, count - done) }, () =>
        benchEventRow(tenant.company.id, traced ? sampledTraceContext() : null),
      );
      await ctx.db.insert(schema.events).values(rows);
      await ctx.producers.queue('outbox').addBulk(
        rows.map((r) => ({
          name: QUEUE.outbox,
          data: { eventId: r.id },
          opts: { jobId: jobIds.outbox(r.id) },
        })),
      );
    }
  } else {
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < count) {
          next += 1;
          await commitOne(traced);
        }
      }),
    );
  }
  const relayJobs = await ctx.producers.queue('outbox').getJobCounts('waiting', 'prioritized', 'delayed');
  const inTraces = traced
    ? Number(
        (
          await ctx.pool.query<{ count: string }>(
            'SELECT count(*) FROM events WHERE seq > $1 AND trace_context IS NOT NULL',
            [seqBefore],
          )
        ).rows[0]?.count,
      )
    : 0;
  log(
    `  backlog: ${count.toLocaleString('en')} events committed in ${((performance.now() - started) / 1000).toFixed(1)} s, ` +
      `${Object.values(relayJobs)
        .reduce((a, b) => a + b, 0)
        .toLocaleString('en')} relay jobs waiting` +
      (traced ? `, ${inTraces.toLocaleString('en')} events in a sampled trace` : ''),
  );
  // The tables grow by tens of thousands of rows in seconds, faster than autovacuum looks at them:
  // fresh statistics, as a database in service would have, before the clock runs.
  await ctx.pool.query('ANALYZE events, deliveries, delivery_attempts');
}

interface Rate {
  perSecond: number;
  /** How long the measured run lasted. */
  seconds: number;
  /** CPU time of the sending process(es) per delivery, µs. */
  cpuUs: number;
  /** CPU time per delivery, µs, of PostgreSQL (postmaster and backends), redis-server and the receiver (this process). */
  postgresUs: number;
  redisUs: number;
  receiverUs: number;
  /** Events the receiver got again within the window (not counted in perSecond). */
  repeats: number;
  /** A drain's CPU time of the sending process(es) per delivery once they were ready, µs: start-up left out. */
  readyCpuUs?: number;
  /** The same, of their main threads alone. */
  readyMainThreadUs?: number;
}

/** CPU time so far of the sending processes, PostgreSQL, redis-server and the receiver (this process). */
async function cpuNow(
  children: ChildProcess[],
): Promise<{ senders: number; sendersMain: number; postgres: number; redis: number; receiver: number }> {
  const sum = (pids: Array<number | undefined>, mainThread = false): number =>
    pids.reduce<number>((total, pid) => total + (cpuSeconds(pid, mainThread) ?? 0), 0);
  const pids = await serverPids(new URL(env.databaseUrl).port, env.redis.port);
  const usage = process.cpuUsage();
  const senders = children.map((c) => c.pid);
  return {
    senders: sum(senders),
    sendersMain: sum(senders, true),
    // With the backends that exited meanwhile (the postmaster's reaped children): summing the live
    // ones alone, a window in which a pool closed a connection came out negative.
    postgres: postgresCpuSeconds(pids.postgres),
    redis: sum(pids.redis),
    receiver: (usage.user + usage.system) / 1e6,
  };
}

/** The rate and CPU per delivery between two readings, `delivered` deliveries apart. */
function rateBetween(
  from: Awaited<ReturnType<typeof cpuNow>>,
  to: Awaited<ReturnType<typeof cpuNow>>,
  delivered: number,
  seconds: number,
  repeatsSeen: number,
): Rate {
  const perDelivery = (cpu: number): number => (cpu / Math.max(1, delivered)) * 1e6;
  return {
    perSecond: delivered / seconds,
    seconds,
    cpuUs: perDelivery(to.senders - from.senders),
    postgresUs: perDelivery(to.postgres - from.postgres),
    redisUs: perDelivery(to.redis - from.redis),
    receiverUs: perDelivery(to.receiver - from.receiver),
    repeats: repeatsSeen,
  };
}

/** Deliveries the receiver got per second over ROUND_SECONDS, after WARMUP_SECONDS (the bare sender). */
async function window(children: ChildProcess[]): Promise<Rate> {
  await sleep(WARMUP_SECONDS * 1000);
  const from = received;
  const repeatsFrom = repeats;
  const cpuFrom = await cpuNow(children);
  const start = performance.now();
  await sleep(ROUND_SECONDS * 1000);
  const delivered = received - from;
  const seconds = (performance.now() - start) / 1000;
  return rateBetween(cpuFrom, await cpuNow(children), delivered, seconds, repeats - repeatsFrom);
}

/**
 * The engine drains a backlog of `count` committed events, from starting its worker processes to
 * its last relay job: every event is relayed, fanned out, sent and recorded within the run, and the
 * engine's start-up and warm-up count against it.
 */
async function drain(
  processes: number,
  count: number,
  workerEnv: Record<string, string> = {},
): Promise<{ rate: Rate; children: ChildProcess[] }> {
  // Counted from before the processes start: the first one ready sends while the others start.
  const from = received;
  const repeatsFrom = repeats;
  const cpuFrom = await cpuNow([]);
  const start = performance.now();
  const children = await Promise.all(
    Array.from({ length: processes }, () => startWorkerProcess('engine', workerEnv)),
  );
  const [readyCpu, readyReceived] = [await cpuNow(children), received];
  if (PG_STATEMENTS) await ctx.pool.query('SELECT pg_stat_statements_reset()');
  // A drain may take long, but not stand still: a minute without a new arrival is a failure.
  let lastCount = -1;
  let lastProgress = Date.now();
  await waitFor(
    'the backlog',
    () => {
      if (received !== lastCount) [lastCount, lastProgress] = [received, Date.now()];
      else if (Date.now() - lastProgress > 60_000) throw new Error('no delivery arrived for 60 s');
      return received - from >= count;
    },
    600_000,
  ).catch(async (err: unknown) => {
    // Where the rest is: unrelayed events, pending deliveries, the lane's state.
    const state = await ctx.pool.query(
      `SELECT (SELECT count(*) FROM event_outbox) AS unrelayed,
              (SELECT count(*) FROM deliveries WHERE status = 'pending') AS pending,
              (SELECT json_agg(l) FROM delivery_lanes l) AS lanes, clock_timestamp() AS now`,
    );
    log(`  stuck after ${received - from} of ${count}: ${JSON.stringify(state.rows[0])}`);
    const missing = await ctx.pool.query(
      `SELECT e.id, NOT EXISTS (SELECT 1 FROM event_outbox o WHERE o.seq = e.seq) AS claimed, d.id AS delivery, d.status, d.attempts, d.last_status_code, d.last_error,
              (SELECT json_agg(json_build_object('attempt', a.attempt, 'status', a.status_code, 'error', a.error,
                                                 'at', a.requested_at)) FROM delivery_attempts a WHERE a.delivery_id = d.id) AS tries
         FROM events e LEFT JOIN deliveries d ON d.event_id = e.id
        WHERE NOT (e.id = ANY($1::text[])) ORDER BY e.seq LIMIT 10`,
      [[...seen]],
    );
    for (const row of missing.rows) log(`  not received: ${JSON.stringify(row)}`);
    throw err;
  });
  // The relay jobs left once every event arrived (each relays nothing by then, but each is a job)
  // are the engine's work too, and the next run must not start behind them.
  await relayJobsDone();
  const seconds = (performance.now() - start) / 1000;
  const cpuTo = await cpuNow(children);
  const rate = rateBetween(cpuFrom, cpuTo, received - from, seconds, repeats - repeatsFrom);
  const ready = rateBetween(readyCpu, cpuTo, received - readyReceived, seconds, 0);
  const readyMainThreadUs =
    ((cpuTo.sendersMain - readyCpu.sendersMain) / Math.max(1, received - readyReceived)) * 1e6;
  return { rate: { ...rate, readyCpuUs: ready.cpuUs, readyMainThreadUs }, children };
}

/** Waits until the outbox queue has no job waiting or running. */
async function relayJobsDone(): Promise<void> {
  const outbox = ctx.producers.queue('outbox');
  for (;;) {
    const counts = await outbox.getJobCounts('waiting', 'active', 'prioritized');
    if (Object.values(counts).reduce((sum, n) => sum + n, 0) === 0) return;
    await sleep(5);
  }
}

const bareRates: Rate[] = [];

/**
 * The machine's speed, printed beside every latency figure so that figures from different VMs read
 * side by side: the bare sender's CPU time per delivery (median of its rounds).
 */
const machineSpeed = (): string =>
  `machine: bare sender ${medianOf(bareRates.map((r) => r.cpuUs)).toFixed(0)} µs CPU per delivery`;
const engineRates: Rate[] = [];

const serverCpu = (rate: Rate): string =>
  `per delivery: PostgreSQL ${rate.postgresUs.toFixed(0)} µs, redis-server ${rate.redisUs.toFixed(0)} µs, receiver ${rate.receiverUs.toFixed(0)} µs`;

async function bareRound(): Promise<Rate> {
  const child = await startWorkerProcess('bare', { BARE_URL: url, BARE_SECRET: SECRET });
  const rate = await window([child]);
  await stopWorkerProcess(child);
  log(
    `  bare sender:        ${rate.perSecond.toFixed(0).padStart(5)} deliveries/s, CPU ${rate.cpuUs.toFixed(0)} µs per delivery; ${serverCpu(rate)}`,
  );
  return rate;
}

/** A rate to size backlogs by before any round has given one (BENCH_TRACING=compare's warm-up). */
let sizingRate = 0;

async function engineRound(processes: number, traced = benchTracing()): Promise<Rate> {
  // A backlog that takes the engine at least ROUND_SECONDS: at its fastest rate so far (before its
  // first run, the bare sender's), with a fifth more for good measure.
  const fastest = Math.max(
    1000,
    sizingRate,
    ...engineRates.map((r) => r.perSecond),
    ...(engineRates.length === 0 ? bareRates.map((r) => r.perSecond) : []),
  );
  const count = Math.ceil(1.2 * ROUND_SECONDS * fastest * (processes > 1 ? 1.5 : 1));
  await commitBacklog(count, traced);
  const { rate, children } = await drain(processes, count, traced ? tracedEnv() : {});
  if (PG_STATEMENTS) await printTopStatements(count);
  await Promise.all(children.map(stopWorkerProcess));
  log(
    `  engine (${processes} worker process${processes > 1 ? 'es' : ''}${traced ? ', traced' : ''}): ${rate.perSecond.toFixed(0).padStart(5)} deliveries/s ` +
      `(${count.toLocaleString('en')} in ${rate.seconds.toFixed(1)} s), CPU ${rate.cpuUs.toFixed(0)} µs per delivery (${rate.readyCpuUs?.toFixed(0)} once ready) ` +
      `(${rate.repeats} repeats); ${serverCpu(rate)}`,
  );
  return rate;
}

/** BENCH_TRACING=compare's paced rounds: the offered rate, events/s, both sides take. */
const PACED_RATE = Number(process.env.BENCH_TRACING_RATE ?? 1000);
/** How long each side of a paced round takes the rate before it is measured: its JIT's warm-up. */
const PACED_WARMUP_SECONDS = Math.max(WARMUP_SECONDS, 5);

/**
 * One side of a paced round: a fresh worker process (traced or not) takes PACED_RATE events/s,
 * committed as web processes commit them, for PACED_WARMUP_SECONDS and until it has caught up (a
 * fresh worker falls behind while its JIT warms, then catches up in a burst); then for ROUND_SECONDS
 * more, measured from that caught-up state to the last of those events arriving. Both sides send the
 * same number of events that arrived at the same pace, so they batch alike: what one costs more than
 * the other is tracing, not a different pace (a drained backlog's CPU per delivery also moves with how
 * fast the rest of the machine lets the worker go).
 */
async function pacedRound(traced: boolean): Promise<Rate> {
  // Not emptied: a worker that plans its statements on empty tables (it prepares them) keeps plans
  // for empty tables while they grow by thousands of rows. These tables hold the earlier rounds'
  // rows, with fresh statistics, as a service's tables would.
  await ctx.pool.query('ANALYZE events, deliveries, delivery_attempts');
  const child = await startWorkerProcess('engine', traced ? tracedEnv() : {});
  const commit = (): Promise<string> => commitOne(traced);
  const warmupFrom = received;
  await commitAtRate(PACED_RATE, PACED_WARMUP_SECONDS, commit);
  const warmupCount = Math.round(PACED_RATE * PACED_WARMUP_SECONDS);
  await waitFor('the warm-up events', () => received - warmupFrom >= warmupCount, 60_000);
  await relayJobsDone();
  const from = received;
  const repeatsFrom = repeats;
  const cpuFrom = await cpuNow([child]);
  const start = performance.now();
  const committed = await commitAtRate(PACED_RATE, ROUND_SECONDS, commit);
  const count = Math.round(PACED_RATE * ROUND_SECONDS);
  await waitFor('the paced events', () => received - from >= count, 60_000);
  await relayJobsDone();
  const rate = rateBetween(
    cpuFrom,
    await cpuNow([child]),
    received - from,
    (performance.now() - start) / 1000,
    repeats - repeatsFrom,
  );
  await stopWorkerProcess(child);
  log(
    `  engine at ${PACED_RATE} events/s offered (${committed.toFixed(0)}/s committed${traced ? ', traced' : ''}): ` +
      `${count} events in ${rate.seconds.toFixed(1)} s, CPU ${rate.cpuUs.toFixed(0)} µs per delivery; ${serverCpu(rate)}`,
  );
  return rate;
}

/** BENCH_TRACING=compare: the engine untraced and traced, alternating, one backlog each per round. */
async function compareTracing(): Promise<void> {
  log(
    `${ROUNDS} alternating rounds: the engine untraced and traced (OTEL_TRACES_SAMPLER ${process.env.OTEL_TRACES_SAMPLER || 'unset: one in ten'}), ` +
      `a backlog of about ${ROUND_SECONDS} s each, measured whole`,
  );
  const traced: Rate[] = [];
  // Without a bare sender's rate to go by, a first backlog of unknown size would be short and all
  // start-up: one untraced backlog, not counted, sizes the rounds.
  log('warm-up: one backlog untraced, to size the rounds (not counted)');
  sizingRate = (await engineRound(1)).perSecond;
  // Each backlog starts from empty delivery tables: left to grow by a backlog a round, they make
  // every round slower than the one before, whichever side it ran.
  const freshRound = async (tracedRound: boolean): Promise<Rate> => {
    await ctx.pool.query('TRUNCATE delivery_attempts, deliveries, event_outbox, events');
    return engineRound(1, tracedRound);
  };
  for (let round = 1; round <= ROUNDS; round++) {
    log(`round ${round}/${ROUNDS}`);
    if (round % 2 === 1) {
      engineRates.push(await freshRound(false));
      traced.push(await freshRound(true));
    } else {
      traced.push(await freshRound(true));
      engineRates.push(await freshRound(false));
    }
  }
  const [offRate, onRate] = [engineRates, traced].map((rates) => medianOf(rates.map((r) => r.perSecond)));
  const [offCpu, onCpu] = [engineRates, traced].map((rates) => medianOf(rates.map((r) => r.cpuUs)));
  const [offReady, onReady] = [engineRates, traced].map((rates) =>
    medianOf(rates.map((r) => r.readyCpuUs ?? NaN)),
  );
  console.log('\nTracing cost, engine (one worker process), medians of the rounds');
  console.log(
    `  deliveries/s: untraced ${engineRates.map((r) => r.perSecond.toFixed(0)).join(', ')}; ` +
      `traced ${traced.map((r) => r.perSecond.toFixed(0)).join(', ')}; ${percentChange(offRate ?? NaN, onRate ?? NaN)}`,
  );
  // The rounds of one pair ran back to back, on the machine as it was then: their ratio is steadier
  // than a ratio of medians taken over minutes.
  const pairedCpu = medianOf(traced.map((r, i) => r.cpuUs / (engineRates[i]?.cpuUs ?? NaN)));
  console.log(
    `  worker CPU per delivery: untraced ${offCpu?.toFixed(0)} µs, traced ${onCpu?.toFixed(0)} µs; ` +
      `${percentChange(offCpu ?? NaN, onCpu ?? NaN)}; median of the rounds' traced ÷ untraced: ` +
      `${percentChange(1, pairedCpu)}`,
  );
  const pairedReady = medianOf(
    traced.map((r, i) => (r.readyCpuUs ?? NaN) / (engineRates[i]?.readyCpuUs ?? NaN)),
  );
  console.log(
    `  the same once the worker is ready (its start-up left out): untraced ${engineRates.map((r) => r.readyCpuUs?.toFixed(0)).join(', ')} µs; ` +
      `traced ${traced.map((r) => r.readyCpuUs?.toFixed(0)).join(', ')} µs; ${percentChange(offReady ?? NaN, onReady ?? NaN)}; ` +
      `median of the rounds' ratios ${percentChange(1, pairedReady)}`,
  );
  const pairedMain = medianOf(
    traced.map((r, i) => (r.readyMainThreadUs ?? NaN) / (engineRates[i]?.readyMainThreadUs ?? NaN)),
  );
  console.log(
    `  of which the main thread (JavaScript; not V8's compiler and GC helpers): untraced ${engineRates.map((r) => r.readyMainThreadUs?.toFixed(0)).join(', ')} µs; ` +
      `traced ${traced.map((r) => r.readyMainThreadUs?.toFixed(0)).join(', ')} µs; median of the rounds' ratios ${percentChange(1, pairedMain)}`,
  );
  log(`${ROUNDS} alternating paced rounds: the engine untraced and traced at ${PACED_RATE} events/s each`);
  const pacedOff: Rate[] = [];
  const pacedOn: Rate[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    log(`paced round ${round}/${ROUNDS}`);
    if (round % 2 === 1) {
      pacedOff.push(await pacedRound(false));
      pacedOn.push(await pacedRound(true));
    } else {
      pacedOn.push(await pacedRound(true));
      pacedOff.push(await pacedRound(false));
    }
  }
  const pacedRatio = medianOf(pacedOn.map((r, i) => r.cpuUs / (pacedOff[i]?.cpuUs ?? NaN)));
  console.log(
    `  at ${PACED_RATE} events/s offered, worker CPU per delivery: untraced ${pacedOff.map((r) => r.cpuUs.toFixed(0)).join(', ')} µs; ` +
      `traced ${pacedOn.map((r) => r.cpuUs.toFixed(0)).join(', ')} µs; median of the rounds' ratios ${percentChange(1, pacedRatio)}`,
  );
}

/** The statements that took most of PostgreSQL's time since the last reset, per delivery. */
async function printTopStatements(deliveries: number): Promise<void> {
  const top = await ctx.pool.query<{ calls: string; total_ms: number; rows: string; query: string }>(
    `SELECT calls, total_exec_time AS total_ms, rows, regexp_replace(query, '\\s+', ' ', 'g') AS query
       FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'
      ORDER BY total_exec_time DESC LIMIT 10`,
  );
  log(`  PostgreSQL statements by time (${deliveries} deliveries since the round's start):`);
  for (const r of top.rows) {
    const perDelivery = (r.total_ms * 1000) / Math.max(1, deliveries);
    log(
      `    ${perDelivery.toFixed(0).padStart(5)} µs/delivery ${String(r.calls).padStart(7)} calls ${String(r.rows).padStart(7)} rows  ${r.query.slice(0, 150)}`,
    );
  }
}

/** Lines the latency runs' worker prints, to whoever waits for one. */
const workerLines = new EventEmitter<{ line: [string] }>();
const emitLine = (line: string): boolean => workerLines.emit('line', line);

/** The worker's event-loop delay and GC pauses since the last ask (it prints them on SIGUSR2). */
function workerLoopDelay(child: ChildProcess): Promise<string> {
  return new Promise((resolve) => {
    const onLine = (line: string): void => {
      const m = /^loop-delay (\S+) (\S+) (\S+) gc (\S+) (\S+) (\S+)/.exec(line);
      if (!m) return;
      workerLines.off('line', onLine);
      resolve(
        `p50 ${m[1]} / p99 ${m[2]} / max ${m[3]} ms; GC ${m[4]} pauses, ${m[5]} ms in all, longest ${m[6]} ms`,
      );
    };
    workerLines.on('line', onLine);
    child.kill('SIGUSR2');
  });
}

/**
 * One latency run: `rate` events/s for `seconds`, commit → first attempt arriving, and where
 * each event's time went, hop by hop (harness/hops.ts), with what may have stalled the hops: the
 * worker's and this process's event loops, PostgreSQL's waits, the lane jobs that had to start.
 */
async function latencyRun(
  rate: number,
  worker: ChildProcess,
  web: WebProcess,
  seconds = LATENCY_SECONDS,
  label = '',
): Promise<string[]> {
  const tapConnection = new Redis(env.redis.url);
  log(`latency${label}: ${rate} events/s for ${seconds} s`);
  const loadAtStart = os.loadavg()[0]?.toFixed(2) ?? '?';
  commitTimes.clear();
  firstArrival.clear();
  const outboxTap = new QueueTap(tapConnection, ctx.producers.queue('outbox'), true);
  const laneTap = new QueueTap(tapConnection, ctx.producers.queue('deliveryLanes'), false);
  await Promise.all([outboxTap.start(), laneTap.start()]);
  const pgWaits = new PgWaitSampler(env.databaseUrl);
  await pgWaits.start();
  await workerLoopDelay(worker);
  const benchLoop = monitorEventLoopDelay({ resolution: 5 });
  benchLoop.enable();
  const [workerCpuBefore, webCpuBefore] = [cpuSeconds(worker.pid), cpuSeconds(web.pid)];
  const serversBefore = await cpuNow([]);
  if (PG_STATEMENTS) await ctx.pool.query('SELECT pg_stat_statements_reset()');
  const achievedRate = await web(rate, seconds);
  await waitFor(
    'latency deliveries',
    () => [...commitTimes.keys()].every((id) => firstArrival.has(id)),
    60_000,
  );
  const serversAfter = await cpuNow([]);
  if (PG_STATEMENTS) await printTopStatements(commitTimes.size);
  const perEvent = (from: number | undefined, to: number | undefined): string =>
    ((((to ?? NaN) - (from ?? NaN)) / Math.max(1, commitTimes.size)) * 1e6).toFixed(0);
  const cpuLine =
    `  CPU per event, µs: worker ${perEvent(workerCpuBefore, cpuSeconds(worker.pid))}, ` +
    `web ${perEvent(webCpuBefore, cpuSeconds(web.pid))}, PostgreSQL ${perEvent(serversBefore.postgres, serversAfter.postgres)}, ` +
    `redis-server ${perEvent(serversBefore.redis, serversAfter.redis)}, receiver ${perEvent(serversBefore.receiver, serversAfter.receiver)}`;
  benchLoop.disable();
  const workerLoop = await workerLoopDelay(worker);
  const waits = await pgWaits.stop();
  await Promise.all([outboxTap.stop(), laneTap.stop()]);
  tapConnection.disconnect();

  const latencies = [...commitTimes.entries()]
    .map(([id, at]) => (firstArrival.get(id) ?? NaN) - at)
    .sort((x, y) => x - y);
  const lines = [
    `commit → first attempt${label} at ${rate}/s offered (${achievedRate.toFixed(0)}/s committed): p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, p99.9 ${percentile(latencies, 99.9).toFixed(1)} ms, max ${(latencies.at(-1) ?? NaN).toFixed(1)} ms over ${latencies.length} events` +
      ` [${machineSpeed()}; load ${loadAtStart} at the start]`,
  ];
  // The rows' own clocks: PostgreSQL's as the fan-out claimed the event (and wrote its delivery), the
  // worker's as the POST started.
  const rows = await ctx.pool.query<{ id: string; claimed: number; request: number }>(
    `SELECT e.id, extract(epoch FROM d.created_at) * 1000 AS claimed, extract(epoch FROM a.requested_at) * 1000 AS request
       FROM events e
       JOIN deliveries d ON d.event_id = e.id
       JOIN delivery_attempts a ON a.delivery_id = d.id AND a.attempt = 1
      WHERE e.id = ANY($1)`,
    [[...commitTimes.keys()]],
  );
  const times: EventTimes[] = rows.rows.map((r) => {
    const job = outboxTap.jobOf.get(r.id);
    return {
      commit: commitTimes.get(r.id) ?? NaN,
      ...(job === undefined ? {} : { added: outboxTap.added.get(job), taken: outboxTap.taken.get(job) }),
      claimed: Number(r.claimed),
      request: Number(r.request),
      arrival: firstArrival.get(r.id),
    };
  });
  lines.push(...summarizeHops(times).map((l) => `  ${l}`));
  // Of the slowest 1 %, how many had their POST wait for a lane job to start (the lane was released).
  const totals = times.map((t) => (t.arrival ?? NaN) - t.commit).sort((a, b) => a - b);
  const p99 = percentile(totals, 99);
  const tail = times.filter((t) => (t.arrival ?? NaN) - t.commit >= p99);
  const laneStarts = [...laneTap.taken.values()];
  const afterLaneStart = tail.filter((t) =>
    laneStarts.some((at) => at >= (t.claimed ?? NaN) - 1 && at <= (t.request ?? NaN)),
  ).length;
  // When in the run the slowest 1 % committed: all at its start is a cold start, spread out is load.
  const runStart = Math.min(...times.map((t) => t.commit));
  const tailAt = tail.map((t) => (t.commit - runStart) / 1000).sort((a, b) => a - b);
  lines.push(
    `  relay jobs: ${outboxTap.added.size} for ${commitTimes.size} events; lane jobs started during the run: ${laneStarts.length}; of the slowest 1 % (${tail.length}), ${afterLaneStart} sent by a lane job that started after their claim; ` +
      `they committed ${(tailAt[0] ?? NaN).toFixed(2)}–${(tailAt.at(-1) ?? NaN).toFixed(2)} s into the run`,
  );
  lines.push(cpuLine);
  lines.push(`  event-loop delay: worker ${workerLoop}`);
  lines.push(
    `  event-loop delay: the receiver p50 ${Math.max(0, benchLoop.percentile(50) / 1e6 - 5).toFixed(1)} / ` +
      `p99 ${Math.max(0, benchLoop.percentile(99) / 1e6 - 5).toFixed(1)} / max ${Math.max(0, benchLoop.max / 1e6 - 5).toFixed(1)} ms`,
  );
  lines.push(`  PostgreSQL active backends, mean per sample: ${waits}`);
  for (const line of lines) log(line);
  return lines;
}

/** Raw BullMQ, for scale: no-op jobs at the same concurrency, queued first, then drained (jobs/s). */
async function rawBullmq(): Promise<number> {
  log(`raw BullMQ: ${RAW_JOBS} no-op jobs, concurrency ${CONCURRENCY}`);
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
  for (let i = 0; i < RAW_JOBS; i += 500) {
    await rawQueue.addBulk(
      Array.from({ length: Math.min(500, RAW_JOBS - i) }, (_, j) => ({
        name: 'noop',
        data: { i: i + j },
        opts: { removeOnComplete: { age: 3600, count: 10_000 } },
      })),
    );
  }
  const rawWorker = await startWorkerProcess('raw');
  const rawStart = performance.now();
  await waitFor('raw jobs', () => rawDone >= RAW_JOBS, 120_000);
  const rawSeconds = (performance.now() - rawStart) / 1000;
  const rawRate = RAW_JOBS / rawSeconds;
  log(`raw BullMQ: ${rawRate.toFixed(0)} jobs/s (${rawSeconds.toFixed(2)} s)`);
  await stopWorkerProcess(rawWorker);
  await rawEvents.close();
  await rawQueue.close();
  rawConnection.disconnect();
  return rawRate;
}

const medianOf = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};

try {
  // 1. Raw BullMQ, for scale.
  const rawRate = LATENCY_ONLY ? NaN : await rawBullmq();

  // 2. Engine against bare sender, alternating (bare first in odd rounds, engine first in even
  // ones). The bare sender sends until stopped, measured for ROUND_SECONDS after WARMUP_SECONDS; the
  // engine drains a backlog of committed events (outbox rows and their fast-path jobs) sized to last
  // at least ROUND_SECONDS, measured whole, from starting its workers to its last relay job.
  // Both reach the same receiver, and both may have CONCURRENCY requests open.
  log(
    `allowed in flight: bare sender ${CONCURRENCY} parallel senders (DELIVERY_CONCURRENCY); engine 1 integration × ` +
      `WEBHOOK_MAX_IN_FLIGHT ${CONCURRENCY} = ${CONCURRENCY} requests (DELIVERY_CONCURRENCY ${CONCURRENCY} lane slots, ` +
      `OUTBOX_CONCURRENCY ${CONCURRENCY})`,
  );
  log(
    `${ROUNDS} alternating rounds: bare sender ${WARMUP_SECONDS} s warm-up + ${ROUND_SECONDS} s measured; ` +
      `engine a backlog of about ${ROUND_SECONDS} s, measured whole`,
  );
  // BENCH_TRACING=compare runs its own rounds (the engine untraced and traced) instead.
  for (let round = 1; round <= ROUNDS && !TRACING_COMPARE && !LATENCY_ONLY; round++) {
    log(`round ${round}/${ROUNDS}`);
    if (round % 2 === 1) {
      bareRates.push(await bareRound());
      engineRates.push(await engineRound(1));
    } else {
      engineRates.push(await engineRound(1));
      bareRates.push(await bareRound());
    }
  }
  const ratios = engineRates.map((e, i) => e.perSecond / (bareRates[i]?.perSecond ?? NaN));
  const engineRate = medianOf(engineRates.map((r) => r.perSecond));
  const bareRate = medianOf(bareRates.map((r) => r.perSecond));

  if (TRACING_COMPARE) {
    await compareTracing();
  } else if (process.env.BENCH_ROUNDS_ONLY === '1') {
    // Iterating on the engine: the rounds are the figure, the rest takes minutes more.
    console.log(
      `\nper-round ratios engine ÷ bare: ${ratios.map((r) => r.toFixed(2)).join(', ')}; median ${medianOf(ratios).toFixed(2)}`,
    );
    process.exitCode = 0;
  } else {
    // 3. Two worker processes drain the same kind of backlog.
    // One integration is one lane, sent by one runner at a time: a second process shares the relay,
    // the fan-out and the recording, not the sending.
    log('engine with two worker processes (the same one integration)');
    const pairRate = LATENCY_ONLY ? NaN : (await engineRound(2)).perSecond;

    // Every backlog was drained whole, relay jobs included: the latency runs start from empty.
    // Only the latency runs: one bare sender round still measures the machine's speed.
    if (LATENCY_ONLY) bareRates.push(await bareRound());
    const latencyWorker = await startWorkerProcess('engine', {}, emitLine);
    const web = await startWebProcess();
    await ctx.pool.query('ANALYZE events, deliveries, delivery_attempts');
    await sleep(500);
    trackArrivals = true;

    // 5. Latency at fixed offered rates: commit → first attempt arriving at the receiver.
    const latencyResults: string[] = [];
    // A worker in service has run for a while: its first seconds (connections opened, statements
    // prepared, code compiled) are measured apart, at the first rate, then each rate is measured.
    latencyResults.push(
      ...(await latencyRun(
        RATES[0] ?? 500,
        latencyWorker,
        web,
        LATENCY_WARMUP_SECONDS,
        ', the worker fresh',
      )),
    );
    for (const rate of RATES) latencyResults.push(...(await latencyRun(rate, latencyWorker, web)));
    await stopWorkerProcess(latencyWorker);

    console.log('\nResults');
    if (!LATENCY_ONLY) {
      console.log(`  raw BullMQ no-op jobs:        ${rawRate.toFixed(0)} jobs/s`);
      console.log(
        `  in flight at most, each side: ${CONCURRENCY} (bare: parallel senders; engine: 1 integration × WEBHOOK_MAX_IN_FLIGHT ${CONCURRENCY})`,
      );
      console.log(
        `  rounds (bare ${WARMUP_SECONDS} s warm-up + ${ROUND_SECONDS} s measured; engine a whole backlog, ${engineRates.map((r) => `${r.seconds.toFixed(1)} s`).join(', ')}): bare ${bareRates.map((r) => r.perSecond.toFixed(0)).join(', ')}; ` +
          `engine ${engineRates.map((r) => r.perSecond.toFixed(0)).join(', ')} deliveries/s`,
      );
      console.log(`  per-round ratios engine ÷ bare: ${ratios.map((r) => r.toFixed(2)).join(', ')}`);
      console.log(
        `  bare sender (POST + INSERT):  ${bareRate.toFixed(0)} deliveries/s (median), CPU ${medianOf(bareRates.map((r) => r.cpuUs)).toFixed(0)} µs per delivery`,
      );
      console.log(
        `  engine, one worker process:   ${engineRate.toFixed(0)} deliveries/s (median), CPU ${medianOf(engineRates.map((r) => r.cpuUs)).toFixed(0)} µs per delivery`,
      );
      console.log(
        `  engine ÷ bare, median of the per-round ratios: ${medianOf(ratios).toFixed(2)} (target ≥ 0.6)`,
      );
      console.log(
        `  engine, two worker processes: ${pairRate.toFixed(0)} deliveries/s  (${(pairRate / engineRate).toFixed(2)} × one: one integration's lane has one runner at a time, so a second process adds capacity across integrations, not within one)`,
      );
    }
    for (const line of latencyResults) console.log(`  ${line}`);
    console.log('  (target: p99 < 100 ms at 500 and at 1,000 events/s)');
  }
  if (tracingSink)
    console.log(
      `  tracing on: the engine sent ${tracingSink.spans()} spans in ${tracingSink.exports()} exports to the OTLP sink`,
    );
} finally {
  for (const child of children) child.kill('SIGKILL');
  await tracingSink?.close();
  await owned.close();
  receiver.closeAllConnections();
  receiver.close();
  await env.stop();
}
process.exit(0);
