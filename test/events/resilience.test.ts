import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { schema, type Db } from '../../src/shared/db/index.js';
import { PrivateRedis } from '../../src/infra/private-redis.js';
import { randomBase62 } from '../../src/shared/ids.js';
import { startWorkers } from '../../workers/index.js';
import { seed, startTestApp } from '../helpers/app.js';
import { testEnvironment } from '../helpers/environment.js';
import { createIntegration, emit, eventually, Receiver } from './helpers.js';

async function deliveryOf(db: Db, eventId: string) {
  const [row] = await db.select().from(schema.deliveries).where(eq(schema.deliveries.eventId, eventId));
  return row;
}

describe('event engine resilience', function () {
  this.timeout(60_000);
  let receiver: Receiver;

  beforeEach(async () => {
    receiver = await new Receiver().start();
  });
  afterEach(async () => {
    await receiver.close();
  });

  it('delivers events committed while Redis was down once it is back', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'plinks-redis-outage-'));
    const redis = new PrivateRedis({ dir });
    await redis.start();
    const app = await startTestApp({
      REDIS_URL: redis.url,
      OUTBOX_SWEEP_MS: '300',
      QUEUE_PREFIX: `{outage-${randomBase62(6)}}`,
    });
    const workers = await startWorkers(app.ctx, { kind: 'single', url: redis.url });
    try {
      const tenant = await seed();
      await createIntegration(app, tenant, { url: receiver.url, events: ['lead.created'] });
      const before = await emit(app, {
        companyId: tenant.company.id,
        type: 'lead.created',
        productId: null,
        note: 'n0',
      });
      await receiver.waitFor(1);

      await redis.stop();
      const during = await Promise.all(
        [1, 2, 3].map((n) =>
          emit(app, { companyId: tenant.company.id, type: 'lead.created', productId: null, note: `n${n}` }),
        ),
      );
      // Redis comes back empty (no persistence): nothing of the outage survives there.
      await redis.start();

      const requests = await receiver.waitFor(4, 20_000);
      const ids = new Set(requests.map((r) => r.headers['webhook-id']));
      for (const id of [before, ...during]) expect(ids).to.include(id);
      for (const id of during) {
        await eventually(
          async () => ((await deliveryOf(app.ctx.db, id))?.status === 'succeeded' ? true : undefined),
          10_000,
        );
      }
    } finally {
      await workers.close();
      await app.close();
      await redis.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('still makes a retry whose delayed job Redis lost in a restart', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'plinks-redis-restart-'));
    const redis = new PrivateRedis({ dir });
    await redis.start();
    const app = await startTestApp({
      REDIS_URL: redis.url,
      OUTBOX_SWEEP_MS: '200',
      WEBHOOK_RETRY_SCHEDULE: '1',
      WEBHOOK_RETRY_JITTER: '0',
      QUEUE_PREFIX: `{restart-${randomBase62(6)}}`,
    });
    const workers = await startWorkers(
      app.ctx,
      { kind: 'single', url: redis.url },
      {
        sweep: { eventGraceMs: 500, deliveryGraceMs: 300, batch: 100 },
      },
    );
    try {
      const tenant = await seed();
      receiver.reply = (_req, i) => (i === 0 ? { status: 503 } : { status: 200 });
      await createIntegration(app, tenant, { url: receiver.url, events: ['lead.created'] });
      const eventId = await emit(app, {
        companyId: tenant.company.id,
        type: 'lead.created',
        productId: null,
      });
      await eventually(async () =>
        (await deliveryOf(app.ctx.db, eventId))?.attempts === 1 ? true : undefined,
      );
      // The retry waits in Redis as a delayed job; a restart without persistence forgets it.
      await redis.stop();
      await redis.start();
      const [, retry] = await receiver.waitFor(2, 15_000);
      expect(retry?.headers['webhook-id']).to.equal(eventId);
      const done = await eventually(async () => {
        const d = await deliveryOf(app.ctx.db, eventId);
        return d?.status === 'succeeded' ? d : undefined;
      });
      expect(done.attempts).to.equal(2);
    } finally {
      await workers.close();
      await app.close();
      await redis.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('retries a delivery whose worker was killed mid-request (SIGKILL), with the same webhook-id', async () => {
    const prefix = `{crash-${randomBase62(6)}}`;
    const env = testEnvironment();
    const app = await startTestApp({ QUEUE_PREFIX: prefix });
    let child: ChildProcess | undefined;
    let survivor: Awaited<ReturnType<typeof startWorkers>> | undefined;
    try {
      const tenant = await seed();
      // The first request is never answered: its worker dies while waiting for it.
      receiver.reply = (_req, i) => (i === 0 ? { status: 200, delayMs: 60_000 } : { status: 200 });
      const integrationId = await createIntegration(app, tenant, {
        url: receiver.url,
        events: ['lead.created'],
      });

      child = spawn(
        process.execPath,
        ['--import', 'tsx', path.join(import.meta.dirname, 'fixtures/worker-process.ts')],
        {
          env: {
            ...process.env,
            NODE_ENV: 'test',
            LOG_LEVEL: 'silent',
            DATABASE_URL: env.databaseUrl,
            REDIS_URL: env.redis.url,
            SMTP_URL: env.smtp.url,
            QUEUE_PREFIX: prefix,
          },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      await new Promise<void>((resolve, reject) => {
        child?.stdout?.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('workers-ready')) resolve();
        });
        child?.once('exit', (code) => reject(new Error(`worker exited early (${String(code)})`)));
      });

      const eventId = await emit(app, {
        companyId: tenant.company.id,
        type: 'lead.created',
        productId: null,
      });
      await receiver.waitFor(1);
      child.kill('SIGKILL');
      await new Promise((resolve) => child?.once('exit', resolve));
      const killed = await deliveryOf(app.ctx.db, eventId);
      expect(killed).to.include({ status: 'pending', attempts: 0 });

      survivor = await startWorkers(
        app.ctx,
        { kind: 'single', url: env.redis.url },
        { lockDurationMs: 1000, stalledIntervalMs: 500, laneLeaseMs: 1000 },
      );
      const requests = await receiver.waitFor(2, 20_000);
      expect(requests[1]?.headers['webhook-id']).to.equal(eventId);
      const done = await eventually(async () => {
        const d = await deliveryOf(app.ctx.db, eventId);
        return d?.status === 'succeeded' ? d : undefined;
      });
      expect(done).to.include({ attempts: 1, integrationId });
    } finally {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await survivor?.close();
      await app.close();
    }
  });
});
