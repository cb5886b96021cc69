/**
 * `npm run bench`: requests/s and latency of POST /v1/payment-links and GET /v1/payment-links/{id}
 * against bare Express + pg doing one INSERT / one primary-key SELECT on the same database, and
 * deep keyset pagination (page 500 of 100,000 links against page 1). Everything runs on this
 * machine in one go: an embedded PostgreSQL (fast mode) and a private redis-server in a temp dir,
 * the service (compiled first) and the baseline (compiled in the same build,
 * `node dist/bench/baseline-server.js`) as child processes, autocannon in this process, at the same
 * connection count for both.
 *
 * The service runs as the Procfile runs it (BENCH_SHAPE=procfile, the default): the release step
 * (`node dist/src/migrate-cli.js`), then `web` (`node dist/src/web.js`) and `worker`
 * (`node dist/workers/main.js`) as separate processes. CPU per request counts every process a
 * request costs: web and worker (the baseline: its one process), redis-server and PostgreSQL.
 * BENCH_SHAPE=web: the web process alone (migrations applied by the bench, no worker), as before.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { seedCompany } from '../src/cli/seed.js';
import { createDatabase } from '../src/shared/db/index.js';
import { migrate } from '../src/shared/db/migrate.js';
import { startEmbeddedPostgres } from '../src/infra/embedded-postgres.js';
import { freePort } from '../src/infra/free-port.js';
import { PrivateRedis } from '../src/infra/private-redis.js';
import { benchTracing, percentChange, startOtlpSink, type OtlpSink } from './harness/otlp-sink.js';
import { cpuSeconds, postgresCpuSeconds, serverPids } from './harness/util.js';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_S = 2;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const LIST_SIZE = 100_000;
// BENCH_ONLY=get|post|health: that path of the service alone, no baseline and no list (with
// BENCH_PROFILE, a CPU profile of that path only).
const ONLY = process.env.BENCH_ONLY;
/** BENCH_SHAPE=procfile (default): release, web and worker processes; BENCH_SHAPE=web: web alone. */
const SHAPE = process.env.BENCH_SHAPE ?? 'procfile';
if (SHAPE !== 'procfile' && SHAPE !== 'web') throw new Error('BENCH_SHAPE must be procfile or web');
/**
 * BENCH_DIAG=1: after the rounds, one more POST run of the service with PostgreSQL's per-statement
 * figures (pg_stat_statements) and Redis's per-command ones (INFO commandstats) taken around it,
 * printed per request: where a create's work goes outside the Node processes.
 */
const DIAG = process.env.BENCH_DIAG === '1';
// BENCH_TRACING=compare: what tracing costs, measured in one run: the service traced (at
// OTEL_TRACES_SAMPLER's share; unset, the service's one in ten) beside the same service untraced, alternating, GET and POST; no baseline and no list.
// BENCH_TRACING=control: the same runs with both sides untraced, so that the spread of its rounds
// shows what the method reads when there is nothing to find.
const TRACING_CONTROL = process.env.BENCH_TRACING === 'control';
const TRACING_COMPARE = process.env.BENCH_TRACING === 'compare' || TRACING_CONTROL;
/**
 * BENCH_TRACING=compare's paced runs: each side at this share of the slower one's rate flat out,
 * both at once (together half the machine's pace; fresh processes, even warmed, are slower than the
 * long-lived pair that set the rate).
 */
const PACED_SHARE = 0.25;
/** Paced rounds (each a fresh pair of processes): BENCH_PACED_ROUNDS, else three times BENCH_ROUNDS. */
const PACED_ROUNDS = Number(process.env.BENCH_PACED_ROUNDS ?? 3 * ROUNDS);
/** Seconds each paced round measures. */
const PACED_DURATION_S = 2 * DURATION_S;
/**
 * Seconds flat out that warm a fresh pair up before it is measured (BENCH_FRESH_WARMUP). A traced
 * process at one request in ten still compiles its traced path long after the untraced one has
 * settled: that path runs ten times less often, so it reaches V8's thresholds later. After 6 s, the
 * traced process compiled twice as many functions while measured, and a POST came out +17 %; after
 * 30 s, +7.5 %.
 */
const FRESH_WARMUP_S = Number(process.env.BENCH_FRESH_WARMUP ?? 30);
const here = path.dirname(fileURLToPath(import.meta.url));

interface Measure {
  rps: number;
  /** Requests answered in the run. */
  requests: number;
  p50: number;
  p99: number;
  errors: number;
  /**
   * CPU time (user + system) per request answered, in µs: of the server process, or (with `parts`)
   * of every process the side runs on (its Node processes, redis-server, PostgreSQL).
   */
  cpuUs: number;
  /** The same by process (with `parts`; else the server process alone). */
  cpuBy: Record<string, number>;
  /** Of the server's main thread alone (JavaScript; not V8's compiler and GC helpers). */
  mainThreadUs: number;
}

/** CPU seconds so far of each process of a side, by name. */
type CpuParts = () => Promise<Record<string, number>>;

/** The processes a side runs on: its Node processes, then the stores they share. */
function cpuParts(
  nodes: Record<string, ChildProcess>,
  stores: () => Promise<Record<string, number>>,
): CpuParts {
  return async () => {
    const out: Record<string, number> = {};
    for (const [name, child] of Object.entries(nodes)) out[name] = cpuSeconds(child.pid) ?? 0;
    return { ...out, ...(await stores()) };
  };
}

const log = (message: string): void => console.log(`[bench] ${message}`);

/** A compiled bench script (`dist/bench/<name>.js`), plain `node` as the service runs. */
function startChild(
  script: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [path.join(here, '..', 'dist', 'bench', script)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    // The child's log lines share its stdout; the one that names a port says it is listening.
    const onLine = (line: string): void => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        return;
      }
      const port = (parsed as { port?: unknown }).port;
      if (typeof port !== 'number' || 'level' in (parsed as object)) return;
      lines.off('line', onLine);
      resolve({ child, url: `http://127.0.0.1:${port}` });
    };
    lines.on('line', onLine);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${String(code)}`)));
  });
}

/**
 * Compiles the service and the baseline in one pass (`tsconfig.bench.json`: what `npm run build`
 * compiles, plus the bench's own processes): both sides run as plain JavaScript from `dist/`.
 */
async function build(): Promise<void> {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  await promisify(execFile)(process.execPath, [tsc, '-p', path.join(here, '..', 'tsconfig.bench.json')]);
}

/**
 * The web process as the Procfile starts it (`node dist/src/web.js`), ready once /healthz answers.
 * BENCH_PROFILE=DIR writes a CPU profile of it (open it in Chrome DevTools).
 */
let tracing: OtlpSink | undefined;

async function startService(
  env: Record<string, string>,
  traced = benchTracing(),
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  // BENCH_TRACING=1: the service exports its spans (to a sink that drops them); the baseline has none.
  if (traced) {
    tracing ??= await startOtlpSink();
    env = { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: tracing.url };
  }
  const profile = process.env.BENCH_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
    : [];
  const child = spawn(process.execPath, [...profile, path.join(here, '..', 'dist', 'src', 'web.js')], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let waited = 0; waited < 30_000; waited += 100) {
    if (child.exitCode !== null) throw new Error(`dist/src/web.js exited with ${String(child.exitCode)}`);
    const up = await fetch(`${url}/healthz`).then(
      (res) => res.ok,
      () => false,
    );
    if (up) return { child, url };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error('dist/src/web.js did not answer /healthz within 30 s');
}

/** The Procfile's `release` step: `node dist/src/migrate-cli.js`, which must exit 0. */
async function release(env: Record<string, string>): Promise<void> {
  await promisify(execFile)(process.execPath, [path.join(here, '..', 'dist', 'src', 'migrate-cli.js')], {
    env: { ...process.env, ...env },
  });
}

/**
 * The worker process as the Procfile starts it (`node dist/workers/main.js`), ready once it logs
 * that its workers started (it logs at info for that line; nothing else of its logs is per request).
 * BENCH_PROFILE=DIR writes a CPU profile of it too.
 */
function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const profile = process.env.BENCH_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
    : [];
  const child = spawn(process.execPath, [...profile, path.join(here, '..', 'dist', 'workers', 'main.js')], {
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the worker did not start within 30 s')), 30_000);
    // Read to the end: a worker blocked on a full pipe would stall.
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      if (!line.includes('"workers started"')) return;
      clearTimeout(timer);
      resolve(child);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`dist/workers/main.js exited with ${String(code)}`));
    });
  });
}

/** Redis's per-command figures (`INFO commandstats`): calls and µs by command. */
async function commandStats(redis: Redis): Promise<Map<string, { calls: number; usec: number }>> {
  const stats = new Map<string, { calls: number; usec: number }>();
  for (const line of (await redis.info('commandstats')).split('\n')) {
    const match = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line.trim());
    if (match?.[1] !== undefined) stats.set(match[1], { calls: Number(match[2]), usec: Number(match[3]) });
  }
  return stats;
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function load(
  url: string,
  options: {
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string;
    duration?: number;
    /** The server process whose CPU time is charged to the requests. */
    pid?: number | undefined;
    /** Every process whose CPU time is charged to the requests (else `pid` alone). */
    parts?: CpuParts | undefined;
    /** Requests per second in all (unset: as fast as the connections go). */
    rate?: number | undefined;
  } = {},
): Promise<Measure> {
  const sample: CpuParts = options.parts ?? (() => Promise.resolve({ server: cpuSeconds(options.pid) ?? 0 }));
  const cpuBefore = await sample();
  const mainBefore = cpuSeconds(options.pid, true) ?? 0;
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: options.duration ?? DURATION_S,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.body !== undefined ? { body: options.body } : {}),
    ...(options.rate !== undefined ? { overallRate: options.rate } : {}),
  });
  const cpuAfter = await sample();
  const requests = Math.max(1, result.requests.total);
  const cpuBy = Object.fromEntries(
    Object.entries(cpuAfter).map(([name, after]) => [
      name,
      ((after - (cpuBefore[name] ?? 0)) / requests) * 1e6,
    ]),
  );
  return {
    rps: result.requests.average,
    requests: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts,
    cpuUs: Object.values(cpuBy).reduce((sum, us) => sum + us, 0),
    cpuBy,
    mainThreadUs:
      (((cpuSeconds(options.pid, true) ?? 0) - mainBefore) / Math.max(1, result.requests.total)) * 1e6,
  };
}

async function measure(label: string, run: () => Promise<Measure>): Promise<Measure> {
  const m = await run();
  log(
    `  ${label.padEnd(34)} ${m.rps.toFixed(0).padStart(6)} req/s   p50 ${m.p50} ms   p99 ${m.p99} ms   ` +
      `CPU ${m.cpuUs.toFixed(0)} µs/req`,
  );
  if (m.errors > 0) throw new Error(`${label}: ${m.errors} failed requests; the figures would mean nothing`);
  return m;
}

/** Median of each figure on its own (rounds are few, so one noisy round cannot move it). */
function median(runs: Measure[]): Measure {
  const mid = (values: number[]): number => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? 0;
  };
  return {
    rps: mid(runs.map((r) => r.rps)),
    requests: runs.reduce((sum, r) => sum + r.requests, 0),
    p50: mid(runs.map((r) => r.p50)),
    p99: mid(runs.map((r) => r.p99)),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    cpuUs: mid(runs.map((r) => r.cpuUs)),
    cpuBy: Object.fromEntries(
      Object.keys(runs[0]?.cpuBy ?? {}).map((name) => [name, mid(runs.map((r) => r.cpuBy[name] ?? 0))]),
    ),
    mainThreadUs: mid(runs.map((r) => r.mainThreadUs)),
  };
}

type Served = { child: ChildProcess; url: string };

/**
 * BENCH_TRACING=compare: the same service twice, one exporting the spans of the requests it samples (to
 * a sink that drops them) and one untraced, taking turns (which goes first alternates by round) on a
 * GET and a POST; prints each side's median requests/s and CPU per request, and what tracing adds.
 */
async function compareTracing(
  sides: { untraced: Served; traced: Served },
  freshSides: () => Promise<{ untraced: Served; traced: Served }>,
  auth: Record<string, string>,
  createBody: string,
): Promise<void> {
  const create = async (side: Served): Promise<string> => {
    const res = await fetch(`${side.url}/v1/payment-links`, {
      method: 'POST',
      headers: auth,
      body: createBody,
    });
    return ((await res.json()) as { id: string }).id;
  };
  const paths = {
    GET: async (side: Served) => {
      const id = await create(side);
      return (duration = DURATION_S, rate?: number) =>
        load(`${side.url}/v1/payment-links/${id}`, { headers: auth, duration, pid: side.child.pid, rate });
    },
    POST: (side: Served) =>
      Promise.resolve((duration = DURATION_S, rate?: number) =>
        load(`${side.url}/v1/payment-links`, {
          method: 'POST',
          headers: auth,
          body: createBody,
          duration,
          pid: side.child.pid,
          rate,
        }),
      ),
  };
  /** Runs of both sides, a round at a time, alternating which goes first. */
  const alternate = async (
    label: string,
    off: () => Promise<Measure>,
    on: () => Promise<Measure>,
  ): Promise<{ offRuns: Measure[]; onRuns: Measure[] }> => {
    const offRuns: Measure[] = [];
    const onRuns: Measure[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      log(`${label} round ${round}/${ROUNDS}`);
      const runOff = async () => offRuns.push(await measure(`untraced ${label}`, off));
      const runOn = async () => onRuns.push(await measure(`traced ${label}`, on));
      if (round % 2 === 1) {
        await runOff();
        await runOn();
      } else {
        await runOn();
        await runOff();
      }
    }
    return { offRuns, onRuns };
  };
  const pairedMedianOf = (onRuns: Measure[], offRuns: Measure[], figure: (m: Measure) => number) => {
    const paired = onRuns.map((on, i) => figure(on) / figure(offRuns[i] ?? on)).sort((x, y) => x - y);
    return { paired, median: paired[Math.floor(paired.length / 2)] ?? NaN };
  };
  if (TRACING_CONTROL)
    log('BENCH_TRACING=control: the side called traced below is untraced too; any difference is the method');
  log(
    `tracing cost: the service untraced (${sides.untraced.url}) and traced (${sides.traced.url}), ` +
      `${CONNECTIONS} connections, ${DURATION_S} s per run, ${ROUNDS} rounds alternating`,
  );
  const rows: string[] = [];
  const mainThreadRows: string[] = [];
  const pacedRows: string[] = [];
  // BENCH_ONLY=get|post: that path alone (with BENCH_PROFILE, a profile of each side on that path).
  const chosen = Object.entries(paths).filter(([method]) => !ONLY || method === ONLY.toUpperCase());
  for (const [method, make] of chosen) {
    const off = await make(sides.untraced);
    const on = await make(sides.traced);
    await off(WARMUP_S);
    await on(WARMUP_S);
    const { offRuns, onRuns } = await alternate(
      method,
      () => off(),
      () => on(),
    );
    const a = median(offRuns);
    const b = median(onRuns);
    // The two runs of a round went back to back, on the machine as it was then: their ratio is
    // steadier than a ratio of medians taken minutes apart.
    const { paired, median: pairedMedian } = pairedMedianOf(onRuns, offRuns, (m) => m.cpuUs);
    const main = pairedMedianOf(onRuns, offRuns, (m) => m.mainThreadUs);
    mainThreadRows.push(
      `  ${method}: main thread µs per request untraced ${offRuns.map((r) => r.mainThreadUs.toFixed(0)).join(', ')}; ` +
        `traced ${onRuns.map((r) => r.mainThreadUs.toFixed(0)).join(', ')}; median of the rounds' ratios ` +
        `${percentChange(1, main.median)}`,
    );
    rows.push(
      `| ${method} | ${a.rps.toFixed(0)} | ${b.rps.toFixed(0)} | ${percentChange(a.rps, b.rps)} | ${a.cpuUs.toFixed(0)} | ${b.cpuUs.toFixed(0)} | ${percentChange(a.cpuUs, b.cpuUs)} | ${paired.map((r) => percentChange(1, r)).join(', ')} | ${percentChange(1, pairedMedian)} |`,
    );
    // Flat out, a side's CPU per request also moves with its pace (how many requests share an
    // event-loop turn, a batch, a round trip), so the faster side looks cheaper. Paced, both sides
    // take the same requests at the same rate, below either's capacity.
    //
    // Each paced round has a fresh pair of processes: one process can run faster or slower than
    // another of the same code for its whole life (where its JIT and allocator put things), so the
    // rounds of one pair are not independent samples; the same comparison ran +7 % and +27 % in two
    // runs half an hour apart, each run's rounds agreeing with one another.
    //
    // The two sides of a round run at the same time, each at its own rate, so that whatever the
    // machine does meanwhile (another tenant of the VM, the kernel's housekeeping, PostgreSQL's
    // checkpoints) falls on both alike. Taking turns, one side met the machine's slow seconds and
    // the other did not: rounds of the same comparison spread from -14 to +36 %.
    const rate = Math.round(PACED_SHARE * Math.min(a.rps, b.rps));
    const paced: { offRuns: Measure[]; onRuns: Measure[] } = { offRuns: [], onRuns: [] };
    for (let round = 1; round <= PACED_ROUNDS; round++) {
      log(
        `${method} at ${rate}/s each round ${round}/${PACED_ROUNDS}, a fresh pair of processes side by side`,
      );
      const pair = await freshSides();
      try {
        const [pairOff, pairOn] = [await make(pair.untraced), await make(pair.traced)];
        // Fresh processes: a warm-up flat out first, so that the JIT has settled (FRESH_WARMUP_S).
        await Promise.all([pairOff(FRESH_WARMUP_S), pairOn(FRESH_WARMUP_S)]);
        const [off, on] = await Promise.all([
          measure(`untraced ${method} at ${rate}/s`, () => pairOff(PACED_DURATION_S, rate)),
          measure(`traced ${method} at ${rate}/s`, () => pairOn(PACED_DURATION_S, rate)),
        ]);
        paced.offRuns.push(off);
        paced.onRuns.push(on);
      } finally {
        await Promise.all([stopChild(pair.untraced.child), stopChild(pair.traced.child)]);
      }
    }
    const pacedRatio = pairedMedianOf(paced.onRuns, paced.offRuns, (m) => m.cpuUs);
    pacedRows.push(
      `  ${method} at ${rate} requests/s: CPU µs per request untraced ${paced.offRuns.map((r) => r.cpuUs.toFixed(0)).join(', ')}; ` +
        `traced ${paced.onRuns.map((r) => r.cpuUs.toFixed(0)).join(', ')}; rounds, traced ÷ untraced (sorted) ` +
        `${pacedRatio.paired.map((r) => percentChange(1, r)).join(', ')}; median ${percentChange(1, pacedRatio.median)}`,
    );
  }
  console.log('');
  console.log(
    `Tracing cost, ${CONNECTIONS} connections each side, ${ROUNDS} alternating rounds of ${DURATION_S} s (medians)`,
  );
  console.log(
    '| path | untraced req/s | traced req/s | throughput | untraced CPU µs/req | traced CPU µs/req | CPU per request | rounds, traced ÷ untraced (sorted) | median of the rounds |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
  console.log("Of which the service's main thread (JavaScript; not V8's compiler and GC helpers):");
  for (const row of mainThreadRows) console.log(row);
  console.log(
    `Paced: both sides at once, each at ${PACED_SHARE * 100} % of the slower side's rate flat out, ${PACED_ROUNDS} rounds of ${PACED_DURATION_S} s, each a fresh pair of processes:`,
  );
  for (const row of pacedRows) console.log(row);
}

async function main(): Promise<void> {
  const started = Date.now();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'plinks-bench-'));
  await chmod(dir, 0o755);
  const children: ChildProcess[] = [];
  log(`temp dir ${dir}; starting embedded PostgreSQL (fast mode) and a private redis-server`);
  const postgres = await startEmbeddedPostgres({
    dir: path.join(dir, 'pg'),
    port: await freePort(),
    database: 'plinks_bench',
    persistent: false,
    fast: true,
    ...(DIAG
      ? { settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' } }
      : {}),
  });
  const redis = new PrivateRedis({ dir: path.join(dir, 'redis') });
  await redis.start();
  try {
    log('building dist/ (tsconfig.bench.json): service and baseline both run compiled, plain node');
    await build();
    const serviceEnv = {
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      DATABASE_URL: postgres.url,
      REDIS_URL: redis.url,
      // The bench's links are test links, which mail nobody; the worker still needs an SMTP server
      // to start (nothing listens on the discard port: no message is ever handed to it).
      SMTP_URL: 'smtp://127.0.0.1:9',
      // The bench measures throughput, not the limiter's refusals.
      RATE_LIMIT_PER_MINUTE: '1000000000',
      RATE_LIMIT_WRITES_PER_MINUTE: '1000000000',
    };
    const database = createDatabase(postgres.url, 2);
    if (SHAPE === 'procfile') {
      log('release step: node dist/src/migrate-cli.js');
      await release(serviceEnv);
    } else {
      await migrate(database.pool);
    }
    if (DIAG) await database.pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const tenant = await seedCompany(database.db);
    const offer = tenant.offers.find((o) => o.status === 'active');
    if (!offer) throw new Error('seed has no active offer');
    const ids = await database.pool.query<{ id: string; product_id: number }>(
      'SELECT id, product_id FROM offers WHERE code = $1',
      [offer.code],
    );
    const offerRow = ids.rows[0];
    if (!offerRow) throw new Error('offer not found');
    log(`seeded company ${tenant.company.id}`);

    const service = await startService(serviceEnv);
    children.push(service.child);
    const auth = { authorization: `Bearer ${tenant.keys.test}`, 'content-type': 'application/json' };
    const createBody = JSON.stringify({
      offer_code: offer.code,
      external_reference: 'bench',
      metadata: { source: 'bench' },
    });
    if (TRACING_COMPARE) {
      const traced = await startService(serviceEnv, !TRACING_CONTROL);
      children.push(traced.child);
      const freshSides = async (): Promise<{ untraced: Served; traced: Served }> => {
        const pair = await Promise.all([
          startService(serviceEnv, false),
          startService(serviceEnv, !TRACING_CONTROL),
        ]);
        children.push(...pair.map((side) => side.child));
        return { untraced: pair[0], traced: pair[1] };
      };
      await compareTracing({ untraced: service, traced }, freshSides, auth, createBody);
      await database.close();
      return;
    }
    const baseline = await startChild('baseline-server.js', {
      NODE_ENV: 'production',
      DATABASE_URL: postgres.url,
      BENCH_COMPANY_ID: String(tenant.company.id),
      BENCH_PRODUCT_ID: String(offerRow.product_id),
      BENCH_OFFER_ID: String(offerRow.id),
      BENCH_OFFER_CODE: offer.code,
    });
    children.push(baseline.child);
    const worker = SHAPE === 'procfile' ? await startWorker(serviceEnv) : undefined;
    if (worker) children.push(worker);
    const pgPort = new URL(postgres.url).port;
    const stores = async (): Promise<Record<string, number>> => {
      const pids = await serverPids(pgPort, redis.port);
      return {
        redis: pids.redis.reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0),
        postgres: postgresCpuSeconds(pids.postgres),
      };
    };
    // The Procfile shape charges each side with all it runs on; the web shape, its one process.
    const serviceParts = worker ? cpuParts({ web: service.child, worker }, stores) : undefined;
    const baselineParts = worker ? cpuParts({ baseline: baseline.child }, stores) : undefined;
    log(
      `shape ${SHAPE}: service on ${service.url}${worker ? ` with a worker process (pid ${worker.pid})` : ''}, ` +
        `baseline on ${baseline.url}; ${CONNECTIONS} connections each, ` +
        `${DURATION_S} s per run, ${ROUNDS} rounds alternating service and baseline`,
    );

    const one = await fetch(`${service.url}/v1/payment-links`, {
      method: 'POST',
      headers: auth,
      body: createBody,
    });
    const link = (await one.json()) as { id: string };

    // Other work on the machine comes and goes, so the two sides take turns, round after round,
    // and the figures reported are medians.
    const scenarios = {
      getBase: (duration = DURATION_S) =>
        load(`${baseline.url}/links/${link.id}`, { duration, pid: baseline.child.pid, parts: baselineParts }),
      getOurs: (duration = DURATION_S) =>
        load(`${service.url}/v1/payment-links/${link.id}`, {
          headers: auth,
          duration,
          pid: service.child.pid,
          parts: serviceParts,
        }),
      postBase: (duration = DURATION_S) =>
        load(`${baseline.url}/links`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: createBody,
          duration,
          pid: baseline.child.pid,
          parts: baselineParts,
        }),
      postOurs: (duration = DURATION_S) =>
        load(`${service.url}/v1/payment-links`, {
          method: 'POST',
          headers: auth,
          body: createBody,
          duration,
          pid: service.child.pid,
          parts: serviceParts,
        }),
      // The floor every request of the service pays before any of this component's code runs.
      healthOurs: (duration = DURATION_S) =>
        load(`${service.url}/healthz`, { duration, pid: service.child.pid, parts: serviceParts }),
    };
    const labels: Record<keyof typeof scenarios, string> = {
      getBase: 'baseline GET /links/:id',
      getOurs: 'service GET /v1/payment-links/{id}',
      postBase: 'baseline POST /links',
      postOurs: 'service POST /v1/payment-links',
      healthOurs: 'service GET /healthz (no DB)',
    };
    const only = ONLY === undefined ? undefined : (`${ONLY}Ours` as keyof typeof scenarios);
    if (only !== undefined && !(only in scenarios)) throw new Error('BENCH_ONLY must be get, post or health');
    const names = only ? [only] : (Object.keys(scenarios) as Array<keyof typeof scenarios>);
    log(`warming up (${WARMUP_S} s each)`);
    for (const name of names) await scenarios[name](WARMUP_S);
    const runs: Record<keyof typeof scenarios, Measure[]> = {
      getBase: [],
      getOurs: [],
      postBase: [],
      postOurs: [],
      healthOurs: [],
    };
    const cpuBefore = cpuSeconds(service.child.pid) ?? 0;
    // A and B alternate: baseline then service in odd rounds, service then baseline in even ones,
    // so a drift in the machine's other load does not always favour the same side.
    const swapped: Record<keyof typeof scenarios, keyof typeof scenarios> = {
      getBase: 'getOurs',
      getOurs: 'getBase',
      postBase: 'postOurs',
      postOurs: 'postBase',
      healthOurs: 'healthOurs',
    };
    for (let round = 1; round <= ROUNDS; round++) {
      log(`round ${round}/${ROUNDS}`);
      const order = only || round % 2 === 1 ? names : names.map((name) => swapped[name]);
      for (const name of order) runs[name].push(await measure(labels[name], () => scenarios[name]()));
    }
    if (only) {
      const m = median(runs[only]);
      // CPU time per request is steadier than requests/s on a shared machine: compare it between versions.
      const served = runs[only].reduce((sum, r) => sum + r.requests, 0);
      const cpu = (cpuSeconds(service.child.pid) ?? 0) - cpuBefore;
      log(
        `${labels[only]}: median ${m.rps.toFixed(0)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms; ` +
          `service CPU ${((cpu / served) * 1e6).toFixed(0)} µs per request`,
      );
      if (worker)
        log(
          `CPU µs per request by process (medians): ${Object.entries(m.cpuBy)
            .map(([name, us]) => `${name} ${us.toFixed(0)}`)
            .join(', ')}`,
        );
      await database.close();
      return;
    }
    const getBase = median(runs.getBase);
    const getOurs = median(runs.getOurs);
    const postBase = median(runs.postBase);
    const postOurs = median(runs.postOurs);
    const healthOurs = median(runs.healthOurs);

    if (DIAG) await diagnose(redis.url, database.pool, () => scenarios.postOurs());

    log(`deep pagination: inserting ${LIST_SIZE.toLocaleString('en')} links for a fresh company`);
    const listTenant = await seedCompany(database.db);
    await database.pool.query(
      `INSERT INTO payment_links (id, company_id, livemode, type, offer_id, offer_code, product_id, short_code, expires_at)
       SELECT 'plink_' || lpad(i::text, 24, '0'), $1, false, 'offer', o.id, o.code, o.product_id,
              'L' || lpad(to_hex(i), 7, '0') || $2, clock_timestamp() + interval '30 days'
       FROM generate_series(1, $3::int) AS i, (SELECT id, code, product_id FROM offers WHERE company_id = $1 LIMIT 1) o`,
      [listTenant.company.id, String(listTenant.company.id), LIST_SIZE],
    );
    await database.pool.query('ANALYZE payment_links');
    const cursor = await database.pool.query<{ id: string }>(
      `SELECT id FROM payment_links WHERE company_id = $1 AND livemode = false
       ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
      [listTenant.company.id, 499 * 20 - 1],
    );
    const page500 = cursor.rows[0]?.id ?? '';
    const listAuth = { authorization: `Bearer ${listTenant.keys.test}` };
    const listUrl = `${service.url}/v1/payment-links?limit=20`;
    const deepUrl = `${listUrl}&starting_after=${page500}`;
    await load(listUrl, { headers: listAuth, duration: WARMUP_S });
    const pageRuns: Measure[] = [];
    const deepRuns: Measure[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      pageRuns.push(
        await measure('service list page 1', () =>
          load(listUrl, { headers: listAuth, duration: 3, pid: service.child.pid, parts: serviceParts }),
        ),
      );
      deepRuns.push(
        await measure('service list page 500', () =>
          load(deepUrl, { headers: listAuth, duration: 3, pid: service.child.pid, parts: serviceParts }),
        ),
      );
    }
    const page1 = median(pageRuns);
    const deep = median(deepRuns);
    await database.close();

    // Each round's two sides ran back to back under the same load from the rest of the machine, so
    // the ratio is taken per round and the median of those is reported.
    const roundRatios = (ours: Measure[], base: Measure[]): number[] =>
      ours.map((m, i) => m.rps / (base[i]?.rps ?? Number.NaN));
    const medianRatio = (ours: Measure[], base: Measure[]): string => {
      const sorted = roundRatios(ours, base).sort((x, y) => x - y);
      return (sorted[Math.floor(sorted.length / 2)] ?? Number.NaN).toFixed(2);
    };
    const shown = (ours: Measure[], base: Measure[]): string =>
      roundRatios(ours, base)
        .map((r) => r.toFixed(2))
        .join(', ');
    log(
      `per-round ratios: GET ${shown(runs.getOurs, runs.getBase)}; POST ${shown(runs.postOurs, runs.postBase)}`,
    );
    const row = (label: string, base: Measure, ours: Measure, ratio: string): string =>
      `| ${label} | ${base.rps.toFixed(0)} | ${ours.rps.toFixed(0)} | ${ratio} | ${base.p50}/${base.p99} | ${ours.p50}/${ours.p99} | ` +
      `${base.cpuUs.toFixed(0)} | ${ours.cpuUs.toFixed(0)} |`;
    console.log('');
    console.log(`${CONNECTIONS} connections each side, ${ROUNDS} alternating rounds of ${DURATION_S} s`);
    console.log(
      '| measure | baseline req/s | service req/s | ratio, median of rounds (target) | baseline p50/p99 ms | service p50/p99 ms | baseline CPU µs/req | service CPU µs/req |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    console.log(row('GET one link', getBase, getOurs, `${medianRatio(runs.getOurs, runs.getBase)} (≥ 0.6)`));
    console.log(
      row('POST a link', postBase, postOurs, `${medianRatio(runs.postOurs, runs.postBase)} (≥ 0.5)`),
    );
    console.log(
      row('(floor) GET /healthz, no DB', getBase, healthOurs, medianRatio(runs.healthOurs, runs.getBase)),
    );
    if (worker) {
      const by = (m: Measure): string =>
        Object.entries(m.cpuBy)
          .map(([name, us]) => `${name} ${us.toFixed(0)}`)
          .join(', ');
      console.log('');
      console.log('CPU µs per request by process (medians of the rounds), shape procfile:');
      console.log(`  GET  service: ${by(getOurs)}; baseline: ${by(getBase)}`);
      console.log(`  POST service: ${by(postOurs)}; baseline: ${by(postBase)}`);
    }
    console.log('');
    console.log(
      `List of ${LIST_SIZE.toLocaleString('en')}: page 1 ${page1.rps.toFixed(0)} req/s, p50 ${page1.p50} ms, p99 ${page1.p99} ms; ` +
        `page 500 ${deep.rps.toFixed(0)} req/s, p50 ${deep.p50} ms, p99 ${deep.p99} ms; ` +
        `page 500 / page 1 latency (p50) ${(deep.p50 / Math.max(page1.p50, 0.001)).toFixed(2)}, throughput ${(page1.rps / deep.rps).toFixed(2)} (target ≤ 1.5)`,
    );
    log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await Promise.all(children.map(stopChild));
    // Counted once the service has stopped: its last spans go out as it shuts down.
    if (tracing)
      log(
        `tracing on: the service sent ${tracing.spans()} spans in ${tracing.exports()} exports to the OTLP sink`,
      );
    await tracing?.close();
    await redis.stop();
    await postgres.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * BENCH_DIAG=1: one POST run with Redis's command counters and PostgreSQL's statement counters
 * taken around it, per request answered.
 */
async function diagnose(
  redisUrl: string,
  pool: { query: <R extends object>(text: string) => Promise<{ rows: R[] }> },
  post: () => Promise<Measure>,
): Promise<void> {
  const client = new Redis(redisUrl);
  try {
    await pool.query('SELECT pg_stat_statements_reset()');
    const before = await commandStats(client);
    const m = await measure('service POST (diagnostics run)', post);
    const after = await commandStats(client);
    const statements = await pool.query<{ query: string; calls: string; total: number }>(
      `SELECT regexp_replace(query, '\\s+', ' ', 'g') AS query, calls::text AS calls, total_exec_time AS total
       FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'
       ORDER BY total_exec_time DESC LIMIT 12`,
    );
    const n = Math.max(1, m.requests);
    console.log('');
    console.log(`Diagnostics, one POST run of ${DURATION_S} s, ${m.requests} creates, per create:`);
    console.log('  Redis commands (INFO commandstats delta): calls, µs inside Redis');
    const rows = [...after.entries()]
      .map(([cmd, a]) => {
        const b = before.get(cmd) ?? { calls: 0, usec: 0 };
        return { cmd, calls: (a.calls - b.calls) / n, usec: (a.usec - b.usec) / n };
      })
      .filter((r) => r.calls > 0)
      .sort((x, y) => y.usec - x.usec);
    for (const r of rows)
      console.log(`    ${r.cmd.padEnd(24)} ${r.calls.toFixed(3)} calls  ${r.usec.toFixed(1)} µs`);
    console.log('  PostgreSQL statements (pg_stat_statements): calls, µs of execution');
    for (const r of statements.rows)
      console.log(
        `    ${(Number(r.calls) / n).toFixed(3)} calls  ${((r.total * 1000) / n).toFixed(1)} µs  ${r.query.slice(0, 150)}`,
      );
  } finally {
    client.disconnect();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
