/**
 * `npm run bench:fairness`: does one company's misbehaving receiver slow another company's webhooks?
 * Web and worker run apart, compiled, as the Procfile runs them, on their own PostgreSQL and
 * redis-server. Side by side in one run, company B (a receiver that answers at once, 2 card
 * payments/s, 6 events/s) is measured commit → first attempt:
 *   - alone;
 *   - beside company A whose receiver answers 200 after 3 s, fed 12 card payments/s (36 events/s);
 *   - beside company A whose receiver never answers (each attempt waits out WEBHOOK_TIMEOUT_MS).
 * Then a receiver that is down (it never answers) gets a backlog of BENCH_BACKLOG deliveries (100,000):
 * Redis `used_memory` growth while it builds, and the drain rate once the receiver answers again.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync } from 'node:fs';
import { Redis } from 'ioredis';
import { seedCompany, type SeedResult } from '../src/cli/seed.js';
import { createContext } from '../src/infra/bootstrap.js';
import { recordEvent } from '../src/events/outbox.js';
import { publishAfterCommit } from '../src/events/publish.js';
import { freePort } from '../src/infra/free-port.js';
import { createLogger } from '../src/shared/logger.js';
import { startTestEnvironment } from '../test/helpers/environment.js';
import { ServiceProcess } from './harness/service-process.js';
import { percentile, sleep } from './harness/util.js';
import { installCleanupHandlers } from './harness/cleanup.js';

const PHASE_SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 100_000);
const A_PAYMENTS_PER_SECOND = 12;
const B_PAYMENTS_PER_SECOND = 2;
const REPO_ROOT = path.resolve(import.meta.dirname, '..');

const log = (message: string): void =>
  console.log(`[fairness ${new Date().toISOString().slice(11, 19)}] ${message}`);

installCleanupHandlers('fairness');
const hardStop = setTimeout(() => {
  console.error('bench:fairness: took longer than 20 minutes, giving up');
  process.exit(2);
}, 1_200_000);
hardStop.unref();

async function build(): Promise<void> {
  log('building dist/ (npm run build): web and worker run compiled, as the Procfile runs them');
  await new Promise<void>((resolve, reject) => {
    const child = spawn('npm', ['run', 'build'], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`build failed (${String(code)})`)),
    );
  });
}

/**
 * One receiver for every integration, each on its own path: `fast/…` answers at once, `slow/…` after
 * 3 s, `hang/…` holds the request until released. Notes each event's first arrival.
 */
class Receivers {
  readonly firstArrival = new Map<string, number>();
  arrivals = 0;
  private held: http.ServerResponse[] = [];
  hangReleased = false;
  port = 0;
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      this.arrivals += 1;
      const id = String(req.headers['webhook-id']);
      if (!this.firstArrival.has(id)) this.firstArrival.set(id, Date.now());
      const url = req.url ?? '';
      if (url.startsWith('/slow/')) setTimeout(() => res.writeHead(200).end('ok'), 3000);
      else if (url.startsWith('/hang/') && !this.hangReleased) this.held.push(res);
      else res.writeHead(200).end('ok');
    });
  });

  async start(): Promise<void> {
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  url(kind: 'fast' | 'slow' | 'hang', name: string): string {
    return `http://127.0.0.1:${this.port}/${kind}/${name}`;
  }

  /** The down receiver comes back: held requests are answered, later ones at once. */
  release(): void {
    this.hangReleased = true;
    for (const res of this.held.splice(0)) if (!res.destroyed) res.writeHead(200).end('ok');
  }

  hold(): void {
    this.hangReleased = false;
  }

  close(): void {
    this.server.closeAllConnections();
    this.server.close();
  }
}

log('starting embedded PostgreSQL (fast mode) and a private redis-server');
const env = await startTestEnvironment();
const config = env.config({ QUEUE_PREFIX: '{fairness}' });
const owned = createContext(
  config,
  createLogger('silent'),
  { databaseUrl: env.databaseUrl, redis: { kind: 'single', url: env.redis.url } },
  20,
);
const { ctx } = owned;
const receivers = new Receivers();
await receivers.start();
await build();

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const logDir = mkdtempSync(path.join(os.tmpdir(), 'plinks-fairness-'));
const serviceEnv: NodeJS.ProcessEnv = {
  ...process.env,
  NODE_ENV: 'production',
  HOST: '127.0.0.1',
  PORT: String(port),
  PUBLIC_BASE_URL: base,
  DATABASE_URL: env.databaseUrl,
  REDIS_URL: env.redis.url,
  SMTP_URL: env.smtp.url,
  QUEUE_PREFIX: '{fairness}',
  DATA_DIR: path.join(logDir, 'data'),
  LOG_LEVEL: 'warn',
  ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
  DEV_GATEWAY: 'true',
  GATEWAY_WEBHOOK_SECRET: randomBytes(24).toString('hex'),
  RATE_LIMIT_PER_MINUTE: '1000000',
  RATE_LIMIT_WRITES_PER_MINUTE: '1000000',
};
const webProcess = new ServiceProcess({
  role: 'web',
  cwd: REPO_ROOT,
  compiled: true,
  script: 'src/web.ts',
  env: serviceEnv,
  logFile: path.join(logDir, 'web.log'),
  ready: async () => (await fetch(`${base}/healthz`).catch(() => undefined))?.ok === true,
});
const workerWith = (extra: Record<string, string>): ServiceProcess =>
  new ServiceProcess({
    role: 'worker',
    cwd: REPO_ROOT,
    compiled: true,
    script: 'workers/main.ts',
    // Info shows the worker's start line (its readiness) and what the sweeps recover.
    env: { ...serviceEnv, LOG_LEVEL: 'info', ...extra },
    logFile: path.join(logDir, 'worker.log'),
    readyLine: '"workers started"',
  });
let worker = workerWith({});
await Promise.all([webProcess.start(), worker.start()]);
log(`web and worker running compiled (logs in ${logDir})`);

async function api<T>(method: string, urlPath: string, auth: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${urlPath}`, {
    method,
    headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${urlPath}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function company(
  kind: 'fast' | 'slow' | 'hang',
  name: string,
): Promise<{ seed: SeedResult; integrationId: number }> {
  const seed = await seedCompany(ctx.db);
  const created = await api<{ id: number }>('POST', '/panel/v1/integrations/', seed.panel_token, {
    type: 'webhook',
    config: { url: receivers.url(kind, name) },
    events: ['order.created', 'lead.created', 'order.paid'],
    send_to_all_products: true,
  });
  return { seed, integrationId: created.id };
}

/** A buyer pays a live link by card at the checkout: order.created, lead.created and order.paid. */
async function cardPayment(seed: SeedResult, n: number): Promise<void> {
  const offer = seed.offers.find((o) => o.status === 'active');
  const link = await api<{ id: string }>('POST', '/v1/payment-links', seed.keys.live, {
    offer_code: offer?.code,
  });
  const res = await fetch(`${base}/pay/${offer?.code}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      plink: link.id,
      name: `Buyer ${n}`,
      email: `buyer-${n}-${seed.company.id}@example.com`,
      payment_method: 'credit_card',
    }).toString(),
  });
  await res.arrayBuffer();
}

/** Pays at `perSecond` until `stop` resolves; returns how many payments were made. */
async function payAtRate(seed: SeedResult, perSecond: number, until: number): Promise<number> {
  const started = Date.now();
  const inflight: Array<Promise<void>> = [];
  let n = 0;
  while (Date.now() < until) {
    const due = started + (n * 1000) / perSecond;
    if (due > Date.now()) await sleep(due - Date.now());
    inflight.push(cardPayment(seed, n).catch((err: unknown) => log(`  payment failed: ${String(err)}`)));
    n += 1;
  }
  await Promise.all(inflight);
  return n;
}

interface PhaseResult {
  label: string;
  events: number;
  p50: number;
  p99: number;
  max: number;
  other: string;
}

/** Company B's commit → first attempt for the events it committed during the phase. */
async function latencies(companyId: number, since: Date): Promise<number[]> {
  const rows = await ctx.pool.query<{ id: string; created_at: Date }>(
    'SELECT id, created_at FROM events WHERE company_id = $1 AND created_at >= $2',
    [companyId, since],
  );
  const deadline = Date.now() + 60_000;
  while (rows.rows.some((r) => !receivers.firstArrival.has(r.id)) && Date.now() < deadline) await sleep(100);
  return rows.rows
    .map((r) => (receivers.firstArrival.get(r.id) ?? NaN) - r.created_at.getTime())
    .sort((x, y) => x - y);
}

async function phase(label: string, neighbour: 'slow' | 'hang' | undefined): Promise<PhaseResult> {
  log(
    `phase: company B alone${neighbour ? ` beside company A (${neighbour === 'slow' ? '3 s receiver' : 'receiver that never answers'}, ${A_PAYMENTS_PER_SECOND * 3} events/s)` : ''}, ${PHASE_SECONDS} s`,
  );
  const b = await company('fast', `b-${label}`);
  const a = neighbour ? await company(neighbour, `a-${label}`) : undefined;
  const since = new Date();
  const until = Date.now() + PHASE_SECONDS * 1000;
  const [, aPayments] = await Promise.all([
    payAtRate(b.seed, B_PAYMENTS_PER_SECOND, until),
    a ? payAtRate(a.seed, A_PAYMENTS_PER_SECOND, until) : Promise.resolve(0),
  ]);
  const sorted = await latencies(b.seed.company.id, since);
  let other = '';
  if (a) {
    const sent = await ctx.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM delivery_attempts WHERE integration_id = $1',
      [a.integrationId],
    );
    other = `company A: ${aPayments * 3} events committed, ${sent.rows[0]?.n ?? 0} attempts made`;
    // Company A stops receiving: its lane skips what is left, and the next phase starts clean.
    await api('PATCH', `/panel/v1/integrations/${a.integrationId}`, a.seed.panel_token, { is_active: false });
  }
  const result = {
    label,
    events: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? NaN,
    other,
  };
  log(
    `  company B: ${result.events} events, commit → first attempt p50 ${result.p50.toFixed(0)} ms, p99 ${result.p99.toFixed(0)} ms, max ${result.max.toFixed(0)} ms`,
  );
  if (other) log(`  ${other}`);
  return result;
}

const redisInfo = new Redis(env.redis.url);
async function usedMemory(): Promise<number> {
  const info = await redisInfo.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? NaN);
}

try {
  const results: PhaseResult[] = [];
  results.push(await phase('alone', undefined));
  results.push(await phase('slow', 'slow'));
  receivers.hold();
  results.push(await phase('hang', 'hang'));
  receivers.release();

  // The backlog: the breaker is raised for this part, or the down receiver would be disabled after
  // BREAKER_THRESHOLD failures and its backlog recorded as skipped (what the breaker is for).
  log(`backlog: restarting the worker with BREAKER_THRESHOLD=1000000 and WEBHOOK_TIMEOUT_MS=2000`);
  await worker.stop();
  worker = workerWith({ BREAKER_THRESHOLD: '1000000', WEBHOOK_TIMEOUT_MS: '2000' });
  await worker.start();
  receivers.hold();
  const down = await company('hang', 'down');
  await sleep(2000);
  const before = await usedMemory();
  let peak = before;
  const sampler = setInterval(() => {
    void usedMemory().then((m) => (peak = Math.max(peak, m)));
  }, 500);
  log(
    `backlog: committing ${BACKLOG} events for a receiver that is down (Redis used_memory ${(before / 1e6).toFixed(1)} MB)`,
  );
  const buildStarted = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < BACKLOG) {
        next += 1;
        const { id } = await recordEvent(ctx.db, {
          companyId: down.seed.company.id,
          type: 'lead.created',
          livemode: true,
          test: false,
          productId: null,
          data: { lead: { name: 'Backlog', email: 'backlog@example.com', phone: null, document: null } },
        });
        publishAfterCommit(ctx, [id]);
        if (next % 20_000 === 0) log(`  … ${next} committed`);
      }
    }),
  );
  // Every event relayed: the whole backlog is in PostgreSQL as pending deliveries.
  for (;;) {
    const pending = await ctx.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM deliveries WHERE integration_id = $1 AND status = 'pending'",
      [down.integrationId],
    );
    if ((pending.rows[0]?.n ?? 0) >= BACKLOG - 50) break;
    await sleep(500);
  }
  const built = await usedMemory();
  clearInterval(sampler);
  peak = Math.max(peak, built);
  log(
    `  built in ${((Date.now() - buildStarted) / 1000).toFixed(1)} s; Redis used_memory ${(built / 1e6).toFixed(1)} MB (peak ${(peak / 1e6).toFixed(1)} MB)`,
  );

  log('backlog: the receiver is back; draining');
  // The backlog is the deliveries never attempted; those that failed while the receiver was down wait
  // for their retry's time (a separate schedule, left out of the drain rate).
  const fresh = async (): Promise<number> =>
    (
      await ctx.pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM deliveries WHERE integration_id = $1 AND status = 'pending' AND attempts = 0",
        [down.integrationId],
      )
    ).rows[0]?.n ?? 0;
  const backlogSize = await fresh();
  const drainStarted = Date.now();
  receivers.release();
  let lastLog = Date.now();
  for (;;) {
    const left = await fresh();
    if (left === 0) break;
    if (Date.now() - lastLog > 10_000) {
      log(`  … ${left} left`);
      lastLog = Date.now();
    }
    await sleep(200);
  }
  const drainSeconds = (Date.now() - drainStarted) / 1000;
  const drainRate = backlogSize / drainSeconds;
  const retrying = await ctx.pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM deliveries WHERE integration_id = $1 AND status = 'pending'",
    [down.integrationId],
  );

  console.log('\nResults (company B: 2 card payments/s, a receiver that answers at once)');
  for (const r of results) {
    console.log(
      `  ${r.label.padEnd(6)} B commit → first attempt: p50 ${r.p50.toFixed(0).padStart(5)} ms, p99 ${r.p99.toFixed(0).padStart(5)} ms, max ${r.max.toFixed(0).padStart(5)} ms over ${r.events} events${r.other ? `  (${r.other})` : ''}`,
    );
  }
  console.log('  target: p99 under 1,000 ms beside both');
  console.log(
    `  backlog of ${BACKLOG} deliveries to a down receiver: Redis used_memory +${((built - before) / 1e6).toFixed(1)} MB when built, peak +${((peak - before) / 1e6).toFixed(1)} MB (target under 20 MB)`,
  );
  console.log(
    `  drain once the receiver is back: ${backlogSize} deliveries in ${drainSeconds.toFixed(1)} s = ${drainRate.toFixed(0)} deliveries/s, oldest first (target ≥ 500, no rate limit, WEBHOOK_MAX_IN_FLIGHT 8); ${retrying.rows[0]?.n ?? 0} that failed while it was down wait for their retry`,
  );
} finally {
  receivers.release();
  redisInfo.disconnect();
  await worker.stop();
  await webProcess.stop();
  await owned.close();
  receivers.close();
  await env.stop();
}
process.exit(0);
