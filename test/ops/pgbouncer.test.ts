import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { and, eq } from 'drizzle-orm';
import { createDatabase, schema } from '../../src/shared/db/index.js';
import { findKeyByHash } from '../../src/keys/repository.js';
import { eventually } from '../events/helpers.js';
import { testEnvironment } from '../helpers/environment.js';
import { findPgBouncer, LocalPgBouncer } from '../helpers/pgbouncer.js';
import { startDeployment, type Deployment } from '../helpers/processes.js';
import { skipBecause } from '../helpers/skip.js';

/** Server connections PgBouncer may open per database: far fewer than the processes' pools (10 each). */
const POOL_SIZE = 2;

/**
 * The service behind Debian's PgBouncer in transaction pooling mode, as most large PostgreSQL
 * deployments hand out connections: consecutive transactions of one client land on any server
 * connection, so a named prepared statement or any session state would break. Two web processes
 * and two workers (40 client connections) share two server connections.
 */
describe('PgBouncer in transaction pooling mode', function () {
  this.timeout(120_000);
  let bouncer: LocalPgBouncer;
  let deployment: Deployment;

  before(async function () {
    const binary = await findPgBouncer();
    if (!binary) {
      // CI installs it (.ci/run), so there this suite always runs.
      skipBecause(this, 'no pgbouncer binary on this machine (apt-get install pgbouncer)');
    }
    bouncer = new LocalPgBouncer(binary, { serverUrl: testEnvironment().databaseUrl, poolSize: POOL_SIZE });
    await bouncer.start();
    deployment = await startDeployment({
      webs: 2,
      workers: 2,
      databaseVia: (url) => bouncer.urlFor(url),
      env: {
        DATABASE_PREPARED_STATEMENTS: 'false',
        OUTBOX_SWEEP_MS: '300',
        WEBHOOK_RETRY_SCHEDULE: '1',
        WEBHOOK_RETRY_JITTER: '0',
        // Every first attempt of the relay test fails on purpose: keep the breaker out of it.
        BREAKER_THRESHOLD: '1000',
      },
    });
  });
  after(async () => {
    await deployment?.stop();
    await bouncer?.stop();
  });

  it('writes: 40 link creates over both webs (10 racing on one Idempotency-Key) all answer, one link per key', async () => {
    const tenant = await deployment.seed();
    const offer = tenant.offers.find((o) => o.status === 'active');
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        deployment.web(i).post<{ id: string }>('/v1/payment-links', {
          auth: tenant.keys.test,
          headers: i < 10 ? { 'Idempotency-Key': 'bouncer-race' } : {},
          body: { offer_code: offer?.code, external_reference: i < 10 ? 'bouncer-race' : `bouncer-${i}` },
        }),
      ),
    );
    expect(answers.map((a) => a.status).filter((s) => s !== 200 && s !== 201)).to.deep.equal([]);
    expect(new Set(answers.slice(0, 10).map((a) => a.body.id)).size).to.equal(1);
    const reads = await Promise.all(
      answers.map((a, i) =>
        deployment.web(i + 1).get(`/v1/payment-links/${a.body.id}`, { auth: tenant.keys.test }),
      ),
    );
    expect(reads.map((r) => r.status)).to.deep.equal(answers.map(() => 200));
    const links = await deployment.db
      .select({ id: schema.paymentLinks.id })
      .from(schema.paymentLinks)
      .where(eq(schema.paymentLinks.companyId, tenant.company.id));
    expect(links).to.have.length(31);
  });

  it('the outbox relay: 20 simulated payments and a checkout payment reach the receiver once each, a retry too', async () => {
    const tenant = await deployment.seed();
    const receiver = await deployment.receiver();
    const failures = new Set<string>();
    // The first request of each event fails once: its retry also goes through the outbox engine.
    receiver.reply = (req) => {
      const id = String(req.headers['webhook-id']);
      if (failures.has(id)) return { status: 200 };
      failures.add(id);
      return { status: 500, body: 'once' };
    };
    await deployment.integrate(tenant, receiver.url, ['order.paid']);
    const offer = tenant.offers.find((o) => o.status === 'active');
    const links = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const res = await deployment.web(i).post<{ id: string }>('/v1/payment-links', {
          auth: tenant.keys.test,
          body: { offer_code: offer?.code, external_reference: `relay-${i}` },
        });
        return res.body.id;
      }),
    );
    const simulated = await Promise.all(
      links.map((id, i) =>
        deployment.web(i).post(`/v1/payment-links/${id}/simulate`, {
          auth: tenant.keys.test,
          body: { outcome: 'paid' },
        }),
      ),
    );
    expect(simulated.map((s) => s.status)).to.deep.equal(links.map(() => 200));
    const live = await deployment.web(0).post<{ id: string }>('/v1/payment-links', {
      auth: tenant.keys.live,
      body: { offer_code: offer?.code },
    });
    expect(live.status, live.text).to.equal(201);
    const paid = await deployment.web(1).post<string>(`/pay/${offer?.code ?? ''}/pay`, {
      rawBody: new URLSearchParams({
        plink: live.body.id,
        name: 'Bouncer Buyer',
        email: 'bouncer@example.com',
        payment_method: 'credit_card',
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(paid.status, paid.text).to.equal(200);
    // 21 events, each failing once then delivered: 42 requests.
    await receiver.waitFor(42, 30_000);
    const events = await deployment.db
      .select({ id: schema.events.id })
      .from(schema.events)
      .where(and(eq(schema.events.companyId, tenant.company.id), eq(schema.events.type, 'order.paid')));
    expect(events).to.have.length(21);
    for (const event of events) {
      const delivery = await eventually(async () => {
        const [row] = await deployment.db
          .select()
          .from(schema.deliveries)
          .where(eq(schema.deliveries.eventId, event.id));
        return row?.status === 'succeeded' ? row : undefined;
      });
      expect(delivery.attempts).to.equal(2);
    }
  });

  it('the panel: integrations, their delivery log, keys, products and orders, each role', async () => {
    const tenant = await deployment.seed();
    const receiver = await deployment.receiver();
    const integrationId = await deployment.integrate(tenant, receiver.url, ['order.paid']);
    const test = await deployment.web(1).post(`/panel/v1/integrations/${integrationId}/test`, {
      auth: tenant.panel_token,
      body: { event: 'order.paid' },
    });
    expect(test.status, test.text).to.be.oneOf([200, 201, 202]);
    const log = await deployment
      .web(0)
      .get<{ data: unknown[] }>(`/panel/v1/integrations/${integrationId}/deliveries`, {
        auth: tenant.panel_token,
      });
    expect(log.status, log.text).to.equal(200);
    for (const path of [
      '/panel/v1/integrations/',
      '/panel/v1/products',
      '/panel/v1/orders',
      '/panel/v1/api-keys',
    ]) {
      for (const [i, auth] of [tenant.panel_token, tenant.keys.read_only].entries()) {
        const res = await deployment.web(i).get(path, { auth });
        expect(res.status, `${path}: ${res.text}`).to.equal(200);
      }
    }
    const key = await deployment.web(0).post<{ id: number; key: string }>('/panel/v1/api-keys', {
      auth: tenant.panel_token,
      body: { name: 'bouncer', kind: 'payments', test: true },
    });
    expect(key.status, key.text).to.equal(201);
    expect((await deployment.web(1).get('/v1/offers', { auth: key.body.key })).status).to.equal(200);
    const refused = await deployment.web(1).post('/panel/v1/api-keys', {
      auth: tenant.keys.read_only,
      body: { name: 'not allowed', kind: 'payments', test: true },
    });
    expect(refused.status).to.be.oneOf([401, 403]);
  });

  it('all of it went through PgBouncer on at most its pool of server connections, without an error', async () => {
    const database = new URL(String(deployment.env.DATABASE_URL)).pathname.slice(1);
    const transactions = async (): Promise<number> =>
      Number((await bouncer.show('STATS')).find((row) => row.database === database)?.total_xact_count ?? 0);
    // One read after another (concurrent reads may share a statement): each is at least one
    // transaction, and PgBouncer must have counted every one of them.
    const tenant = await deployment.seed();
    const offer = tenant.offers.find((o) => o.status === 'active');
    const link = await deployment.web(0).post<{ id: string }>('/v1/payment-links', {
      auth: tenant.keys.test,
      body: { offer_code: offer?.code },
    });
    expect(link.status, link.text).to.equal(201);
    const before = await transactions();
    const READS = 30;
    for (let i = 0; i < READS; i++) {
      const read = await deployment
        .web(i)
        .get(`/v1/payment-links/${link.body.id}`, { auth: tenant.keys.test });
      expect(read.status, read.text).to.equal(200);
    }
    expect((await transactions()) - before).to.be.at.least(READS);
    const servers = (await bouncer.show('SERVERS')).filter((row) => row.database === database);
    expect(servers.length).to.be.at.most(POOL_SIZE);
    const logs = await Promise.all(
      [...deployment.webProcesses, ...deployment.workerProcesses].map((p) => readFile(p.logFile, 'utf8')),
    );
    const errors = logs
      .join('\n')
      .split('\n')
      .filter((line) => /prepared statement|"level":50|"level":60/.test(line));
    expect(errors).to.deep.equal([]);
  });

  it('named prepared statements would break here: the same lookups with them on fail, with them off pass', async () => {
    const direct = testEnvironment().databaseUrl;
    const lookups = async (preparedStatements: boolean): Promise<number> => {
      const database = createDatabase(bouncer.urlFor(direct), 6, { preparedStatements });
      try {
        const results = await Promise.allSettled(
          Array.from({ length: 300 }, (_, i) => findKeyByHash(database.db, `no-such-key-${i}`)),
        );
        return results.filter((r) => r.status === 'rejected').length;
      } finally {
        await database.close();
      }
    };
    expect(await lookups(false)).to.equal(0);
    expect(await lookups(true)).to.be.greaterThan(0);
  });
});
