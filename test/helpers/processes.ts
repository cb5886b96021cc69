import { appendFile, mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ServiceProcess } from '../../bench/harness/service-process.js';
import { freePort } from '../../src/infra/free-port.js';
import { randomBase62 } from '../../src/shared/ids.js';
import pg from 'pg';
import { seedCompany, type SeedOptions, type SeedResult } from '../../src/cli/seed.js';
import { createDatabase, type Db } from '../../src/shared/db/index.js';
import { migrate } from '../../src/shared/db/migrate.js';
import { capturedLogFile } from './captured-logs.js';
import { ensureBuilt } from './compiled.js';
import { databaseOnServer, testEnvironment } from './environment.js';
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
  const base: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    DATABASE_URL: options.databaseVia ? options.databaseVia(database.url) : database.url,
    DATABASE_MIGRATION_URL: database.url,
    REDIS_URL: options.redisUrl ?? environment.redis.url,
    QUEUE_PREFIX: `{plinks-deploy-${randomBase62(6).toLowerCase()}}`,
    DATA_DIR: path.join(logDir, 'data'),
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
    DEV_GATEWAY: 'true',
    GATEWAY_WEBHOOK_SECRET: 'deployment-gateway-secret-0123456789',
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
        env: { ...base, PUBLIC_BASE_URL: publicBase, ...options.workerEnv?.(i) },
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
  return {
    webs: ports.map((port) => `http://127.0.0.1:${port}`),
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
    async stop() {
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
