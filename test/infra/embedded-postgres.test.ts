import { chmod, lstat, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/shared/infra/embedded-postgres.js';
import { freePort } from '../../src/shared/infra/free-port.js';
import { PrivateRedis } from '../../src/shared/infra/private-redis.js';
import { StartupError } from '../../src/shared/infra/startup-error.js';

async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('embedded PostgreSQL and private Redis', function () {
  this.timeout(30_000);
  let base = '';
  const exists = (p: string): Promise<boolean> =>
    lstat(p).then(
      () => true,
      () => false,
    );

  beforeEach(async () => {
    base = await mkdtemp(path.join(os.tmpdir(), 'plinks-embedded-'));
    // As root, PostgreSQL runs as the `postgres` user, who must be able to enter the folder.
    await chmod(base, 0o755);
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
      expect(cluster.dataDir).to.equal(dir);
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
});
