import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import type { SeedResult } from '../../src/cli/seed.js';
import { PrivateRedis } from '../../src/infra/private-redis.js';
import { sql } from 'drizzle-orm';
import { eventually, Receiver } from '../events/helpers.js';
import { startDeployment, type Deployment } from '../helpers/processes.js';

const LINKS = 10_000;
const WINDOW_MS = 60_000;
/** From the first create to the first deadline: the creates stay ahead of the deadlines they make. */
const LEAD_MS = 45_000;
/** The least time between a create and its deadline (the request's own trip included). */
const MIN_LEAD_MS = 5000;
/** The promise: a link is expired within a second of its expires_at. */
const ON_TIME_MS = 1000;

interface Lateness {
  links: number;
  expired: number;
  /** expired_at - expires_at, in ms, over the links given. */
  earliest: number;
  latest: number;
  p99: number;
}

/**
 * Web and worker as the Procfile runs them (compiled, separate processes) on a Redis of their own,
 * so that the test can flush it: links expire from their expires_at in PostgreSQL, on time however
 * many share a minute, and whatever happens to the worker or to Redis meanwhile.
 */
describe('link expiry: on time at scale, across a worker restart and a Redis flush', function () {
  this.timeout(300_000);
  let dir: string;
  let redis: PrivateRedis;
  let deployment: Deployment;
  let receiver: Receiver;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'plinks-expiry-'));
    redis = new PrivateRedis({ dir: path.join(dir, 'redis') });
    await redis.start();
    deployment = await startDeployment({
      webs: 1,
      workers: 1,
      redisUrl: redis.url,
      env: {
        RATE_LIMIT_PER_MINUTE: '100000000',
        RATE_LIMIT_WRITES_PER_MINUTE: '100000000',
        OUTBOX_SWEEP_MS: '300',
      },
    });
    receiver = await new Receiver().start();
  });
  after(async () => {
    await receiver?.close();
    await deployment?.stop();
    await redis?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const web = (): string => deployment.webs[0] ?? '';

  async function createLink(tenant: SeedResult, expiresAt: Date): Promise<string> {
    const offer = tenant.offers.find((o) => o.status === 'active');
    const res = await fetch(`${web()}/v1/payment-links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.keys.test}`, 'content-type': 'application/json' },
      body: JSON.stringify({ offer_code: offer?.code, expires_at: expiresAt.toISOString() }),
    });
    const text = await res.text();
    expect(res.status, text).to.equal(201);
    return (JSON.parse(text) as { id: string }).id;
  }

  /** How late each of the company's links (or those named) was expired, from PostgreSQL's rows. */
  async function lateness(companyId: number, ids?: string[]): Promise<Lateness> {
    const only = ids ? sql`AND id IN ${ids}` : sql``;
    const result = await deployment.db.execute<{
      links: string;
      expired: string;
      earliest: number | null;
      latest: number | null;
      p99: number | null;
    }>(sql`
      SELECT count(*) AS links,
             count(*) FILTER (WHERE status = 'expired') AS expired,
             min(extract(epoch FROM expired_at - expires_at) * 1000)::float8 AS earliest,
             max(extract(epoch FROM expired_at - expires_at) * 1000)::float8 AS latest,
             percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM expired_at - expires_at) * 1000)::float8 AS p99
      FROM payment_links WHERE company_id = ${companyId} ${only}`);
    const row = result.rows[0];
    return {
      links: Number(row?.links ?? 0),
      expired: Number(row?.expired ?? 0),
      earliest: row?.earliest ?? Number.NaN,
      latest: row?.latest ?? Number.NaN,
      p99: row?.p99 ?? Number.NaN,
    };
  }

  /** order.expired events per link of the company: each link's count. */
  async function expiredEvents(companyId: number): Promise<Map<string, number>> {
    const result = await deployment.db.execute<{ link: string; events: string }>(sql`
      SELECT payload->'data'->'purchase'->'payment_link'->>'code' AS link, count(*) AS events
      FROM events WHERE company_id = ${companyId} AND type = 'order.expired' GROUP BY 1`);
    return new Map(result.rows.map((r) => [r.link, Number(r.events)]));
  }

  async function activeLeft(companyId: number): Promise<number> {
    const result = await deployment.db.execute<{ n: string }>(
      sql`SELECT count(*) AS n FROM payment_links WHERE company_id = ${companyId} AND status = 'active'`,
    );
    return Number(result.rows[0]?.n ?? 0);
  }

  /** Waits for the company's every link to expire, then checks `ids` went within a second of their deadline. */
  async function expiredOnTime(companyId: number, ids: string[], what: string): Promise<void> {
    await eventually(
      async () => ((await activeLeft(companyId)) === 0 ? true : undefined),
      30_000,
      `${what} to expire`,
    );
    const late = await lateness(companyId, ids);
    expect(late.earliest, what).to.be.at.least(0);
    expect(late.latest, `${what}: latest ${late.latest} ms after expires_at`).to.be.at.most(ON_TIME_MS);
  }

  it(`expires ${LINKS.toLocaleString('en')} links due within the same minute, each within a second of its expires_at, once`, async () => {
    const tenant = await deployment.seed();
    const windowStart = Date.now() + LEAD_MS;
    // Deadlines spread over one minute; created earliest deadline first, 32 requests at a time.
    const deadlines = Array.from(
      { length: LINKS },
      () => windowStart + Math.floor(Math.random() * WINDOW_MS),
    ).sort((a, b) => a - b);
    let next = 0;
    let latest = 0;
    const createdAt = Date.now();
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < deadlines.length) {
          // A machine too loaded to create them all within the lead pushes the rest a little later:
          // each link is still judged against its own expires_at.
          const at = Math.max(deadlines[next++] ?? 0, Date.now() + MIN_LEAD_MS);
          latest = Math.max(latest, at);
          await createLink(tenant, new Date(at));
        }
      }),
    );
    const createSeconds = (Date.now() - createdAt) / 1000;
    // Every deadline has passed by then; a second more for the last tick.
    await eventually(
      async () => ((await activeLeft(tenant.company.id)) === 0 ? true : undefined),
      latest + 30_000 - Date.now(),
      'every link to expire',
    );
    const late = await lateness(tenant.company.id);
    const summary = `${LINKS} links created in ${createSeconds.toFixed(1)} s; expired_at - expires_at: min ${late.earliest.toFixed(0)} ms, p99 ${late.p99.toFixed(0)} ms, max ${late.latest.toFixed(0)} ms`;
    console.log(`      ${summary}`);
    expect(late.links, summary).to.equal(LINKS);
    expect(late.expired, summary).to.equal(LINKS);
    // Never before its deadline, never more than a second after it.
    expect(late.earliest, summary).to.be.at.least(0);
    expect(late.latest, summary).to.be.at.most(ON_TIME_MS);
    const events = await expiredEvents(tenant.company.id);
    expect(events.size).to.equal(LINKS);
    expect(
      [...events.values()].every((n) => n === 1),
      'one order.expired per link',
    ).to.equal(true);
  });

  it('expires links on time across a worker restart (SIGKILL), two Redis flushes and a Redis restart, and delivers every order.expired', async () => {
    const tenant = await deployment.seed();
    const hook = await fetch(`${web()}/panel/v1/integrations/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.panel_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'webhook',
        config: { url: receiver.url },
        events: ['order.expired'],
        send_to_all_products: true,
      }),
    });
    expect(hook.status, await hook.text()).to.equal(201);
    const now = Date.now();
    // Due while the worker is down, and due after it is back.
    const duringOutage = await Promise.all(
      Array.from({ length: 20 }, (_, i) => createLink(tenant, new Date(now + 2000 + i * 50))),
    );
    const afterRestart = await Promise.all(
      Array.from({ length: 20 }, (_, i) => createLink(tenant, new Date(now + 12_000 + i * 100))),
    );
    const [worker] = deployment.workerProcesses;
    if (!worker) throw new Error('the deployment has no worker');
    const client = new Redis(redis.url);
    try {
      await worker.kill('SIGKILL');
      await client.flushall();
      // Every link of the first group is overdue by PostgreSQL's clock, the one expiry reads, and
      // nothing expired it meanwhile (no worker runs).
      await eventually(
        async () => {
          const due = await deployment.db.execute<{ overdue: boolean }>(
            sql`SELECT bool_and(expires_at < now()) AS overdue FROM payment_links WHERE id IN ${duringOutage}`,
          );
          return due.rows[0]?.overdue === true ? true : undefined;
        },
        10_000,
        'the first group to be overdue',
      );
      expect(await activeLeft(tenant.company.id)).to.equal(40);
      await worker.start();
      const back = Date.now();
      // Redis lost again, with the worker running, before the second group is due.
      await client.flushall();
      expect(Date.now(), 'the second group was created due after the restart').to.be.below(now + 12_000);

      const outage = await eventually(
        async () => {
          const l = await lateness(tenant.company.id, duringOutage);
          return l.expired === duringOutage.length ? l : undefined;
        },
        10_000,
        'the links due during the outage to expire',
      );
      // expired_at - expires_at for those is the outage; what matters is they went once the worker was back.
      const outageEnd = await deployment.db.execute<{ last: Date }>(
        sql`SELECT max(expired_at) AS last FROM payment_links WHERE id IN ${duringOutage}`,
      );
      const lastExpired = new Date(outageEnd.rows[0]?.last ?? 0).getTime();
      expect(lastExpired - back, 'expired within a second of the worker being back').to.be.at.most(
        ON_TIME_MS,
      );
      expect(outage.earliest).to.be.at.least(0);

      await expiredOnTime(tenant.company.id, afterRestart, 'the links due after the restart');

      // Redis restarted without persistence: it comes back empty, the worker reconnects, upserts the
      // schedulers again and catches up; links due after it still expire on time.
      const restartedAt = Date.now();
      const afterRedisRestart = await Promise.all(
        Array.from({ length: 20 }, (_, i) => createLink(tenant, new Date(restartedAt + 6000 + i * 100))),
      );
      await redis.stop();
      await redis.start();
      expect(Date.now(), 'the third group was created due after the Redis restart').to.be.below(
        restartedAt + 6000,
      );
      await expiredOnTime(tenant.company.id, afterRedisRestart, 'the links due after the Redis restart');

      // One event per link, and every one reaches the receiver (nothing lost with Redis's data).
      const events = await expiredEvents(tenant.company.id);
      expect(events.size).to.equal(60);
      expect(
        [...events.values()].every((n) => n === 1),
        'one order.expired per link',
      ).to.equal(true);
      await receiver.waitFor(60, 60_000);
      const delivered = new Set(
        receiver.requests.map(
          (r) =>
            (JSON.parse(r.body) as { data: { purchase: { payment_link: { code: string } } } }).data.purchase
              .payment_link.code,
        ),
      );
      expect([...delivered].sort()).to.deep.equal(
        [...duringOutage, ...afterRestart, ...afterRedisRestart].sort(),
      );
    } finally {
      client.disconnect();
    }
  });
});
