import { appendFile, chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import pg from 'pg';
import { ServiceProcess } from '../../bench/harness/service-process.js';
import { seedCompany } from '../../src/cli/seed.js';
import { createDatabase } from '../../src/shared/db/index.js';
import { migrate } from '../../src/shared/db/migrate.js';
import { startEmbeddedPostgres, type RunningPostgres } from '../../src/infra/embedded-postgres.js';
import { freePort } from '../../src/infra/free-port.js';
import { randomBase62 } from '../../src/shared/ids.js';
import { capturedLogFile } from '../helpers/captured-logs.js';
import { eventually } from '../helpers/eventually.js';
import { testEnvironment } from '../helpers/environment.js';
import { noteSecret } from '../helpers/secrets.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The web process (as the Procfile starts it) comes up while PostgreSQL is unreachable,
 * answers 503 meanwhile, and becomes ready by itself once PostgreSQL appears: no crash, no restart.
 */
describe('a web process started while PostgreSQL is unreachable', function () {
  this.timeout(90_000);
  let dir = '';
  let cluster: RunningPostgres | undefined;
  let web: ServiceProcess | undefined;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'plinks-no-pg-'));
    await chmod(dir, 0o755);
  });
  after(async () => {
    await web?.stop();
    // Its log joins the suite's capture: the closing log check searches it for secrets too.
    const capture = capturedLogFile();
    if (capture && web) await appendFile(capture, await readFile(web.logFile, 'utf8').catch(() => ''));
    await cluster?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const get = async (url: string, auth?: string): Promise<{ status: number; body: unknown }> => {
    const res = await fetch(url, {
      headers: auth ? { authorization: `Bearer ${auth}` } : {},
      signal: AbortSignal.timeout(10_000),
    });
    return { status: res.status, body: await res.json() };
  };

  it('serves 503 with Retry-After until PostgreSQL is there, then becomes ready without a restart', async () => {
    const pgPort = await freePort();
    const webPort = await freePort();
    const database = 'no_pg_yet';
    const databaseUrl = `postgres://postgres:postgres@127.0.0.1:${pgPort}/${database}`;
    web = new ServiceProcess({
      role: 'web',
      cwd: REPO_ROOT,
      script: 'src/web.ts',
      env: {
        ...process.env,
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: String(webPort),
        DATABASE_URL: databaseUrl,
        REDIS_URL: testEnvironment().redis.url,
        QUEUE_PREFIX: `{plinks-no-pg-${randomBase62(6).toLowerCase()}}`,
        DATA_DIR: path.join(dir, 'data'),
        LOG_LEVEL: 'warn',
        LOG_FORMAT: 'json',
      },
      logFile: path.join(dir, 'web.log'),
      ready: async () => {
        try {
          return (await fetch(`http://127.0.0.1:${webPort}/healthz`)).ok;
        } catch {
          return false;
        }
      },
    });
    await web.start();
    const base = `http://127.0.0.1:${webPort}`;

    const down = await get(`${base}/readyz`);
    expect(down.status).to.equal(503);
    expect(down.body).to.have.nested.property('checks.postgres', 'down');
    expect(down.body).to.have.nested.property('checks.redis', 'ok');
    const refused = await fetch(`${base}/v1/offers`, {
      headers: { authorization: `Bearer vk_test_${'x'.repeat(32)}` },
    });
    expect(refused.status).to.equal(503);
    expect(refused.headers.get('retry-after')).to.match(/^\d+$/);

    // PostgreSQL arrives (the release step migrates it); the same web process serves.
    cluster = await startEmbeddedPostgres({
      dir: path.join(dir, 'pg'),
      port: pgPort,
      database,
      persistent: false,
      fast: true,
    });
    const owner = new pg.Pool({ connectionString: cluster.url, max: 1 });
    await migrate(owner);
    await owner.end();
    const { db, close } = createDatabase(cluster.url, 1);
    const tenant = await seedCompany(db);
    noteSecret(tenant.keys.test);
    await close();

    let ready = 0;
    await eventually(
      async () => ((ready = (await get(`${base}/readyz`)).status) === 200 ? true : undefined),
      20_000,
      () => `/readyz to answer 200 (last ${ready})`,
      200,
    );
    const offers = await get(`${base}/v1/offers`, tenant.keys.test);
    expect(offers.status).to.equal(200);
    expect(web.alive).to.equal(true);
  });
});
