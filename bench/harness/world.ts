import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Pool } from 'undici';
import { startEmbeddedPostgres, type RunningPostgres } from '../../src/infra/embedded-postgres.js';
import { freePort } from '../../src/infra/free-port.js';
import { PrivateRedis } from '../../src/infra/private-redis.js';
import { LocalRedisCluster } from './redis-cluster.js';
import { registerCleanup } from './cleanup.js';
import { Ledger, type IntegrationRef } from './ledger.js';
import { WebhookReceiver } from './receiver.js';
import { TestSmtp } from '../../test/helpers/smtp.js';
import { ServiceProcess, type Death } from './service-process.js';
import type { Tenant } from './traffic.js';
import { sleep } from './util.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The part of `cli seed --json` the harness uses (the CLI prints more). */
interface SeedOutput {
  company: { id: number };
  panel_token: string;
  keys: { test: string; live: string; read_only: string };
  offers: Array<{ code: string; status: string }>;
  plans: Array<{ code: string; status: string }>;
}

/**
 * An embedded PostgreSQL cluster the harness owns and may stop and start (a fault), on a fixed port
 * in the run's temp folder. Fast mode (no fsync): this measures the service, not the disk.
 */
export class ControlledPostgres {
  private running: RunningPostgres | undefined;
  url = '';
  private readonly log;

  constructor(
    private readonly dir: string,
    readonly port: number,
    logFile: string,
  ) {
    this.log = createWriteStream(logFile, { flags: 'a' });
    registerCleanup({
      name: 'PostgreSQL',
      run: () => this.stop(),
      force: () => this.kill(),
    });
  }

  get up(): boolean {
    return this.running !== undefined;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = await startEmbeddedPostgres({
      dir: this.dir,
      port: this.port,
      database: 'plinks_bench',
      // Kept between a stop and a start (the fault); the temp folder goes at the end of the run.
      persistent: true,
      fast: true,
      onLog: (message) => this.log.write(message),
    });
    this.url = this.running.url;
  }

  /** A fast shutdown (SIGINT): sessions are cut, nothing committed is lost. */
  async stop(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    await running?.stop();
  }

  private kill(): void {
    const pidFile = path.join(this.dir, 'postmaster.pid');
    if (!existsSync(pidFile)) return;
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    if (Number.isSafeInteger(pid) && pid > 0) process.kill(pid, 'SIGQUIT');
  }
}

export interface WorldOptions {
  label: string;
  companies: number;
  /** Service settings for this run, on top of the harness's (rate limits, retry schedule…). */
  env: Record<string, string>;
  connections: number;
  /** Checkout whose web, worker and CLI run (default: this one), to try the harness on another branch. */
  serviceDir?: string;
  /** Keep the service logs here instead of the temp folder (which is removed). */
  logDir?: string;
  /** Run on a Redis Cluster of this shape (REDIS_CLUSTER_NODES) instead of one redis-server. */
  redisCluster?: { masters: number; replicas: number };
  log: (line: string) => void;
}

/**
 * Everything a run needs, started by the harness in a temp folder: PostgreSQL, a private
 * redis-server without persistence, the webhook receiver, the web and worker processes apart (as the
 * Procfile runs them), companies seeded with the service's own CLI, keys and webhook integrations
 * created through the panel API.
 */
export class World {
  readonly deaths: Death[] = [];
  tenants: Tenant[] = [];
  integrations: IntegrationRef[] = [];
  ledger!: Ledger;
  http!: Pool;
  db!: pg.Pool;
  web!: ServiceProcess;
  worker!: ServiceProcess;
  readonly receiver = new WebhookReceiver();
  /** Where the worker's e-mails to buyers go (the live checkouts of the load mail their buyers): counted, not kept. */
  readonly mail = new TestSmtp({ keep: false, startTls: false });
  readonly redis: PrivateRedis;
  /** Set when the world runs on a Redis Cluster (then `redis` is not started). */
  readonly cluster: LocalRedisCluster | undefined;
  readonly pg: ControlledPostgres;
  webPort = 0;
  serviceDir = REPO_ROOT;
  private readonly restarting = new Map<ServiceProcess, Promise<void>>();

  private constructor(
    readonly dir: string,
    readonly logDir: string,
    pgPort: number,
    private readonly options: WorldOptions,
  ) {
    this.pg = new ControlledPostgres(path.join(dir, 'pg'), pgPort, path.join(logDir, 'postgres.log'));
    this.redis = new PrivateRedis({ dir: path.join(dir, 'redis'), persist: false });
    this.cluster = options.redisCluster
      ? new LocalRedisCluster({ ...options.redisCluster, nodeTimeoutMs: 2000 })
      : undefined;
  }

  static async start(options: WorldOptions): Promise<World> {
    const dir = mkdtempSync(path.join(os.tmpdir(), `plinks-${options.label}-`));
    // As root, embedded-postgres runs the server as the `postgres` user, who must enter this folder.
    chmodSync(dir, 0o755);
    registerCleanup({
      name: 'temp folder',
      run: async () => rmSync(dir, { recursive: true, force: true }),
      force: () => rmSync(dir, { recursive: true, force: true }),
    });
    const logDir = options.logDir ? path.resolve(options.logDir) : path.join(dir, 'logs');
    mkdirSync(logDir, { recursive: true });
    const world = new World(dir, logDir, await freePort(), options);
    world.serviceDir = options.serviceDir ? path.resolve(options.serviceDir) : REPO_ROOT;
    await world.boot();
    return world;
  }

  private async boot(): Promise<void> {
    const { log } = this.options;
    log(`temp folder ${this.dir}; service logs in ${this.logDir}; service from ${this.serviceDir}`);
    await this.pg.start();
    log(`PostgreSQL (embedded, fast mode) on 127.0.0.1:${this.pg.port}`);
    const cluster = this.cluster;
    if (cluster) {
      registerCleanup({
        name: 'Redis Cluster',
        run: () => cluster.stop(),
        force: () => {
          for (const port of cluster.ports)
            execFileSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave'], { stdio: 'ignore' });
        },
      });
      await cluster.start();
      log(`Redis Cluster (no persistence) on 127.0.0.1:${cluster.ports.join(',')}`);
    } else {
      registerCleanup({
        name: 'redis-server',
        run: () => this.redis.stop(),
        force: () => {
          if (this.redis.port)
            execFileSync('redis-cli', ['-p', String(this.redis.port), 'shutdown', 'nosave'], {
              stdio: 'ignore',
            });
        },
      });
      await this.redis.start();
      log(`redis-server (no persistence) on 127.0.0.1:${this.redis.port}`);
    }
    await this.receiver.start();
    log(`webhook receiver on 127.0.0.1:${this.receiver.port}`);
    await this.mail.start();
    registerCleanup({ name: 'SMTP sink', run: () => this.mail.close(), force: () => undefined });

    this.db = new pg.Pool({ connectionString: this.pg.url, max: 3 });
    // PostgreSQL stopping is one of the faults: an idle client losing its server is expected.
    this.db.on('error', () => undefined);
    registerCleanup({ name: 'harness pool', run: () => this.db.end(), force: () => undefined });

    log(`seeding ${this.options.companies} companies with \`npm run cli -- seed --json\``);
    const seeds = await this.seed(this.options.companies);

    this.webPort = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(this.webPort),
      PUBLIC_BASE_URL: `http://127.0.0.1:${this.webPort}`,
      DATABASE_URL: this.pg.url,
      ...(cluster ? { REDIS_URL: '', REDIS_CLUSTER_NODES: cluster.seeds } : { REDIS_URL: this.redis.url }),
      DATA_DIR: path.join(this.dir, 'data'),
      LOG_LEVEL: 'warn',
      // The receiver is on loopback, and the checkout confirms payments through the dev gateway.
      ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
      DEV_GATEWAY: 'true',
      GATEWAY_WEBHOOK_SECRET: randomBytes(24).toString('hex'),
      SMTP_URL: this.mail.url,
      ...this.options.env,
    };
    this.web = new ServiceProcess({
      role: 'web',
      cwd: this.serviceDir,
      script: 'src/web.ts',
      env: { ...env, LOG_LEVEL: process.env.BENCH_WEB_LOG_LEVEL ?? env.LOG_LEVEL },
      logFile: path.join(this.logDir, 'web.log'),
      ready: () => this.healthy(),
    });
    this.worker = new ServiceProcess({
      role: 'worker',
      cwd: this.serviceDir,
      script: 'workers/main.ts',
      // Info is quiet in the worker (no per-job lines) and shows the sweep's recoveries.
      env: { ...env, LOG_LEVEL: process.env.BENCH_WORKER_LOG_LEVEL ?? 'info' },
      logFile: path.join(this.logDir, 'worker.log'),
      readyLine: '"workers started"',
    });
    for (const proc of [this.web, this.worker]) {
      proc.onDeath = (death) => {
        this.deaths.push(death);
        log(
          `!!! ${death.role} process DIED (exit code ${String(death.code)}, signal ${String(death.signal)}); last error lines:\n` +
            death.evidence.map((l) => `      ${l}`).join('\n'),
        );
        void this.restart(proc);
      };
    }
    await Promise.all([this.web.start(), this.worker.start()]);
    log(`web (pid ${this.web.pid}) on http://127.0.0.1:${this.webPort}, worker (pid ${this.worker.pid})`);

    this.http = new Pool(`http://127.0.0.1:${this.webPort}`, {
      connections: this.options.connections,
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
    registerCleanup({ name: 'HTTP client', run: () => this.http.destroy(), force: () => undefined });

    await this.provision(seeds);
    this.ledger = new Ledger(this.db, this.receiver, this.integrations);
    const keys = this.tenants.reduce((n, t) => n + t.testKeys.length + t.liveKeys.length, 0);
    log(
      `${this.tenants.length} companies, ${keys} payments keys, ${this.integrations.length} webhook integrations → receiver`,
    );
  }

  private async healthy(): Promise<boolean> {
    try {
      const response = await fetch(`http://127.0.0.1:${this.webPort}/healthz`, {
        signal: AbortSignal.timeout(1000),
      });
      return response.status === 200;
    } catch {
      return false;
    }
  }

  private async seed(count: number): Promise<SeedOutput[]> {
    const runOne = (i: number): Promise<SeedOutput> =>
      new Promise((resolve, reject) => {
        const child = spawn(
          'npm',
          [
            'run',
            '--silent',
            'cli',
            '--',
            'seed',
            '--json',
            '--name',
            `${this.options.label} company ${i + 1}`,
          ],
          {
            cwd: this.serviceDir,
            env: { ...process.env, DATABASE_URL: this.pg.url, LOG_LEVEL: 'warn' },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        let out = '';
        let err = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.stderr.on('data', (c: Buffer) => (err += c.toString()));
        child.once('exit', (code) => {
          if (code !== 0) {
            reject(new Error(`cli seed exited with ${String(code)}: ${err.slice(-500)}`));
            return;
          }
          try {
            resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '') as SeedOutput);
          } catch {
            reject(new Error(`cli seed printed no JSON: ${out.slice(0, 300)}`));
          }
        });
      });
    const results: SeedOutput[] = [];
    // A few at a time: each is a Node process with tsx, on a 2-core machine.
    for (let i = 0; i < count; i += 4) {
      results.push(
        ...(await Promise.all(Array.from({ length: Math.min(4, count - i) }, (_, j) => runOne(i + j)))),
      );
    }
    return results;
  }

  private async panel<T>(token: string, method: 'GET' | 'POST', urlPath: string, body?: unknown): Promise<T> {
    const response = await this.http.request({
      method,
      path: `/panel/v1${urlPath}`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.body.text();
    if (response.statusCode >= 300)
      throw new Error(`${method} /panel/v1${urlPath} → ${response.statusCode}: ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
  }

  /** More keys per company and the webhook integrations, through the panel API like an operator would. */
  private async provision(seeds: SeedOutput[]): Promise<void> {
    for (const [index, seed] of seeds.entries()) {
      const token = seed.panel_token;
      const tenant: Tenant = {
        companyId: seed.company.id,
        panelToken: token,
        readOnlyKey: seed.keys.read_only,
        testKeys: [seed.keys.test],
        liveKeys: [seed.keys.live],
        offerCodes: seed.offers.filter((o) => o.status === 'active').map((o) => o.code),
        planCodes: seed.plans.filter((p) => p.status === 'active').map((p) => p.code),
        integrationIds: [],
        activeTest: [],
        activeLive: [],
        recent: [],
      };
      for (let k = 0; k < 2; k++) {
        for (const test of [true, false]) {
          const created = await this.panel<{ key: string }>(token, 'POST', '/api-keys', {
            name: `bench ${test ? 'test' : 'live'} ${k + 1}`,
            kind: 'payments',
            test,
          });
          (test ? tenant.testKeys : tenant.liveKeys).push(created.key);
        }
      }
      const panelKinds = (
        await this.panel<Array<{ value: string }>>(token, 'GET', '/integrations/events')
      ).map((k) => k.value);
      const plans: Array<{ type: string; events: string[] }> = [
        { type: 'webhook', events: [...panelKinds, 'order.payment_declined'] },
      ];
      // Every other company gets a second, narrower receiver, so routing is more than "all to one".
      if (index % 2 === 0)
        plans.push({ type: 'automation_webhook', events: ['order.paid', 'order.failed', 'lead.created'] });
      for (const [n, plan] of plans.entries()) {
        const hookToken = `c${tenant.companyId}-${n}`;
        const secret = `whsec_${randomBytes(32).toString('base64')}`;
        const created = await this.panel<{ id: number; events: string[] }>(token, 'POST', '/integrations/', {
          type: plan.type,
          config: { url: this.receiver.url(hookToken), secret },
          events: plan.events,
          send_to_all_products: true,
        });
        this.receiver.register(hookToken, created.id, secret);
        tenant.integrationIds.push(created.id);
        this.integrations.push({ id: created.id, companyId: tenant.companyId, events: created.events });
      }
      this.tenants.push(tenant);
    }
  }

  /** Restarts a process that died, retrying while what it needs (PostgreSQL, Redis) is still down. */
  restart(proc: ServiceProcess): Promise<void> {
    const existing = this.restarting.get(proc);
    if (existing) return existing;
    const attempt = (async () => {
      const deadline = Date.now() + 120_000;
      for (let n = 1; ; n++) {
        try {
          await proc.start();
          this.options.log(`${proc.role} restarted (pid ${proc.pid}) after ${n} attempt(s)`);
          return;
        } catch (err) {
          if (Date.now() > deadline) {
            this.options.log(`${proc.role} could not be restarted: ${(err as Error).message}`);
            throw err;
          }
          const lines = (err as Error).message.split('\n').map((l) => l.trim());
          const thrown = lines.find((l) => /^\w*Error\b|^error:/.test(l));
          this.options.log(
            `${proc.role} restart attempt ${n} failed; retrying in 2 s: ${lines[0] ?? ''}${thrown ? ` ${thrown}` : ''}`,
          );
          await sleep(2000);
        }
      }
    })().finally(() => this.restarting.delete(proc));
    this.restarting.set(proc, attempt);
    return attempt;
  }

  /** Waits for restarts under way, so the next step starts with both processes serving. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.restarting.values()]);
  }
}
