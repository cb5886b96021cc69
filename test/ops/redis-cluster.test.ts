import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { and, eq } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { LocalRedisCluster } from '../../bench/harness/redis-cluster.js';
import { QUEUE, QUEUE_KEYS, queuePrefixFor } from '../../queues/index.js';
import { schema } from '../../src/shared/db/index.js';
import { createLink as insertLink, eventually } from '../events/helpers.js';
import { startDeployment, type Deployment } from '../helpers/processes.js';

const run = promisify(execFile);
const READS_PER_MINUTE = 40;
const ADMIN = { user: 'cluster-admin', password: 'cluster-admin-password' };
/** The default prefix: on a cluster of its own, this is exactly what production uses. */
const PREFIX = '{plinks}';

interface Simulated {
  status: string;
  simulation: { webhooks: Array<{ integration_id: number; success: boolean; status: number }> };
}

/**
 * The service on a real Redis Cluster (three masters on loopback, formed for this suite and removed
 * after it): two web processes and a worker, configured with REDIS_CLUSTER_NODES alone, as a
 * deployment on ElastiCache or Memorystore would be. Every Redis use is exercised through the API:
 * queues and workers, the simulate wait, the rate-limit script, key-change announcements, Bull Board
 * and the CLI.
 */
describe('Redis Cluster: every Redis use on a real 3-master cluster', function () {
  this.timeout(120_000);
  const cluster = new LocalRedisCluster({ masters: 3 });
  let deployment: Deployment;

  before(async () => {
    await cluster.start();
    deployment = await startDeployment({
      webs: 2,
      workers: 1,
      env: {
        REDIS_URL: '',
        REDIS_CLUSTER_NODES: cluster.seeds,
        QUEUE_PREFIX: PREFIX,
        RATE_LIMIT_PER_MINUTE: String(READS_PER_MINUTE),
        RATE_LIMIT_WRITES_PER_MINUTE: '1000',
        OUTBOX_SWEEP_MS: '300',
        WEBHOOK_RETRY_SCHEDULE: '1,1',
        WEBHOOK_RETRY_JITTER: '0',
        ADMIN_USER: ADMIN.user,
        ADMIN_PASSWORD: ADMIN.password,
      },
    });
  });
  after(async () => {
    await deployment?.stop();
    await cluster.stop();
  });

  it('links: created through one web, read through the other; /readyz says Redis is ok', async () => {
    const tenant = await deployment.seed();
    const id = await deployment.testLink(tenant, 0);
    const read = await deployment.web(1).get<{ id: string; status: string }>(`/v1/payment-links/${id}`, {
      auth: tenant.keys.test,
    });
    expect(read.status, read.text).to.equal(200);
    expect(read.body).to.include({ id, status: 'active' });
    for (const url of deployment.webs) {
      const ready = (await (await fetch(`${url}/readyz`)).json()) as { checks: { redis: string } };
      expect(ready.checks.redis).to.equal('ok');
    }
  });

  it('simulate answers with the inline result of each first attempt (the wait works on a cluster)', async () => {
    const tenant = await deployment.seed();
    const ok = await deployment.receiver();
    const failing = await deployment.receiver(() => ({ status: 503, body: 'down' }));
    const okId = await deployment.integrate(tenant, ok.url, ['order.paid']);
    const failingId = await deployment.integrate(tenant, failing.url, ['order.paid']);
    const link = await deployment.testLink(tenant, 1);
    const res = await deployment.web(1).post<Simulated>(`/v1/payment-links/${link}/simulate`, {
      auth: tenant.keys.test,
      body: { outcome: 'paid' },
    });
    expect(res.status, res.text).to.equal(200);
    const byIntegration = new Map(res.body.simulation.webhooks.map((w) => [w.integration_id, w]));
    expect(byIntegration.get(okId)).to.include({ success: true, status: 200 });
    expect(byIntegration.get(failingId)).to.include({ success: false, status: 503 });
  });

  it('delivers with retries: a receiver failing twice gets the third attempt, same webhook-id', async () => {
    const tenant = await deployment.seed();
    const flaky = await deployment.receiver((_req, i) =>
      i < 2 ? { status: 500, body: 'not yet' } : { status: 200 },
    );
    await deployment.integrate(tenant, flaky.url, ['order.paid']);
    const link = await deployment.testLink(tenant, 0);
    const res = await deployment.web(0).post(`/v1/payment-links/${link}/simulate`, {
      auth: tenant.keys.test,
      body: { outcome: 'paid' },
    });
    expect(res.status).to.equal(200);
    const requests = await flaky.waitFor(3, 20_000);
    expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).to.equal(1);
    const [event] = await deployment.db
      .select({ id: schema.events.id })
      .from(schema.events)
      .where(and(eq(schema.events.companyId, tenant.company.id), eq(schema.events.type, 'order.paid')));
    const delivery = await eventually(async () => {
      const [row] = await deployment.db
        .select()
        .from(schema.deliveries)
        .where(eq(schema.deliveries.eventId, event?.id ?? ''));
      return row?.status === 'succeeded' ? row : undefined;
    });
    expect(delivery.attempts).to.equal(3);
  });

  it('expiry: a link past its deadline expires once, with order.expired delivered', async () => {
    const tenant = await deployment.seed();
    const r = await deployment.receiver();
    await deployment.integrate(tenant, r.url, ['order.expired']);
    const link = await insertLink(deployment.db, tenant, { expiresAt: new Date(Date.now() + 500) });
    const [request] = await r.waitFor(1, 15_000);
    expect(JSON.parse(request?.body ?? '{}')).to.nested.include({ type: 'order.expired' });
    const [row] = await deployment.db
      .select()
      .from(schema.paymentLinks)
      .where(eq(schema.paymentLinks.id, link.id));
    expect(row?.status).to.equal('expired');
  });

  it('rate limit: one key over both webs meets one shared limit (each window of a key in its key’s slot)', async () => {
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

  it('a key revoked through one web fails on its very next request to the other', async () => {
    const [a, b] = [deployment.web(0), deployment.web(1)];
    const tenant = await deployment.seed();
    for (let round = 0; round < 3; round += 1) {
      const created = await a.post<{ id: number; key: string }>('/panel/v1/api-keys', {
        auth: tenant.panel_token,
        body: { name: `cluster ${round}`, kind: 'payments', test: true },
      });
      expect(created.status, created.text).to.equal(201);
      for (const w of [b, a, b])
        expect((await w.get('/v1/offers', { auth: created.body.key })).status).to.equal(200);
      expect(
        (await a.delete(`/panel/v1/api-keys/${created.body.id}`, { auth: tenant.panel_token })).status,
      ).to.equal(204);
      const next = await b.get<{ error: { message: string } }>('/v1/offers', { auth: created.body.key });
      expect(next.status).to.equal(401);
      expect(next.body.error.message).to.match(/revoked/);
    }
  });

  it('Bull Board lists every queue from the cluster', async () => {
    const res = await fetch(`${deployment.webs[0] ?? ''}/admin/queues/api/queues`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${ADMIN.user}:${ADMIN.password}`).toString('base64')}`,
      },
    });
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { queues: Array<{ name: string; counts: Record<string, number> }> };
    expect(body.queues.map((q) => q.name)).to.have.members(Object.values(QUEUE));
    expect(body.queues.find((q) => q.name === 'outbox')?.counts.completed).to.be.greaterThan(0);
  });

  it('the CLI reports every queue with the master that holds it, over more than one master', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'queues', 'status', '--json'],
      {
        env: {
          ...process.env,
          DATABASE_URL: String(deployment.env.DATABASE_URL),
          REDIS_URL: '',
          REDIS_CLUSTER_NODES: cluster.seeds,
          QUEUE_PREFIX: PREFIX,
          LOG_LEVEL: 'warn',
        },
        timeout: 60_000,
      },
    );
    const rows = JSON.parse(stdout) as Array<{ queue: string; node: string }>;
    expect(rows.map((r) => r.queue)).to.have.members(Object.values(QUEUE));
    for (const row of rows) {
      const port = await cluster.masterOf(
        queuePrefixFor(PREFIX, row.queue as (typeof QUEUE)[keyof typeof QUEUE]),
      );
      expect(row.node, row.queue).to.equal(`127.0.0.1:${port}`);
    }
    expect(new Set(rows.map((r) => r.node)).size).to.be.greaterThan(1);
  });

  it('the queues’ keys are spread over more than one master, each queue whole on one', async () => {
    const holders = new Map<string, Set<number>>();
    for (const port of await cluster.masters()) {
      const node = new Redis({ host: '127.0.0.1', port });
      node.on('error', () => undefined);
      try {
        for (const key of QUEUE_KEYS) {
          const prefix = queuePrefixFor(PREFIX, QUEUE[key]);
          const [, found] = await node.scan('0', 'MATCH', `${prefix}:*`, 'COUNT', 10_000);
          if (found.length > 0) holders.set(key, (holders.get(key) ?? new Set()).add(port));
        }
      } finally {
        node.disconnect();
      }
    }
    // Each queue that holds keys holds them on one master (one slot), and not all on the same one.
    for (const [queue, ports] of holders) expect([...ports], queue).to.have.length(1);
    const masters = new Set([...holders.values()].flatMap((ports) => [...ports]));
    expect(masters.size).to.be.greaterThan(1);
  });

  it('no command was refused for keys in two slots (no CROSSSLOT on any node or in any log)', async () => {
    const errors = await cluster.errorStats();
    expect(errors.CROSSSLOT ?? 0).to.equal(0);
    const logs = await Promise.all(
      [...deployment.webProcesses, ...deployment.workerProcesses].map((p) => readFile(p.logFile, 'utf8')),
    );
    expect(logs.join('\n')).not.to.include('CROSSSLOT');
  });
});
