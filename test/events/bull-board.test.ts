import { expect } from 'chai';
import { asc, eq } from 'drizzle-orm';
import type { Job } from 'bullmq';
import { jobIds } from '../../queues/index.js';
import { ADMIN_BOARD_CSP } from '../../src/apps/admin-board.js';
import { schema } from '../../src/shared/db/index.js';
import { seed } from '../helpers/app.js';
import { createIntegration, emit, eventually, Receiver, startEngine, type Engine } from './helpers.js';

const ADMIN = { ADMIN_USER: 'ops', ADMIN_PASSWORD: 'correct-horse-battery' };
const basic = (user: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});
const AUTH = basic(ADMIN.ADMIN_USER, ADMIN.ADMIN_PASSWORD);

async function deliveryOf(engine: Engine, eventId: string) {
  const [row] = await engine.app.ctx.db
    .select()
    .from(schema.deliveries)
    .where(eq(schema.deliveries.eventId, eventId));
  return row;
}

async function failedJob(engine: Engine, queue: 'deliveries', id: string): Promise<Job> {
  return eventually(
    async () => {
      const jobs = engine.app.ctx.producers.queue(queue);
      // State first, then the job: a job read while still active would lack its failed reason.
      return (await jobs.getJobState(id)) === 'failed' ? jobs.getJob(id) : undefined;
    },
    10_000,
    `failed ${queue} job ${id}`,
  );
}

const retryFromBoard = (engine: Engine, queue: string, jobId: string) =>
  fetch(`${engine.app.url}/admin/queues/api/queues/${queue}/${encodeURIComponent(jobId)}/retry`, {
    method: 'PUT',
    headers: AUTH,
  });

describe('Bull Board tells the truth about deliveries', function () {
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = await new Receiver().start();
  });
  afterEach(async () => {
    await receiver.close();
  });

  const laneOf = async (engine: Engine, integrationId: number) => {
    const [lane] = await engine.app.ctx.db
      .select()
      .from(schema.deliveryLanes)
      .where(eq(schema.deliveryLanes.integrationId, integrationId));
    return lane;
  };

  describe('read-write (ADMIN_READ_WRITE=true)', function () {
    let engine: Engine;
    before(async () => {
      // The second attempt is scheduled 3 s after the first: long enough to retry from the board first.
      engine = await startEngine({ ...ADMIN, ADMIN_READ_WRITE: 'true', WEBHOOK_RETRY_SCHEDULE: '3,60' });
    });
    after(async () => {
      await engine.close();
    });

    it('a failed first attempt is a failed deliveries job naming the receiver status; a retry from the board makes exactly one more attempt', async () => {
      const tenant = await seed();
      receiver.reply = (_req, index) => (index === 0 ? { status: 503, body: 'down' } : { status: 200 });
      const integrationId = await createIntegration(engine.app, tenant, {
        url: receiver.url,
        events: ['lead.created'],
      });
      const eventId = await emit(engine.app, {
        companyId: tenant.company.id,
        type: 'lead.created',
        productId: null,
      });
      const delivery = await eventually(async () => deliveryOf(engine, eventId), 10_000, 'delivery');
      const job = await failedJob(engine, 'deliveries', jobIds.deliveries(delivery.id, 1));
      expect(job.failedReason).to.equal(
        `delivery ${delivery.id} (integration ${integrationId}) attempt 1: receiver answered HTTP 503`,
      );
      expect(job.data).to.deep.equal({
        deliveryId: delivery.id,
        attempt: 1,
        eventType: 'lead.created',
        integrationId,
        reason: job.failedReason,
        failedAttempt: 1,
      });

      const retried = await retryFromBoard(engine, 'deliveries', job.id ?? '');
      expect(retried.status).to.be.within(200, 204);
      await receiver.waitFor(2);
      const done = await eventually(async () => {
        const row = await deliveryOf(engine, eventId);
        return row?.status === 'succeeded' ? row : undefined;
      });
      expect(done.attempts).to.equal(2);
      // The retry scheduled after the first failure is gone with it: the lane expects nothing more.
      const lane = await eventually(async () => {
        const row = await laneOf(engine, integrationId);
        return row && row.owner === null ? row : undefined;
      });
      expect(lane.jobAt).to.equal(null);
      expect(receiver.requests).to.have.length(2);
      const attempts = await engine.app.ctx.db
        .select()
        .from(schema.deliveryAttempts)
        .where(eq(schema.deliveryAttempts.deliveryId, delivery.id))
        .orderBy(asc(schema.deliveryAttempts.attempt));
      expect(attempts.map((a) => [a.attempt, a.statusCode])).to.deep.equal([
        [1, 503],
        [2, 200],
      ]);
    });

    it('a failed later attempt is a failed deliveries job showing the event type and integration; retried from the board, the next scheduled attempt never happens', async () => {
      const tenant = await seed();
      const integrationId = await createIntegration(engine.app, tenant, {
        url: receiver.url,
        events: ['lead.created'],
      });
      receiver.reply = (_req, index) => (index < 2 ? { status: 500, body: 'boom' } : { status: 200 });
      const eventId = await emit(engine.app, {
        companyId: tenant.company.id,
        type: 'lead.created',
        productId: null,
      });
      const delivery = await eventually(async () => deliveryOf(engine, eventId), 10_000, 'delivery');
      // Attempt 2 follows the schedule (3 s); attempt 3 would wait 60 s.
      const job = await failedJob(engine, 'deliveries', jobIds.deliveries(delivery.id, 2));
      expect(job.failedReason).to.equal(
        `delivery ${delivery.id} (integration ${integrationId}) attempt 2: receiver answered HTTP 500`,
      );
      expect(job.data).to.deep.include({
        deliveryId: delivery.id,
        attempt: 2,
        eventType: 'lead.created',
        integrationId,
        failedAttempt: 2,
      });

      expect((await retryFromBoard(engine, 'deliveries', job.id ?? '')).status).to.be.within(200, 204);
      await receiver.waitFor(3);
      const done = await eventually(async () => {
        const row = await deliveryOf(engine, eventId);
        return row?.status === 'succeeded' ? row : undefined;
      });
      expect(done).to.include({ status: 'succeeded', attempts: 3, nextAttemptAt: null });
      expect(receiver.requests).to.have.length(3);
    });

    it('names the network error when the receiver cannot be reached', async () => {
      const tenant = await seed();
      await createIntegration(engine.app, tenant, {
        url: 'http://127.0.0.1:9/hook',
        events: ['lead.created'],
      });
      const eventId = await emit(engine.app, {
        companyId: tenant.company.id,
        type: 'lead.created',
        productId: null,
      });
      const delivery = await eventually(async () => deliveryOf(engine, eventId), 10_000, 'delivery');
      const job = await failedJob(engine, 'deliveries', jobIds.deliveries(delivery.id, 1));
      expect(job.failedReason).to.match(/attempt 1: no response: ECONNREFUSED/);
    });
  });

  describe('read-only by default, behind a CSP and a constant-time credential check', function () {
    let engine: Engine;
    before(async () => {
      engine = await startEngine({ ...ADMIN, WEBHOOK_RETRY_SCHEDULE: '60' });
    });
    after(async () => {
      await engine.close();
    });

    it('refuses a retry (403) and sends nothing more', async () => {
      const tenant = await seed();
      receiver.reply = () => ({ status: 503 });
      await createIntegration(engine.app, tenant, { url: receiver.url, events: ['lead.created'] });
      const eventId = await emit(engine.app, {
        companyId: tenant.company.id,
        type: 'lead.created',
        productId: null,
      });
      const delivery = await eventually(async () => deliveryOf(engine, eventId), 10_000, 'delivery');
      const job = await failedJob(engine, 'deliveries', jobIds.deliveries(delivery.id, 1));
      const res = await retryFromBoard(engine, 'deliveries', job.id ?? '');
      expect(res.status).to.equal(403);
      expect(((await res.json()) as { error: { type: string } }).error.type).to.equal('permission_error');
      expect(await job.isFailed()).to.equal(true);
      expect(receiver.requests).to.have.length(1);
    });

    it('serves its page with a Content-Security-Policy, and wants the user and the password both right', async () => {
      const url = `${engine.app.url}/admin/queues`;
      const page = await fetch(url, { headers: AUTH });
      expect(page.status).to.equal(200);
      expect(page.headers.get('content-security-policy')).to.equal(ADMIN_BOARD_CSP);
      const html = await page.text();
      expect(html).to.match(/<script defer src="static\/js\//);
      // What the page loads must come from the board's own origin and be served there, or the CSP
      // ('self' only) would leave the board blank in a browser. The one exception is the Google Fonts
      // stylesheet the board links, which the CSP blocks on purpose (the system font is used instead).
      const referenced = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*\shref)="([^"]+)"/g)].map(
        (m) => new URL(m[1] ?? '', `${url}/`),
      );
      const assets = referenced.filter((a) => a.hostname !== 'fonts.googleapis.com');
      expect(referenced.length - assets.length).to.be.at.most(1);
      expect(ADMIN_BOARD_CSP).to.not.include('googleapis');
      expect(assets.filter((a) => /\.js$/.test(a.pathname))).to.not.be.empty;
      expect(assets.filter((a) => /\.css$/.test(a.pathname))).to.not.be.empty;
      for (const asset of assets) {
        expect(asset.origin, asset.href).to.equal(new URL(url).origin);
        const res = await fetch(asset, { headers: AUTH });
        expect(res.status, asset.href).to.equal(200);
        await res.arrayBuffer();
      }
      for (const [user, password] of [
        ['ops', 'wrong-password-here'],
        ['opz', ADMIN.ADMIN_PASSWORD],
        ['', ''],
        [ADMIN.ADMIN_PASSWORD, ADMIN.ADMIN_USER],
      ] as const) {
        const res = await fetch(url, { headers: basic(user, password) });
        expect(res.status, `${user}:${password}`).to.equal(401);
        expect(res.headers.get('content-security-policy')).to.equal(ADMIN_BOARD_CSP);
      }
    });
  });
});
