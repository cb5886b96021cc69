import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { and, eq, sql } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { jobIds, Producers, QUEUE, SCHEDULERS } from '../../queues/index.js';
import type { SeedResult } from '../../src/cli/seed.js';
import { schema } from '../../src/shared/db/index.js';
import { createLink as insertLink, eventually, Receiver } from '../events/helpers.js';
import { startDeployment, type Deployment } from '../helpers/processes.js';

const BREAKER_THRESHOLD = 4;
const READS_PER_MINUTE = 60;
/** LINK_EXPIRY_TICK_MS's default. */
const TICK_MS = 250;

/**
 * Two web and two worker processes on one PostgreSQL database and one Redis, as `docker compose`
 * runs them: what one process guarantees must hold across them.
 */
describe('scale-out: two web and two worker processes behave as one', function () {
  this.timeout(120_000);
  let deployment: Deployment;

  before(async () => {
    deployment = await startDeployment({
      webs: 2,
      workers: 2,
      env: {
        RATE_LIMIT_PER_MINUTE: String(READS_PER_MINUTE),
        RATE_LIMIT_WRITES_PER_MINUTE: '1000',
        BREAKER_THRESHOLD: String(BREAKER_THRESHOLD),
        OUTBOX_SWEEP_MS: '300',
        WEBHOOK_RETRY_SCHEDULE: '3600',
        RENEWAL_SWEEP_MS: '200',
        // A failed renewal is retried a second later (and by the renewal sweep once it is overdue).
        RENEWAL_RETRY_SCHEDULE: '1',
      },
    });
  });
  after(async () => {
    await deployment?.stop();
  });

  /** A live plan link made through one web and paid by card at the other's checkout: its subscription. */
  async function subscribed(tenant: SeedResult, email: string) {
    const plan = tenant.plans.find((p) => p.status === 'active');
    const link = await deployment.web(0).post<{ id: string }>('/v1/payment-links', {
      auth: tenant.keys.live,
      body: { plan_code: plan?.code },
    });
    expect(link.status, link.text).to.equal(201);
    const paid = await deployment.web(1).post<string>(`/pay/${plan?.code ?? ''}/pay`, {
      rawBody: new URLSearchParams({ plink: link.body.id, name: 'Scale Subscriber', email }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(paid.status, paid.text).to.equal(200);
    const [subscription] = await deployment.db
      .select()
      .from(schema.subscriptions)
      .where(eq(schema.subscriptions.paymentLinkId, link.body.id));
    if (!subscription) throw new Error('paying the plan link started no subscription');
    return subscription;
  }
  const duplicates = (r: Receiver): number => {
    const ids = r.requests.map((q) => String(q.headers['webhook-id']));
    return ids.length - new Set(ids).size;
  };

  it('serves the stylesheets and scripts its pages name, from the build, under the same hashed names on both webs', async () => {
    // A dashboard page and a buyer page (a 404, which has the layout of every buyer page).
    for (const page of ['/dashboard/sign-in', '/pay/orders/00000000-0000-4000-8000-000000000000']) {
      const pageUrl = `${deployment.webs[0] ?? ''}${page}`;
      const text = await (await fetch(pageUrl)).text();
      const named = [...text.matchAll(/<(?:link rel="stylesheet" href|script src)="([^"]+)"/g)].map(
        (m) => new URL(m[1] ?? '', pageUrl).pathname,
      );
      expect(named, page).to.have.length.of.at.least(2);
      for (const asset of named) {
        expect(asset).to.match(/\/assets\/[a-z]+\.[0-9a-f]{12}\.(css|js)$/);
        const answers = await Promise.all(deployment.webs.map((url) => fetch(`${url}${asset}`)));
        const bodies = await Promise.all(answers.map((a) => a.text()));
        for (const answer of answers) {
          expect(answer.status, asset).to.equal(200);
          expect(answer.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
        }
        expect(bodies[0]).to.have.length.above(100);
        expect(bodies[1]).to.equal(bodies[0]);
      }
    }
  });

  it('rate limits: one key’s requests spread over both webs meet one shared limit', async () => {
    const tenant = await deployment.seed();
    const statuses = await Promise.all(
      Array.from({ length: READS_PER_MINUTE + 10 }, (_, i) =>
        deployment
          .web(i)
          .get('/v1/payment-links?limit=1', { auth: tenant.keys.test })
          .then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).to.have.length(READS_PER_MINUTE);
    expect(statuses.filter((s) => s === 429)).to.have.length(10);
  });

  it('idempotency: 50 racing creates with one Idempotency-Key over both webs make one link', async () => {
    const tenant = await deployment.seed();
    const offer = tenant.offers.find((o) => o.status === 'active');
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        deployment.web(i).post<{ id: string }>('/v1/payment-links', {
          auth: tenant.keys.test,
          headers: { 'Idempotency-Key': 'race-across-webs' },
          body: { offer_code: offer?.code, external_reference: 'race' },
        }),
      ),
    );
    expect(answers.map((a) => a.status).filter((s) => s !== 200 && s !== 201)).to.deep.equal([]);
    expect(answers.filter((a) => a.status === 201)).to.have.length(1);
    expect(new Set(answers.map((a) => a.body.id)).size).to.equal(1);
    const links = await deployment.db
      .select()
      .from(schema.paymentLinks)
      .where(
        and(
          eq(schema.paymentLinks.companyId, tenant.company.id),
          eq(schema.paymentLinks.idempotencyKey, 'race-across-webs'),
        ),
      );
    expect(links).to.have.length(1);
  });

  it('delivers each event once per integration whichever worker takes it', async () => {
    const tenant = await deployment.seed();
    const [a, b] = [await deployment.receiver(), await deployment.receiver()];
    await deployment.integrate(tenant, a.url, ['order.paid']);
    await deployment.integrate(tenant, b.url, ['order.paid']);
    const links = await Promise.all(Array.from({ length: 20 }, (_, i) => deployment.testLink(tenant, i)));
    const simulated = await Promise.all(
      links.map((id, i) =>
        deployment.web(i).post(`/v1/payment-links/${id}/simulate`, {
          auth: tenant.keys.test,
          body: { outcome: 'paid' },
        }),
      ),
    );
    expect(simulated.map((s) => s.status)).to.deep.equal(links.map(() => 200));
    await Promise.all([a.waitFor(20), b.waitFor(20)]);
    const events = await deployment.db
      .select({ id: schema.events.id })
      .from(schema.events)
      .where(and(eq(schema.events.companyId, tenant.company.id), eq(schema.events.type, 'order.paid')));
    expect(events).to.have.length(20);
    // A duplicate is an absence to disprove: two sweeps of the deployment that started after the last
    // delivery, each of which would have relayed an event again had it been left unmarked.
    await deployment.sweeps('outbox');
    expect([a.requests.length, b.requests.length, duplicates(a), duplicates(b)]).to.deep.equal([
      20, 20, 0, 0,
    ]);
  });

  it('runs each sweep once per period for the deployment, not once per worker, and shows them as queues', async () => {
    const redis = new Redis(String(deployment.env.REDIS_URL));
    const producers = new Producers(redis, String(deployment.env.QUEUE_PREFIX));
    try {
      // One job scheduler per sweep in Redis, whatever the number of workers that upserted it.
      for (const key of ['linkExpiryTick', 'outboxSweep', 'renewalSweep', 'retention'] as const) {
        const schedulers = await producers.queue(key).getJobSchedulers();
        expect(
          schedulers.map((s) => s.key),
          QUEUE[key],
        ).to.deep.equal([SCHEDULERS[key]]);
      }
      // Ticks every 250 ms: a timer in each of the two workers would make twice as many runs as
      // periods go by. Load can only make the runs fewer, never more.
      const total = async (): Promise<number> =>
        (await deployment.sweepRuns('link-expiry')).reduce((a, b) => a + b, 0);
      const startedAt = Date.now();
      const from = await total();
      const runs = 24;
      await eventually(
        async () => ((await total()) >= from + runs ? true : undefined),
        30_000,
        'expiry ticks',
      );
      const elapsed = Date.now() - startedAt;
      // At most one run per worker was under way before the first read.
      expect(elapsed, `${runs} ticks in ${elapsed} ms`).to.be.at.least((runs - 1 - 2) * TICK_MS);
      // The queues the CLI and Bull Board list are QUEUE's: the schedulers' runs are jobs there.
      const ticks = await producers.queue('linkExpiryTick').getJobCounts('completed', 'delayed');
      expect(ticks.delayed, 'the next tick waits as a delayed job').to.equal(1);
      expect(ticks.completed, 'finished ticks kept for Bull Board').to.be.above(0);
    } finally {
      await producers.close();
      redis.disconnect();
    }
  });

  it('the breaker opens once, at its threshold, with failures spread over both workers', async () => {
    const tenant = await deployment.seed();
    const failing = await deployment.receiver(() => ({ status: 500, body: 'down' }));
    const integrationId = await deployment.integrate(tenant, failing.url, ['order.paid']);
    for (let i = 0; i < BREAKER_THRESHOLD + 3; i += 1) {
      const id = await deployment.testLink(tenant, i);
      const res = await deployment.web(i).post(`/v1/payment-links/${id}/simulate`, {
        auth: tenant.keys.test,
        body: { outcome: 'paid' },
      });
      expect(res.status).to.equal(200);
    }
    expect(failing.requests).to.have.length(BREAKER_THRESHOLD);
    const [row] = await deployment.db
      .select()
      .from(schema.integrations)
      .where(eq(schema.integrations.id, integrationId));
    expect(row).to.include({
      isActive: false,
      disabledReason: 'auto_disabled',
      failureCount: BREAKER_THRESHOLD,
    });
    const logs = await Promise.all(
      deployment.workerProcesses.map((_, i) =>
        readFile(path.join(deployment.logDir, `worker-${i + 1}.log`), 'utf8'),
      ),
    );
    const openings = logs.flatMap((log) =>
      log
        .split('\n')
        .filter(
          (line) =>
            line.includes('circuit breaker opened') && line.includes(`"integrationId":${integrationId}`),
        ),
    );
    expect(openings).to.have.length(1);
  });

  it('a link expires once, with one order.expired, while both workers take the sweeps', async () => {
    const tenant = await deployment.seed();
    const r = await deployment.receiver();
    await deployment.integrate(tenant, r.url, ['order.expired']);
    const links = await Promise.all(
      Array.from({ length: 5 }, () =>
        insertLink(deployment.db, tenant, { expiresAt: new Date(Date.now() + 500) }),
      ),
    );
    await r.waitFor(5, 15_000);
    const expired = await eventually(async () => {
      const rows = await deployment.db
        .select()
        .from(schema.events)
        .where(and(eq(schema.events.companyId, tenant.company.id), eq(schema.events.type, 'order.expired')));
      return rows.length >= 5 ? rows : undefined;
    });
    // Two outbox sweeps later (each expires overdue links too), still one event and one delivery per link.
    await deployment.sweeps('outbox');
    const again = await deployment.db
      .select()
      .from(schema.events)
      .where(and(eq(schema.events.companyId, tenant.company.id), eq(schema.events.type, 'order.expired')));
    expect(again).to.have.length(expired.length).and.length(5);
    expect([r.requests.length, duplicates(r)]).to.deep.equal([5, 0]);
    for (const link of links) {
      const [row] = await deployment.db
        .select()
        .from(schema.paymentLinks)
        .where(eq(schema.paymentLinks.id, link.id));
      expect(row?.status).to.equal('expired');
    }
  });

  it('a due subscription renews once, with one order.paid, while both workers take the sweeps', async () => {
    const tenant = await deployment.seed();
    const r = await deployment.receiver();
    await deployment.integrate(tenant, r.url, ['order.paid']);
    const subscription = await subscribed(tenant, 'renew@example.com');
    await r.waitFor(1, 15_000);
    // Its first period ended five minutes ago: the next renewal sweep, on either worker, finds it due.
    await deployment.db.execute(
      sql`UPDATE subscriptions SET created_at = created_at - interval '1 month 5 minutes',
              current_period_end = created_at - interval '1 month 5 minutes' + interval '1 month'
           WHERE id = ${subscription.id}`,
    );
    const renewals = await eventually(async () => {
      const rows = await deployment.db
        .select()
        .from(schema.orders)
        .where(eq(schema.orders.subscriptionId, subscription.id));
      return rows.length >= 2 ? rows : undefined;
    }, 15_000);
    await r.waitFor(2, 15_000);
    // Two renewal sweeps later, still one renewal order and one renewal delivery.
    await deployment.sweeps('renewal');
    const again = await deployment.db
      .select()
      .from(schema.orders)
      .where(eq(schema.orders.subscriptionId, subscription.id));
    expect(again).to.have.length(renewals.length).and.length(2);
    expect([r.requests.length, duplicates(r)]).to.deep.equal([2, 0]);
  });

  it('a due renewal retry runs once, with one paid order and one order.paid and subscription.renewed per integration, while its job and the sweeps race', async () => {
    const tenant = await deployment.seed();
    const kinds = ['order.paid', 'order.failed', 'subscription.past_due', 'subscription.renewed'];
    const [a, b] = [await deployment.receiver(), await deployment.receiver()];
    await deployment.integrate(tenant, a.url, kinds);
    await deployment.integrate(tenant, b.url, kinds);
    const subscription = await subscribed(tenant, 'retry@example.com');
    // The renewal is declined (renew now under the dev gateway): past_due, its retry a second away.
    const failed = await deployment
      .web(0)
      .post<{ status: string }>(`/panel/v1/subscriptions/${subscription.id}/renew`, {
        auth: tenant.panel_token,
        body: { outcome: 'failed' },
      });
    expect(failed.body.status, failed.text).to.equal('past_due');
    // And overdue by five minutes: the renewal sweeps (every 200 ms) reach for it as its job fires.
    await deployment.db.execute(
      sql`UPDATE subscriptions SET next_retry_at = now() - interval '5 minutes' WHERE id = ${subscription.id}`,
    );
    const orders = () =>
      deployment.db
        .select({ status: schema.orders.status })
        .from(schema.orders)
        .where(eq(schema.orders.subscriptionId, subscription.id));
    await eventually(async () => ((await orders()).length >= 3 ? true : undefined), 15_000);
    await Promise.all([a.waitFor(5, 15_000), b.waitFor(5, 15_000)]);
    // The retry's own job has run (it finds the charge made and does nothing) and two renewal sweeps
    // have looked too: still one retry charged, once per receiver.
    expect(await deployment.jobEnd('renewals', jobIds.renewalRetries(subscription.id, 2, 1))).to.equal(
      'completed',
    );
    await deployment.sweeps('renewal');
    expect((await orders()).map((o) => o.status).sort()).to.deep.equal(['failed', 'paid', 'paid']);
    const [after] = await deployment.db
      .select()
      .from(schema.subscriptions)
      .where(eq(schema.subscriptions.id, subscription.id));
    expect(after).to.include({ status: 'active', currentPeriod: 2, failedCharges: 0 });
    const typesOf = (r: Receiver) =>
      r.requests.map((q) => (JSON.parse(q.body) as { type: string }).type).sort();
    for (const r of [a, b]) {
      expect(typesOf(r)).to.deep.equal(
        ['order.paid', 'order.failed', 'subscription.past_due', 'order.paid', 'subscription.renewed'].sort(),
      );
      expect(duplicates(r)).to.equal(0);
    }
  });
});

describe('key lookups cached per web process, revoked everywhere at once', function () {
  this.timeout(60_000);
  let deployment: Deployment;

  before(async () => {
    deployment = await startDeployment({ webs: 2, workers: 0 });
  });
  after(async () => {
    await deployment?.stop();
  });

  it('a key revoked through one web fails on its very next request to the other', async () => {
    const [a, b] = [deployment.web(0), deployment.web(1)];
    const tenant = await deployment.seed();
    for (let round = 0; round < 5; round += 1) {
      const created = await a.post<{ id: number; key: string }>('/panel/v1/api-keys', {
        auth: tenant.panel_token,
        body: { name: `cached ${round}`, kind: 'payments', test: true },
      });
      expect(created.status, created.text).to.equal(201);
      // Warm the key in B's cache (and A's).
      for (const web of [b, a, b]) {
        expect((await web.get('/v1/offers', { auth: created.body.key })).status).to.equal(200);
      }
      expect(
        (await a.delete(`/panel/v1/api-keys/${created.body.id}`, { auth: tenant.panel_token })).status,
      ).to.equal(204);
      const next = await b.get<{ error: { type: string; message: string } }>('/v1/offers', {
        auth: created.body.key,
      });
      expect(next.status).to.equal(401);
      expect(next.body.error.message).to.match(/revoked/);
    }
  });
});
