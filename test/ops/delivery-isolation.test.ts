import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { asc, eq, inArray } from 'drizzle-orm';
import type { SeedResult } from '../../src/cli/seed.js';
import { schema } from '../../src/shared/db/index.js';
import { PrivateRedis } from '../../src/infra/private-redis.js';
import { eventually, Receiver, unclaimedEvents } from '../events/helpers.js';
import { startDeployment, type Deployment } from '../helpers/processes.js';

const CAP = 3;
const BREAKER_THRESHOLD = 4;

/**
 * Delivery lanes, as production runs them: one web and two worker processes (compiled) on one
 * PostgreSQL database and one Redis, several companies at once, one of them misbehaving. Every
 * receiver is a real HTTP server on loopback that checks each body against the served schemas.
 */
describe('delivery isolation: two worker processes, one lane per integration', function () {
  this.timeout(120_000);
  let deployment: Deployment;

  async function startWith(env: Record<string, string> = {}, redisUrl?: string): Promise<Deployment> {
    return startDeployment({
      webs: 1,
      workers: 2,
      ...(redisUrl === undefined ? {} : { redisUrl }),
      env: {
        WEBHOOK_MAX_IN_FLIGHT: String(CAP),
        BREAKER_THRESHOLD: String(BREAKER_THRESHOLD),
        WEBHOOK_RETRY_SCHEDULE: '0.3,0.3,0.3,0.3,0.3,0.3',
        WEBHOOK_RETRY_JITTER: '0',
        OUTBOX_SWEEP_MS: '300',
        RATE_LIMIT_PER_MINUTE: '100000',
        RATE_LIMIT_WRITES_PER_MINUTE: '100000',
        ...env,
      },
    });
  }

  /** A buyer pays a live link by card at the checkout: order.created, lead.created, order.paid. */
  async function cardPayment(tenant: SeedResult, n: number): Promise<string> {
    const offer = tenant.offers.find((o) => o.status === 'active');
    const link = await deployment.web(0).post<{ id: string }>('/v1/payment-links', {
      auth: tenant.keys.live,
      body: { offer_code: offer?.code, external_reference: `iso-${n}` },
    });
    expect(link.status, link.text).to.equal(201);
    const paid = await fetch(`${deployment.webs[0]}/pay/${offer?.code}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        plink: link.body.id,
        name: `Buyer ${n}`,
        email: `buyer${n}-${tenant.company.id}@example.com`,
        payment_method: 'credit_card',
      }).toString(),
    });
    expect(paid.status).to.equal(200);
    await paid.arrayBuffer();
    return link.body.id;
  }

  /** The ids of the company's events of one kind, in the order they were written. */
  async function eventIds(tenant: SeedResult, type: string): Promise<string[]> {
    const rows = await deployment.db
      .select({ id: schema.events.id, type: schema.events.type })
      .from(schema.events)
      .where(eq(schema.events.companyId, tenant.company.id))
      .orderBy(asc(schema.events.seq));
    return rows.filter((r) => r.type === type).map((r) => r.id);
  }

  const webhookIds = (r: Receiver): string[] => r.requests.map((q) => String(q.headers['webhook-id']));

  describe('limits, order and operational events', function () {
    before(async () => {
      deployment = await startWith();
    });
    after(async () => {
      await deployment?.stop();
    });

    it('never has more than WEBHOOK_MAX_IN_FLIGHT requests open to one receiver, across both workers', async () => {
      const tenant = await deployment.seed();
      const slow = await deployment.receiver(() => ({ status: 200, delayMs: 800 }));
      await deployment.integrate(tenant, slow.url, ['order.paid']);
      // Twelve payments at once: a backlog four times the cap.
      await Promise.all(Array.from({ length: 12 }, (_, i) => cardPayment(tenant, i)));
      await slow.waitFor(12, 30_000);
      expect(slow.maxOpen).to.equal(CAP);
    });

    it('starts an integration’s deliveries in the order their events committed', async () => {
      const tenant = await deployment.seed();
      const one = await deployment.receiver();
      await deployment.integrate(tenant, one.url, ['order.paid']);
      for (let i = 0; i < 15; i += 1) await cardPayment(tenant, i);
      await one.waitFor(15, 30_000);
      const committed = await eventIds(tenant, 'order.paid');
      expect(committed).to.have.length(15);
      // Started in order; with up to three in flight, each lands within the three after its turn.
      const arrived = webhookIds(one);
      committed.forEach((id, turn) => {
        expect(Math.abs(arrived.indexOf(id) - turn), id).to.be.below(CAP);
      });
      const attempts = await deployment.db
        .select({ eventId: schema.deliveryAttempts.eventId, at: schema.deliveryAttempts.requestedAt })
        .from(schema.deliveryAttempts)
        .where(inArray(schema.deliveryAttempts.eventId, committed));
      const startedAt = new Map(attempts.map((a) => [a.eventId, a.at.getTime()]));
      const starts = committed.map((id) => startedAt.get(id) ?? NaN);
      expect(starts).to.deep.equal([...starts].sort((x, y) => x - y));
    });

    it('starts at most rate_limit_per_second attempts per second (within 10 % over 10 s)', async () => {
      const tenant = await deployment.seed();
      const metered = await deployment.receiver();
      const integrationId = await deployment.integrate(
        tenant,
        metered.url,
        ['order.paid', 'order.created', 'lead.created'],
        {
          rate_limit_per_second: 5,
        },
      );
      const got = await deployment
        .web(0)
        .get<{ rate_limit_per_second: number | null }>(`/panel/v1/integrations/${integrationId}`, {
          auth: tenant.panel_token,
        });
      expect(got.body.rate_limit_per_second).to.equal(5);
      // 22 payments: 66 events, more than 12 s of backlog at 5/s.
      for (let i = 0; i < 22; i += 1) await cardPayment(tenant, i);
      await metered.waitFor(2, 10_000);
      const from = metered.requests[1]?.at ?? 0;
      await metered.waitFor(60, 30_000);
      const inWindow = metered.requests.filter((r) => r.at >= from && r.at < from + 10_000).length;
      expect(inWindow).to.be.within(45, 55);
    });

    it('pauses only the integration whose receiver answered 429 with Retry-After', async () => {
      const PAUSE_S = 10;
      const [busy, calm] = [await deployment.seed(), await deployment.seed()];
      const paused = await deployment.receiver((_req, i) =>
        // Long enough that a loaded machine makes the six payments below well within it (at load
        // average 25 two seconds were not).
        i === 0 ? { status: 429, headers: { 'retry-after': String(PAUSE_S) } } : { status: 200 },
      );
      const other = await deployment.receiver();
      await deployment.integrate(busy, paused.url, ['order.paid']);
      await deployment.integrate(calm, other.url, ['order.paid']);
      await cardPayment(busy, 1);
      await paused.waitFor(1);
      const refusedAt = paused.requests[0]?.at ?? 0;
      for (let i = 2; i <= 4; i += 1) await cardPayment(busy, i);
      for (let i = 1; i <= 3; i += 1) await cardPayment(calm, i);
      // The other company is served at once, while the paused one waits out its Retry-After.
      await other.waitFor(3, 15_000);
      expect(paused.requests).to.have.length(1);
      await paused.waitFor(5, PAUSE_S * 1000 + 15_000);
      expect((paused.requests[1]?.at ?? 0) - refusedAt).to.be.at.least(PAUSE_S * 1000 - 100);
    });

    it('tells the company’s other integrations when one is failing and when its breaker opens, never that one', async () => {
      const tenant = await deployment.seed();
      const broken = await deployment.receiver(() => ({ status: 500, body: 'down' }));
      const watcher = await deployment.receiver();
      const kinds = ['order.paid', 'integration.failing', 'integration.disabled'];
      const brokenId = await deployment.integrate(tenant, broken.url, kinds);
      await deployment.integrate(tenant, watcher.url, ['integration.failing', 'integration.disabled']);
      for (let i = 0; i < BREAKER_THRESHOLD + 1; i += 1) await cardPayment(tenant, i);
      const [failing, disabled] = (await watcher.waitFor(2, 20_000)).map(
        (r) => JSON.parse(r.body) as { type: string; data: { integration: Record<string, unknown> } },
      );
      expect(failing?.type).to.equal('integration.failing');
      // Attempts in flight together are recorded together: the count the event carries is the one
      // that reached the mark, which can be past it when several failures landed in one batch.
      expect(failing?.data.integration).to.deep.include({
        id: brokenId,
        type: 'webhook',
        url_host: new URL(broken.url).host,
        disabled_reason: '',
      });
      expect(failing?.data.integration.failure_count).to.be.at.least(BREAKER_THRESHOLD / 2);
      expect(disabled?.type).to.equal('integration.disabled');
      expect(disabled?.data.integration).to.deep.include({ id: brokenId, disabled_reason: 'auto_disabled' });
      expect(disabled?.data.integration.failure_count).to.be.at.least(BREAKER_THRESHOLD);
      expect(JSON.stringify(disabled)).to.not.include(broken.url);
      const [row] = await deployment.db
        .select()
        .from(schema.integrations)
        .where(eq(schema.integrations.id, brokenId));
      expect(row).to.include({ isActive: false, disabledReason: 'auto_disabled' });
      // Once per streak, and never to the integration they describe.
      await eventually(
        async () => (await unclaimedEvents(deployment.db, { companyId: tenant.company.id })) === 0,
      );
      expect(watcher.requests).to.have.length(2);
      expect(
        broken.requests.map((r) => (JSON.parse(r.body) as { type: string }).type),
      ).to.not.include.members(['integration.failing', 'integration.disabled']);
    });

    it('keeps another company’s webhooks on time beside a receiver that takes 1.5 s per request', async () => {
      const [slowCo, fastCo] = [await deployment.seed(), await deployment.seed()];
      const slow = await deployment.receiver(() => ({ status: 200, delayMs: 1500 }));
      const fast = await deployment.receiver();
      await deployment.integrate(slowCo, slow.url, ['order.paid', 'order.created', 'lead.created']);
      await deployment.integrate(fastCo, fast.url, ['order.paid']);
      // The slow receiver's backlog: 30 events at 3 in flight, 15 s of work.
      for (let i = 0; i < 10; i += 1) await cardPayment(slowCo, i);
      const lags: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        const before = fast.requests.length;
        const paidAt = Date.now();
        await cardPayment(fastCo, i);
        await fast.waitFor(before + 1, 5_000);
        lags.push((fast.requests[before]?.at ?? Infinity) - paidAt);
      }
      expect(slow.requests.length).to.be.below(30);
      expect(Math.max(...lags)).to.be.below(1000);
    });
  });

  describe('a deferred backlog survives a worker SIGKILL and a Redis restart', function () {
    let redisDir: string;
    let redis: PrivateRedis;
    before(async () => {
      redisDir = await mkdtemp(path.join(os.tmpdir(), 'plinks-isolation-redis-'));
      redis = new PrivateRedis({ dir: redisDir });
      await redis.start();
      deployment = await startWith({}, redis.url);
    });
    after(async () => {
      await deployment?.stop();
      await redis.stop();
      await rm(redisDir, { recursive: true, force: true });
    });

    it('delivers every event of a paused integration once its pause ends', async () => {
      const tenant = await deployment.seed();
      const paused = await deployment.receiver((_req, i) =>
        i === 0 ? { status: 429, headers: { 'retry-after': '4' } } : { status: 200 },
      );
      await deployment.integrate(tenant, paused.url, ['order.paid', 'order.created', 'lead.created']);
      await cardPayment(tenant, 0);
      await paused.waitFor(1);
      // The backlog waits in PostgreSQL while the integration is paused.
      for (let i = 1; i < 8; i += 1) await cardPayment(tenant, i);
      const [victim] = deployment.workerProcesses;
      await victim?.kill('SIGKILL');
      await redis.stop();
      await redis.start();
      await victim?.start();
      // Eight payments, three events each; the first request was the 429, sent again after the pause.
      await paused.waitFor(25, 60_000);
      const expected = await deployment.db
        .select({ id: schema.events.id })
        .from(schema.events)
        .where(eq(schema.events.companyId, tenant.company.id));
      expect(expected).to.have.length(24);
      expect(new Set(webhookIds(paused))).to.deep.equal(new Set(expected.map((e) => e.id)));
    });
  });
});
