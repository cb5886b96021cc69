import { execFile } from 'node:child_process';
import { chmod, cp, lstat, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/infra/embedded-postgres.js';
import { freePort } from '../../src/infra/free-port.js';
import {
  binariesIn,
  canReach,
  postgresUser,
  reachableBinaries,
  reachableDataDir,
  ROOT_DIRS,
  runsAsRoot,
} from '../../src/infra/postgres-as-root.js';
import { PrivateRedis } from '../../src/infra/private-redis.js';
import { StartupError } from '../../src/infra/startup-error.js';
import { skipBecause } from '../helpers/skip.js';

const run = promisify(execFile);

async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('embedded PostgreSQL and private Redis in private folders', function () {
  this.timeout(30_000);
  let base = '';
  const exists = (p: string): Promise<boolean> =>
    lstat(p).then(
      () => true,
      () => false,
    );

  beforeEach(async () => {
    // What `mktemp -d` gives, and what a checkout under /root looks like to other users.
    base = await mkdtemp(path.join(os.tmpdir(), 'plinks-private-'));
    await chmod(base, 0o700);
  });
  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('runs a throwaway cluster (as the test environment does) and leaves nothing behind', async () => {
    const dir = path.join(base, 'a folder', 'pg');
    const cluster = await startEmbeddedPostgres({
      dir,
      port: await freePort(),
      database: 'private_test',
      persistent: false,
      fast: true,
    });
    try {
      expect(await query(cluster.url, 'SELECT 1 AS one')).to.deep.equal([{ one: 1 }]);
      if (runsAsRoot()) {
        expect(cluster.dataDir.startsWith(`${ROOT_DIRS.clusters}/`)).to.equal(true);
        expect((await lstat(dir)).isSymbolicLink()).to.equal(true);
      } else {
        expect(cluster.dataDir).to.equal(dir);
      }
    } finally {
      await cluster.stop();
    }
    expect(await exists(cluster.dataDir)).to.equal(false);
    expect(await exists(dir)).to.equal(false);
  });

  it('finds a persistent cluster again where its first start put it', async () => {
    const dir = path.join(base, 'data dir', 'pg');
    const port = await freePort();
    const first = await startEmbeddedPostgres({ dir, port, database: 'kept', persistent: true, fast: true });
    try {
      await query(first.url, 'CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)');
    } finally {
      await first.stop();
    }
    const second = await startEmbeddedPostgres({ dir, port, database: 'kept', persistent: true, fast: true });
    try {
      expect(second.dataDir).to.equal(first.dataDir);
      expect(await query(second.url, 'SELECT n FROM kept')).to.deep.equal([{ n: 42 }]);
    } finally {
      await second.stop();
      await rm(second.dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a second private redis-server on the folder of a running one', async () => {
    const dir = path.join(base, 'redis');
    const first = new PrivateRedis({ dir, persist: true });
    await first.start();
    try {
      const error = await new PrivateRedis({ dir, persist: true }).start().then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).to.be.instanceOf(StartupError);
      expect((error as Error).message).to.match(/is used by a running redis-server .*set REDIS_URL/);
    } finally {
      await first.stop();
    }
    // Stopped cleanly, it no longer claims the folder.
    const again = new PrivateRedis({ dir, persist: true });
    await again.start();
    await again.stop();
  });

  describe('as root', () => {
    before(function () {
      if (!runsAsRoot()) skipBecause(this, 'not running as root: these tests are of what only root does');
    });

    it('copies binaries the postgres user cannot reach to a cache it can, once', async () => {
      const library = createRequire(import.meta.url).resolve('embedded-postgres');
      const entry = createRequire(library).resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
      const native = path.join(base, 'node modules', 'native');
      await cp(path.resolve(path.dirname(entry), '..', 'native'), native, {
        recursive: true,
        verbatimSymlinks: true,
      });
      const cacheRoot = await mkdtemp(path.join(os.tmpdir(), 'plinks-cache-'));
      await chmod(cacheRoot, 0o755);
      try {
        const user = await postgresUser();
        expect(await canReach(user, binariesIn(native).postgres)).to.equal(false);
        const cached = await reachableBinaries(binariesIn(native), user, 'pg-test', cacheRoot);
        expect(cached.native).to.equal(path.join(cacheRoot, 'pg-test'));
        const { stdout } = await run(cached.postgres, ['--version'], {
          uid: user.uid,
          gid: user.gid,
          cwd: '/',
        });
        expect(stdout).to.match(/^postgres \(PostgreSQL\) \d+/);
        const copied = await stat(cached.postgres);
        const again = await reachableBinaries(binariesIn(native), user, 'pg-test', cacheRoot);
        expect(again).to.deep.equal(cached);
        expect((await stat(again.postgres)).ino).to.equal(copied.ino);
      } finally {
        await rm(cacheRoot, { recursive: true, force: true });
      }
    });

    it('says in one sentence what to do when no folder the postgres user can enter is available', async () => {
      const unreachable = path.join(base, 'clusters');
      await mkdir(unreachable);
      const error = await reachableDataDir(
        path.join(base, 'data', 'pg'),
        await postgresUser(),
        unreachable,
      ).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).to.be.instanceOf(StartupError);
      expect((error as Error).message).to.match(
        /^The embedded PostgreSQL cannot run: .*set DATA_DIR .*DATABASE_URL/,
      );
      expect((error as Error).message).to.not.include('\n');
    });
  });
});
