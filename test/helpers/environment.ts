import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig, type Config } from '../../src/shared/config.js';
import { migrate } from '../../src/shared/db/migrate.js';
import { startEmbeddedPostgres, type RunningPostgres } from '../../src/infra/embedded-postgres.js';
import { freePort } from '../../src/infra/free-port.js';
import { PrivateRedis } from '../../src/infra/private-redis.js';
import { randomBase62 } from '../../src/shared/ids.js';
import { captureLogsIn } from './captured-logs.js';
import { noteSecret } from './secrets.js';
import { TestSmtp } from './smtp.js';

/**
 * One isolated world per test run: its own PostgreSQL database (an embedded cluster in a temp dir,
 * or a fresh database on TEST_DATABASE_URL's server) and its own redis-server. Nothing outside it
 * is touched, flushed or dropped.
 */
export interface TestEnvironment {
  databaseUrl: string;
  redis: PrivateRedis;
  /** The run's SMTP server on loopback (authentication required, STARTTLS offered): SMTP_URL of every app. */
  smtp: TestSmtp;
  runId: string;
  /** Builds a config for this environment; `env` overrides variables as a deployment would. */
  config(env?: Record<string, string>): Config;
  stop(): Promise<void>;
}

let current: TestEnvironment | undefined;

export const hasTestEnvironment = (): boolean => current !== undefined;

export function testEnvironment(): TestEnvironment {
  if (!current) throw new Error('test environment not started: is test/setup.ts registered in .mocharc?');
  return current;
}

export async function databaseOnServer(
  serverUrl: string,
  name: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.end();
    },
  };
}

export async function startTestEnvironment(
  options: { postgresSettings?: Record<string, string> } = {},
): Promise<TestEnvironment> {
  const runId = randomBase62(8).toLowerCase();
  // The suite's logs (TEST_LOG_LEVEL) stay JSON lines in a terminal too, as in CI and in pipes.
  process.env.LOG_FORMAT ??= 'json';
  const dir = await mkdtemp(path.join(os.tmpdir(), `plinks-test-${runId}-`));
  // As root, PostgreSQL runs as the `postgres` user: a folder it can enter keeps the cluster here.
  // When TMPDIR itself is private, startEmbeddedPostgres keeps it under /var/lib and links it here.
  await chmod(dir, 0o755);
  let postgres: RunningPostgres | undefined;
  let dropDatabase: (() => Promise<void>) | undefined;
  let databaseUrl: string;
  const external = process.env.TEST_DATABASE_URL;
  if (external) {
    const db = await databaseOnServer(external, `plinks_test_${runId}`);
    databaseUrl = db.url;
    dropDatabase = db.drop;
  } else {
    postgres = await startEmbeddedPostgres({
      dir: path.join(dir, 'pg'),
      port: await freePort(),
      database: 'plinks_test',
      persistent: false,
      fast: true,
      ...(options.postgresSettings ? { settings: options.postgresSettings } : {}),
    });
    databaseUrl = postgres.url;
  }
  captureLogsIn(dir);
  const redis = new PrivateRedis({ dir: path.join(dir, 'redis') });
  await redis.start();
  const smtpPassword = `smtp-${randomBase62(24)}`;
  // The log test looks for the SMTP password in every log line.
  noteSecret(smtpPassword);
  const smtp = await new TestSmtp({ auth: { user: `mailer-${runId}`, pass: smtpPassword } }).start();

  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  await migrate(pool);
  await pool.end();

  current = {
    databaseUrl,
    redis,
    smtp,
    runId,
    config(env = {}) {
      return loadConfig({
        NODE_ENV: 'test',
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_URL: databaseUrl,
        REDIS_URL: redis.url,
        QUEUE_PREFIX: `{plinks-test-${runId}}`,
        // Generous by default so ordinary tests never trip them; rate-limit tests set their own.
        RATE_LIMIT_PER_MINUTE: '1000000',
        RATE_LIMIT_WRITES_PER_MINUTE: '1000000',
        SMTP_URL: smtp.url,
        ...env,
      });
    },
    async stop() {
      await smtp.close();
      await redis.stop();
      if (dropDatabase) await dropDatabase();
      if (postgres) await postgres.stop();
      await rm(dir, { recursive: true, force: true });
      current = undefined;
    },
  };
  return current;
}
