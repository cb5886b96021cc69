import { appendFile, mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ServiceProcess } from '../../bench/harness/service-process.js';
import { freePort } from '../../src/infra/free-port.js';
import { randomBase62 } from '../../src/shared/ids.js';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import pg from 'pg';
import { Producers, type JobEnd, type QueueKey } from '../../queues/index.js';
import { seedCompany, type SeedOptions, type SeedResult } from '../../src/cli/seed.js';
import { createDatabase, type Db } from '../../src/shared/db/index.js';
import { migrate } from '../../src/shared/db/migrate.js';
import { Receiver } from '../events/helpers.js';
import { capturedLogFile } from './captured-logs.js';
import { ensureBuilt } from './compiled.js';
import { eventually } from './eventually.js';
import { databaseOnServer, testEnvironment } from './environment.js';
import { HttpClient } from './http.js';
import { sampleValue, scrapeMetrics } from './prometheus.js';
import { noteSecret } from './secrets.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Deployment {
  /** Base URLs of the web processes, in start order. */
  webs: string[];
  webProcesses: ServiceProcess[];
  workerProcesses: ServiceProcess[];
  env: NodeJS.ProcessEnv;
  logDir: string;
  /** The deployment's own database: its workers' sweeps must never pick up another test's events. */
  db: Db;
  /** A company with keys, token and catalog in the deployment's database. */
  seed(options?: SeedOptions): Promise<SeedResult>;
  /** The webs in turn (`web(i)` is web `i` modulo their number): a test spreads its requests over all. */
  web(i: number): HttpClient;
  /** A webhook receiver on loopback, answering as `reply` says; closed by `stop`. */
  receiver(reply?: Receiver['reply']): Promise<Receiver>;
  /** A webhook integration for every product, made through the first web's panel API. */
  integrate(
    tenant: SeedResult,
    url: string,
    events: string[],
    extra?: Record<string, unknown>,
  ): Promise<number>;
  /** A test-mode link of the tenant's active offer, made through `web(i)`: its id. */
  testLink(tenant: SeedResult, i: number): Promise<string>;
  /**
   * Resolves once the deployment has finished `runs` runs of `sweep` that started after this call
   * (the sum of its workers' `sweep_runs_total` on their METRICS_PORT; each sweep is one job
   * scheduler for the deployment, whichever worker takes a run): how a test shows that the sweeps,
   * which would redo or duplicate work if they were wrong, looked and found nothing to do.
   */
  sweeps(sweep: 'outbox' | 'renewal' | 'link-expiry', runs?: number): Promise<void>;
  /** The runs of `sweep` each worker process has finished so far (its `sweep_runs_total`). */
  sweepRuns(sweep: 'outbox' | 'renewal' | 'link-expiry'): Promise<number[]>;
  /** How one job of the deployment's queues ended (BullMQ's own completed/failed mark), or `timeout`. */
  jobEnd(key: QueueKey, jobId: string, timeoutMs?: number): Promise<JobEnd>;
  /** Closes the receivers made so far (a suite that starts a second deployment keeps none). */
  closeReceivers(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Web and worker processes started as the Procfile starts them, compiled (`dist/src/web.js`,
 * `dist/workers/main.js`), against this run's PostgreSQL server and Redis, on a database and a queue
 * prefix of their own: production's shape, for what only separate processes show (shared limits,
 * one delivery across workers, fairness between companies, faults).
 */
export async function startDeployment(options: {
  webs: number;
  workers: number;
  env?: Record<string, string>;
  /** Per worker process, e.g. its own METRICS_PORT. */
  workerEnv?: (index: number) => Record<string, string>;
  /** A Redis of the deployment's own (a test that restarts it); the run's Redis otherwise. */
  redisUrl?: string;
  /**
   * Where the processes reach the deployment's database (a pooler in front of it, say); migrations
   * and the test's own reads still go to the server directly.
   */
  databaseVia?: (directUrl: string) => string;
}): Promise<Deployment> {
  const environment = testEnvironment();
  await ensureBuilt();
  const logDir = await mkdtemp(path.join(os.tmpdir(), 'plinks-deploy-'));
  const database = await databaseOnServer(
    environment.databaseUrl,
    `plinks_deploy_${randomBase62(8).toLowerCase()}`,
  );
  const migrator = new pg.Pool({ connectionString: database.url, max: 1 });
  await migrate(migrator);
  await migrator.end();
  const { db, pool } = createDatabase(database.url, 5);
  const ports = await Promise.all(Array.from({ length: options.webs }, () => freePort()));
  // Each worker serves its metrics (the sweeps' runs among them) unless the test chose its own port.
  const metricsToken = options.env?.METRICS_TOKEN ?? `deployment-metrics-${randomBase62(16)}`;
  noteSecret(metricsToken);
  const workerEnvs = await Promise.all(
    Array.from({ length: options.workers }, async (_, i) => ({
      METRICS_PORT: String(await freePort()),
      ...options.workerEnv?.(i),
    })),
  );
  const base: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    DATABASE_URL: options.databaseVia ? options.databaseVia(database.url) : database.url,
    DATABASE_MIGRATION_URL: database.url,
    REDIS_URL: options.redisUrl ?? environment.redis.url,
    SMTP_URL: environment.smtp.url,
    QUEUE_PREFIX: `{plinks-deploy-${randomBase62(6).toLowerCase()}}`,
    DATA_DIR: path.join(logDir, 'data'),
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
    DEV_GATEWAY: 'true',
    GATEWAY_WEBHOOK_SECRET: 'deployment-gateway-secret-0123456789',
    METRICS_TOKEN: metricsToken,
    ...options.env,
  };
  // One public address, as behind a load balancer: links and checkout URLs name the first web.
  const publicBase = `http://127.0.0.1:${ports[0] ?? 0}`;
  const webProcesses = ports.map(
    (port, i) =>
      new ServiceProcess({
        role: 'web',
        cwd: REPO_ROOT,
        compiled: true,
        script: 'src/web.ts',
        env: { ...base, PORT: String(port), PUBLIC_BASE_URL: publicBase },
        logFile: path.join(logDir, `web-${i + 1}.log`),
        ready: async () => {
          try {
            return (await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1000) }))
              .ok;
          } catch {
            return false;
          }
        },
      }),
  );
  const workerProcesses = Array.from(
    { length: options.workers },
    (_, i) =>
      new ServiceProcess({
        role: 'worker',
        cwd: REPO_ROOT,
        compiled: true,
        script: 'workers/main.ts',
        env: { ...base, PUBLIC_BASE_URL: publicBase, ...workerEnvs[i] },
        logFile: path.join(logDir, `worker-${i + 1}.log`),
        readyLine: '"workers started"',
      }),
  );
  const all = [...webProcesses, ...workerProcesses];
  try {
    await Promise.all(all.map((p) => p.start()));
  } catch (err) {
    await Promise.all(all.map((p) => p.stop()));
    await pool.end();
    await database.drop();
    throw err;
  }
  const webs = ports.map((port) => `http://127.0.0.1:${port}`);
  // Responses are checked against the documents each web serves; the panel's mount path is the default.
  const clients = webs.map((url) => new HttpClient(url, environment.config()));
  const web = (i: number): HttpClient => {
    const client = clients[i % clients.length];
    if (!client) throw new Error('this deployment has no web process');
    return client;
  };
  const receivers: Receiver[] = [];
  let queues: { redis: Redis; producers: Producers } | undefined;
  const closeReceivers = async (): Promise<void> => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  };
  const sweepRuns = (sweep: 'outbox' | 'renewal' | 'link-expiry'): Promise<number[]> =>
    Promise.all(
      workerEnvs.map(async (env) =>
        sampleValue(
          await scrapeMetrics(`http://127.0.0.1:${env.METRICS_PORT ?? ''}/metrics`, metricsToken),
          'sweep_runs_total',
          { sweep },
        ),
      ),
    );
  return {
    webs,
    webProcesses,
    workerProcesses,
    env: base,
    logDir,
    db,
    async seed(seedOptions = {}) {
      const seeded = await seedCompany(db, seedOptions);
      for (const value of [seeded.panel_token, ...Object.values(seeded.keys)]) noteSecret(value);
      return seeded;
    },
    web,
    async receiver(reply) {
      const r = await new Receiver().start();
      if (reply) r.reply = reply;
      receivers.push(r);
      return r;
    },
    async integrate(tenant, url, events, extra = {}) {
      const res = await web(0).post<{ id: number }>('/panel/v1/integrations/', {
        auth: tenant.panel_token,
        body: { type: 'webhook', config: { url }, events, send_to_all_products: true, ...extra },
      });
      expect(res.status, res.text).to.equal(201);
      return res.body.id;
    },
    async testLink(tenant, i) {
      const offer = tenant.offers.find((o) => o.status === 'active');
      const res = await web(i).post<{ id: string }>('/v1/payment-links', {
        auth: tenant.keys.test,
        body: { offer_code: offer?.code, external_reference: `deployment-${i}` },
      });
      expect(res.status, res.text).to.equal(201);
      return res.body.id;
    },
    sweepRuns,
    async sweeps(sweep, runs = 2) {
      const total = async (): Promise<number> => (await sweepRuns(sweep)).reduce((a, b) => a + b, 0);
      // A run under way when the counts are read started before this call: each worker may have one.
      const target = (await total()) + runs + workerEnvs.length;
      let seen = 0;
      await eventually(
        async () => ((seen = await total()) >= target ? true : undefined),
        20_000,
        () => `${runs} ${sweep} sweeps of the deployment (${seen} of ${target} runs)`,
      );
    },
    jobEnd(key, jobId, timeoutMs = 15_000) {
      if (!base.REDIS_URL) throw new Error('jobEnd reads the queues of a deployment on one Redis');
      if (!queues) {
        const redis = new Redis(base.REDIS_URL);
        queues = { redis, producers: new Producers(redis, String(base.QUEUE_PREFIX)) };
      }
      return queues.producers.waitForJob(key, jobId, timeoutMs);
    },
    closeReceivers,
    async stop() {
      await closeReceivers();
      await queues?.producers.close();
      queues?.redis.disconnect();
      await Promise.all(all.map((p) => p.stop()));
      await pool.end();
      await database.drop();
      // The processes' logs join the suite's capture, so the closing log check searches them too.
      const capture = capturedLogFile();
      if (capture) {
        for (const proc of all)
          await appendFile(capture, await readFile(proc.logFile, 'utf8').catch(() => ''));
      }
    },
  };
}
