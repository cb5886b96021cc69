import { execFile } from 'node:child_process';
import { chmod, lstat, mkdtemp, readlink, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { freePort, isListening } from '../../src/infra/free-port.js';
import { ROOT_DIRS, runsAsRoot } from '../../src/infra/postgres-as-root.js';
import { eventually, TimedOut } from '../helpers/eventually.js';
import { copyProject, processesMentioning, ServiceProcess, type LogLine } from './helpers.js';

const run = promisify(execFile);

/** The environment of a user who configured nothing but the two ports (free ones, for isolation). */
function serviceEnv(overrides: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'info', LOG_FORMAT: 'json' };
  for (const name of [
    'DATABASE_URL',
    'REDIS_URL',
    'TEST_DATABASE_URL',
    'DATA_DIR',
    'NODE_ENV',
    'PUBLIC_BASE_URL',
  ]) {
    delete env[name];
  }
  return { ...env, ...overrides };
}

const failures = (lines: LogLine[]): LogLine[] =>
  lines.filter((l) => (l.level ?? 0) >= 50 || l.notJson === true);

/*
 * As root (most containers) this is the hard case: a checkout under a mode-700 folder, where
 * the `postgres` OS user PostgreSQL runs as can reach neither node_modules nor DATA_DIR. As any
 * other user it checks that nothing changed for them in such a folder.
 */
describe('npm start in a mode-700 folder, on a path with a space', function () {
  this.timeout(60_000);
  const root = runsAsRoot();
  let base = '';
  let project = '';
  let env: NodeJS.ProcessEnv = {};
  let service: ServiceProcess | undefined;
  let webPort = 0;
  let pgPort = 0;
  let redisPort = 0;
  let pgDataDir = '';
  const ours = (): Promise<Array<{ pid: number; args: string }>> =>
    processesMentioning(...[base, pgDataDir, `127.0.0.1:${redisPort}`].filter((n) => n && !n.endsWith(':0')));

  before(async function () {
    this.timeout(60_000);
    base = await mkdtemp(path.join(os.tmpdir(), 'plinks-anywhere-'));
    await chmod(base, 0o700);
    project = path.join(base, 'my project');
    await copyProject(project);
    webPort = await freePort();
    pgPort = await freePort();
    env = serviceEnv({ PORT: String(webPort), EMBEDDED_PG_PORT: String(pgPort) });
    service = new ServiceProcess(project, env);
    const pg = await service.waitFor((l) => l.msg?.startsWith('embedded PostgreSQL ready') ?? false, 50_000);
    pgDataDir = String(pg.dataDir);
    redisPort = Number((await service.waitFor((l) => l.msg === 'private redis-server ready', 10_000)).port);
    await service.waitFor((l) => l.msg?.startsWith('ready:') ?? false, 20_000);
  });

  after(async function () {
    this.timeout(30_000);
    if (service?.running) {
      service.child.kill('SIGKILL');
      await service.exited;
    }
    // Anything still alive failed this suite's point; its command line names our folders, so it is ours.
    const stillRunning = await eventually(async () => ((await ours()).length === 0 ? true : undefined), 5000).then(
      () => false,
      (err: unknown) => {
        if (err instanceof TimedOut) return true;
        throw err;
      },
    );
    if (stillRunning) {
      for (const p of await ours()) {
        try {
          process.kill(p.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    if (pgDataDir && !pgDataDir.startsWith(base)) await rm(pgDataDir, { recursive: true, force: true });
    if (base) await rm(base, { recursive: true, force: true });
  });

  it('serves /readyz 200, with PostgreSQL on binaries and data its OS user can reach', async () => {
    const res = await fetch(`http://127.0.0.1:${webPort}/readyz`);
    expect(res.status).to.equal(200);
    const link = path.join(project, '.data', 'pg');
    const postmaster = (await processesMentioning(`-D ${pgDataDir}`)).find(
      (p) => !p.args.includes('supervisor'),
    );
    expect(postmaster, 'the postmaster process').to.not.equal(undefined);
    if (root) {
      // The private folder stays private: the binaries run from the shared cache, the data lives
      // under /var/lib, and DATA_DIR/pg records where.
      expect(pgDataDir.startsWith(`${ROOT_DIRS.clusters}/`)).to.equal(true);
      expect((await lstat(link)).isSymbolicLink()).to.equal(true);
      expect(await readlink(link)).to.equal(pgDataDir);
      expect(postmaster?.args.startsWith(`${ROOT_DIRS.binaries}/`)).to.equal(true);
      const { stdout } = await run('ps', ['-o', 'user=', '-p', String(postmaster?.pid)]);
      expect(stdout.trim()).to.equal('postgres');
    } else {
      expect(pgDataDir).to.equal(link);
    }
  });

  it('refuses a second start on the same PORT in one line naming PORT, and starts nothing', async () => {
    const running = (await ours()).map((p) => p.pid).sort();
    const second = new ServiceProcess(project, env);
    expect(await second.exited).to.equal(1);
    const lines = failures(second.lines);
    expect(lines, JSON.stringify(second.lines)).to.have.length(1);
    expect(lines[0]?.msg).to.match(
      new RegExp(`^PORT ${webPort} is already in use\\b.*set PORT to a free port`),
    );
    expect(second.stderr).to.not.match(/EADDRINUSE|\n\s+at /);
    expect((await ours()).map((p) => p.pid).sort()).to.deep.equal(running);
  });

  it('refuses EMBEDDED_PG_PORT held by another cluster in one line naming EMBEDDED_PG_PORT', async () => {
    const running = (await ours()).map((p) => p.pid).sort();
    const other = new ServiceProcess(project, {
      ...env,
      PORT: String(await freePort()),
      DATA_DIR: path.join(base, 'other data'),
    });
    expect(await other.exited).to.equal(1);
    const lines = failures(other.lines);
    expect(lines, JSON.stringify(other.lines)).to.have.length(1);
    expect(lines[0]?.msg).to.match(
      new RegExp(
        `^EMBEDDED_PG_PORT ${pgPort} is already in use by another PostgreSQL\\b.*set EMBEDDED_PG_PORT to a free port`,
      ),
    );
    expect((await ours()).map((p) => p.pid).sort()).to.deep.equal(running);
  });

  it('takes its redis-server and PostgreSQL down with it when SIGKILLed', async () => {
    expect(await isListening(pgPort)).to.equal(true);
    expect(await isListening(redisPort)).to.equal(true);
    expect(await ours()).to.not.deep.equal([]);
    service?.child.kill('SIGKILL');
    await service?.exited;
    await eventually(
      async () => {
        const alive =
          (await ours()).length > 0 || (await isListening(pgPort)) || (await isListening(redisPort));
        return alive ? undefined : true;
      },
      5000,
      async () => `nothing left running, still running: ${JSON.stringify(await ours())}`,
    );
  });
});
