import { queuePrefixFor } from '../../queues/index.js';
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { PrivateRedis, runningPrivateRedisUrl } from '../../src/infra/private-redis.js';
import { randomBase62 } from '../../src/shared/ids.js';
import { testEnvironment } from '../helpers/environment.js';

const run = promisify(execFile);

interface Row {
  queue: string;
  paused: boolean;
  waiting: number;
  delayed: number;
  active: number;
  failed: number;
}

describe('CLI: queues status | pause | resume', function () {
  this.timeout(60_000);
  // A prefix of its own: pausing must not stop the queues every other test relies on.
  const prefix = `{plinks-cli-queues-${randomBase62(6).toLowerCase()}}`;
  let connection: Redis;
  let deliveries: Queue;

  const cli = async (...args: string[]): Promise<{ stdout: string; stderr: string }> =>
    run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'queues', ...args], {
      env: {
        ...process.env,
        DATABASE_URL: testEnvironment().databaseUrl,
        REDIS_URL: testEnvironment().redis.url,
        QUEUE_PREFIX: prefix,
        LOG_LEVEL: 'warn',
      },
      timeout: 60_000,
    });
  const rows = async (...args: string[]): Promise<Row[]> =>
    JSON.parse((await cli(...args, '--json')).stdout) as Row[];

  before(async () => {
    connection = new Redis(testEnvironment().redis.url, { maxRetriesPerRequest: null });
    deliveries = new Queue('deliveries', { connection, prefix: queuePrefixFor(prefix, 'deliveries') });
    await deliveries.add('deliveries', { deliveryId: 1, attempt: 1 });
    await deliveries.add('deliveries', { deliveryId: 2, attempt: 2 }, { delay: 3_600_000 });
  });
  after(async () => {
    await deliveries?.obliterate({ force: true });
    await deliveries?.close();
    // Every queue's keys start with its own tag, `{<name>:<queue>}`.
    const keys = await connection.keys(`${prefix.slice(0, -1)}:*`);
    if (keys.length > 0) await connection.del(...keys);
    connection?.disconnect();
  });

  it('status lists every queue with its counts; the table form names the same columns', async () => {
    const all = await rows('status');
    expect(all.map((r) => r.queue)).to.include.members([
      'outbox',
      'deliveries',
      'simulate',
      'delivery-recovery',
      // The sweeps, job schedulers of the workers.
      'link-expiry-tick',
      'outbox-sweep',
      'renewal-sweep',
    ]);
    expect(all.find((r) => r.queue === 'deliveries')).to.deep.equal({
      queue: 'deliveries',
      paused: false,
      waiting: 1,
      delayed: 1,
      active: 0,
      failed: 0,
    });
    const { stdout } = await cli('status', '--queue', 'deliveries');
    expect(stdout.split('\n')[0]).to.match(/^queue\s+state\s+waiting\s+delayed\s+active\s+failed$/);
    expect(stdout).to.match(/deliveries\s+running\s+1\s+1\s+0\s+0/);
  });

  it('pause stops one queue (its jobs stay), resume starts it again; the others are untouched', async () => {
    const paused = await rows('pause', '--queue', 'deliveries');
    expect(paused).to.deep.equal([
      { queue: 'deliveries', paused: true, waiting: 1, delayed: 1, active: 0, failed: 0 },
    ]);
    expect(await deliveries.isPaused()).to.equal(true);
    expect((await rows('status')).filter((r) => r.paused).map((r) => r.queue)).to.deep.equal(['deliveries']);
    const resumed = await rows('resume', '--queue', 'deliveries');
    expect(resumed[0]).to.include({ paused: false, waiting: 1 });
    expect(await deliveries.isPaused()).to.equal(false);
  });

  it('an unknown queue is a usage error naming the queues (exit code 2)', async () => {
    const failure = await cli('pause', '--queue', 'nope').then(
      () => undefined,
      (err: { code: number; stderr: string }) => err,
    );
    expect(failure?.code).to.equal(2);
    expect(failure?.stderr).to.include('--queue must be one of outbox, deliveries');
    expect(await deliveries.isPaused()).to.equal(false);
  });
});

describe('CLI: the Redis of a running `npm start`, found without REDIS_URL', function () {
  this.timeout(60_000);
  let dataDir: string;
  let redis: PrivateRedis;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'plinks-cli-redis-'));
    // What `npm start` runs without REDIS_URL: a persistent private redis-server under DATA_DIR/redis.
    redis = new PrivateRedis({ dir: path.join(dataDir, 'redis'), persist: true });
    await redis.start();
  });
  after(async () => {
    await redis.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('names the running server of DATA_DIR, and nothing for a folder where none runs', async () => {
    expect(await runningPrivateRedisUrl(path.join(dataDir, 'redis'))).to.equal(redis.url);
    const other = await mkdtemp(path.join(tmpdir(), 'plinks-cli-redis-none-'));
    try {
      expect(await runningPrivateRedisUrl(path.join(other, 'redis'))).to.equal(undefined);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('queues status reads it (no REDIS_URL), and says what to do when no service runs', async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: testEnvironment().databaseUrl,
      LOG_LEVEL: 'warn',
    };
    delete env.REDIS_URL;
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'queues', 'status', '--json'],
      { env: { ...env, DATA_DIR: dataDir }, timeout: 60_000 },
    );
    expect((JSON.parse(stdout) as Row[]).map((r) => r.queue)).to.include('outbox');

    const empty = await mkdtemp(path.join(tmpdir(), 'plinks-cli-redis-none-'));
    try {
      const failure = await run(
        process.execPath,
        ['--import', 'tsx', 'src/cli/main.ts', 'queues', 'status'],
        { env: { ...env, DATA_DIR: empty }, timeout: 60_000 },
      ).then(
        () => undefined,
        (err: { code: number; stderr: string }) => err,
      );
      expect(failure?.code).to.equal(2);
      expect(failure?.stderr).to.include('set REDIS_URL (or REDIS_CLUSTER_NODES), or start the service');
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
