import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { freePort } from '../../src/infra/free-port.js';
import { PrivateRedis } from '../../src/infra/private-redis.js';
import { createLink as insertLink, eventually, Receiver } from '../events/helpers.js';
import { sharedApp, startTestApp } from '../helpers/app.js';
import { startDeployment, type Deployment } from '../helpers/processes.js';
import { sampleValue } from '../helpers/prometheus.js';
import { noteSecret } from '../helpers/secrets.js';

const TOKEN = 'metrics-token-for-the-test-0123';

describe('metrics: Prometheus text on the web process and on the worker’s METRICS_PORT', function () {
  this.timeout(90_000);
  let deployment: Deployment;
  let workerMetrics: string;
  let ok: Receiver;
  let failing: Receiver;

  before(async () => {
    noteSecret(TOKEN);
    const port = await freePort();
    workerMetrics = `http://127.0.0.1:${port}/metrics`;
    deployment = await startDeployment({
      webs: 1,
      workers: 1,
      // Two consecutive failures open the breaker: the failing receiver's order.paid and order.expired.
      env: { METRICS_TOKEN: TOKEN, WEBHOOK_RETRY_SCHEDULE: '3600', BREAKER_THRESHOLD: '2' },
      workerEnv: () => ({ METRICS_PORT: String(port) }),
    });
    ok = await new Receiver().start();
    failing = await new Receiver().start();
    failing.reply = () => ({ status: 503, body: 'down' });
  });
  after(async () => {
    await Promise.all([ok?.close(), failing?.close()]);
    await deployment?.stop();
  });

  const scrape = async (url: string, token = TOKEN): Promise<Response> =>
    fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const parsed = async (url: string): Promise<PrometheusFamily[]> => {
    const res = await scrape(url);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain/);
    return parsePrometheusTextFormat(await res.text());
  };

  it('is behind the bearer token: 401 without it or with a wrong one, counted under the `web` app', async () => {
    const web = `${deployment.webs[0]}/metrics`;
    const refusedScrapes = async (): Promise<number> =>
      sampleValue(await parsed(web), 'http_requests_total', { app: 'web', route: '/metrics', status: '401' });
    const before = await refusedScrapes();
    for (const url of [web, workerMetrics]) {
      expect((await scrape(url, '')).status).to.equal(401);
      expect((await scrape(url, 'wrong-token-wrong-token')).status).to.equal(401);
    }
    // Top-level routes are the `web` app's; the worker's two refusals are its own.
    expect((await refusedScrapes()) - before).to.equal(2);
  });

  it('counts requests by route template, attempts by outcome, jobs by queue, and reads queue depth, outbox lag, pool and Redis state', async () => {
    const base = deployment.webs[0] ?? '';
    const tenant = await deployment.seed();
    const panel = { authorization: `Bearer ${tenant.panel_token}`, 'content-type': 'application/json' };
    const integrationIds: number[] = [];
    for (const [receiver, events] of [
      [ok, ['order.paid']],
      [failing, ['order.paid', 'order.expired']],
    ] as const) {
      const res = await fetch(`${base}/panel/v1/integrations/`, {
        method: 'POST',
        headers: panel,
        body: JSON.stringify({
          type: 'webhook',
          config: { url: receiver.url },
          events,
          send_to_all_products: true,
        }),
      });
      expect(res.status).to.equal(201);
      integrationIds.push(((await res.json()) as { id: number }).id);
    }
    for (const id of integrationIds) {
      expect((await fetch(`${base}/panel/v1/integrations/${id}`, { headers: panel })).status).to.equal(200);
    }
    const offer = tenant.offers.find((o) => o.status === 'active');
    const payments = { authorization: `Bearer ${tenant.keys.test}`, 'content-type': 'application/json' };
    const created = await fetch(`${base}/v1/payment-links`, {
      method: 'POST',
      headers: payments,
      body: JSON.stringify({ offer_code: offer?.code }),
    });
    expect(created.status).to.equal(201);
    const link = (await created.json()) as { id: string };
    for (let i = 0; i < 3; i += 1) {
      expect((await fetch(`${base}/v1/payment-links/${link.id}`, { headers: payments })).status).to.equal(
        200,
      );
    }
    // Paths no route knows share one label, whatever they contain.
    for (const path of ['/no-such-page-1', `/v1/nothing/${link.id}`]) {
      expect((await fetch(`${base}${path}`, { headers: payments })).status).to.equal(404);
    }
    const simulated = await fetch(`${base}/v1/payment-links/${link.id}/simulate`, {
      method: 'POST',
      headers: payments,
      body: JSON.stringify({ outcome: 'paid' }),
    });
    expect(simulated.status).to.equal(200);
    await Promise.all([ok.waitFor(1), failing.waitFor(1)]);
    // A real event through the outbox: the link expires, its order.expired fails at the receiver,
    // which leaves a failed job in Bull Board and opens the breaker (second consecutive failure).
    await insertLink(deployment.db, tenant, { expiresAt: new Date(Date.now() + 300) });
    await failing.waitFor(2, 15_000);

    const web = await parsed(`${base}/metrics`);
    expect(
      sampleValue(web, 'http_requests_total', {
        app: 'payments',
        route: '/v1/payment-links/:id',
        method: 'GET',
        status: '200',
      }),
    ).to.equal(3);
    expect(
      sampleValue(web, 'http_requests_total', {
        app: 'payments',
        route: '/v1/payment-links',
        method: 'POST',
        status: '201',
      }),
    ).to.equal(1);
    expect(
      sampleValue(web, 'http_requests_total', {
        app: 'panel',
        route: '/panel/v1/integrations/:id',
        method: 'GET',
        status: '200',
      }),
    ).to.equal(2);
    expect(
      sampleValue(web, 'http_requests_total', { app: 'payments', route: 'unmatched', status: '404' }),
    ).to.equal(2);
    expect(web.find((f) => f.name === 'http_request_duration_seconds')?.type).to.equal('HISTOGRAM');
    const routes = new Set(
      web.find((f) => f.name === 'http_requests_total')?.metrics.map((m) => m.labels?.route),
    );
    expect([...routes].some((r) => r?.includes(link.id) || r?.includes('no-such-page'))).to.equal(false);
    expect(sampleValue(web, 'redis_connection_up')).to.equal(1);
    expect(sampleValue(web, 'pg_pool_connections', { state: 'total' })).to.be.greaterThan(0);
    expect(
      web
        .find((f) => f.name === 'pg_pool_connections')
        ?.metrics.map((m) => m.labels?.state)
        .sort(),
    ).to.deep.equal(['idle', 'total', 'waiting']);
    expect(sampleValue(web, 'outbox_lag_seconds')).to.be.within(0, 60);
    expect(sampleValue(web, 'process_resident_memory_bytes')).to.be.greaterThan(0);
    // Depth is read from Redis at scrape time, so the web process reports it too.
    expect(web.find((f) => f.name === 'queue_jobs')?.metrics.map((m) => m.labels?.state)).to.include.members([
      'waiting',
      'delayed',
      'active',
      'failed',
    ]);

    // Attempts, jobs and the breaker are the worker's: its events settle just after the receiver answers.
    const worker = await eventually(
      async () => {
        const families = await parsed(workerMetrics);
        // The failing lane goes to sleep as a delayed job just after its failed attempts are recorded.
        return sampleValue(families, 'queue_jobs_total', { queue: 'deliveries', outcome: 'failed' }) >= 2 &&
          sampleValue(families, 'queue_jobs', { queue: 'delivery-lanes', state: 'delayed' }) >= 1
          ? families
          : undefined;
      },
      15_000,
      'the failed attempts’ jobs in the worker’s metrics',
    );
    expect(
      sampleValue(worker, 'webhook_attempts_total', { outcome: 'succeeded', status_class: '2xx' }),
    ).to.equal(1);
    expect(
      sampleValue(worker, 'webhook_attempts_total', { outcome: 'failed', status_class: '5xx' }),
    ).to.equal(2);
    expect(worker.find((f) => f.name === 'webhook_attempt_duration_seconds')?.type).to.equal('HISTOGRAM');
    // One first attempt per delivery: order.paid to both receivers, order.expired to the failing one.
    expect(sampleValue(worker, 'webhook_delivery_lag_seconds')).to.equal(3);
    expect(sampleValue(worker, 'queue_jobs_total', { queue: 'simulate', outcome: 'completed' })).to.equal(1);
    expect(sampleValue(worker, 'queue_jobs_total', { queue: 'outbox', outcome: 'failed' })).to.equal(0);
    expect(sampleValue(worker, 'queue_jobs_total', { queue: 'deliveries', outcome: 'failed' })).to.equal(2);
    expect(sampleValue(worker, 'webhook_breaker_openings_total')).to.equal(1);
    // Each failed attempt's retry waits an hour: the failing integration's lane sleeps until then as
    // one delayed job, and each failed attempt stays in the deliveries queue's failed set.
    expect(sampleValue(worker, 'queue_jobs', { queue: 'delivery-lanes', state: 'delayed' })).to.equal(1);
    expect(sampleValue(worker, 'queue_jobs', { queue: 'deliveries', state: 'failed' })).to.equal(2);
    expect(sampleValue(worker, 'redis_connection_up')).to.equal(1);
    const text = await (await scrape(workerMetrics)).text();
    for (const secret of [tenant.keys.test, tenant.panel_token, ok.url, failing.url, link.id]) {
      expect(text).not.to.include(secret);
    }
  });
});

describe('metrics: absent without METRICS_TOKEN', function () {
  it('answers 404 at /metrics', async () => {
    const app = await sharedApp();
    const res = await fetch(`${app.url}/metrics`);
    expect(res.status).to.equal(404);
  });
});

describe('metrics: a hung Redis does not hang /metrics', function () {
  this.timeout(30_000);

  // The scrape's reads give up after 2 s.
  const PAUSE_MS = 6000;

  it('answers within its read timeout while Redis answers nothing, counting the failed reads', async () => {
    noteSecret(TOKEN);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'plinks-metrics-'));
    const redis = new PrivateRedis({ dir });
    await redis.start();
    const app = await startTestApp({ REDIS_URL: redis.url, METRICS_TOKEN: TOKEN });
    const control = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    const scrape = async (): Promise<PrometheusFamily[]> => {
      // Shorter than the pause below: an answer at all means the scrape did not wait for Redis.
      const res = await fetch(`${app.url}/metrics`, {
        headers: { authorization: `Bearer ${TOKEN}` },
        signal: AbortSignal.timeout(PAUSE_MS - 1000),
      });
      expect(res.status).to.equal(200);
      return parsePrometheusTextFormat(await res.text());
    };
    try {
      const before = await scrape();
      expect(sampleValue(before, 'queue_jobs', { queue: 'outbox', state: 'waiting' })).to.equal(0);
      const errorsBefore = before.some((f) => f.name === 'metrics_scrape_errors_total')
        ? sampleValue(before, 'metrics_scrape_errors_total', { source: 'queues' })
        : 0;
      // Every client's commands wait: a Redis that is up but answers nothing (until the pause ends,
      // which also lets the app close; a paused Redis holds UNPAUSE too).
      await control.call('CLIENT', 'PAUSE', String(PAUSE_MS), 'ALL');
      const during = await scrape();
      expect(sampleValue(during, 'metrics_scrape_errors_total', { source: 'queues' })).to.be.greaterThan(
        errorsBefore,
      );
      // The gauges keep their last value rather than vanish.
      expect(sampleValue(during, 'queue_jobs', { queue: 'outbox', state: 'waiting' })).to.equal(0);
      expect(sampleValue(during, 'pg_pool_connections', { state: 'total' })).to.be.greaterThan(0);
    } finally {
      control.disconnect();
      await app.close();
      await redis.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
