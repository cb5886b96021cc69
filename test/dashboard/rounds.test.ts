import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
import { activeOffer } from '../checkout/helpers.js';
import { createIntegration } from '../events/helpers.js';
import { seed, sharedApp, startTestApp, type TestApp } from '../helpers/app.js';
import { noteSecret } from '../helpers/secrets.js';
import { checkout } from '../orders/helpers.js';
import { recordStatements, type Timed } from './helpers.js';

/**
 * Rounds of statements: a statement sent after another one's answer came back is in a later round
 * (it could have waited for it); statements sent together are one round.
 */
function rounds(statements: Timed[]): number {
  const sorted = [...statements].sort((a, b) => a.start - b.start);
  const depth = new Map<Timed, number>();
  for (const s of sorted) {
    const before = sorted.filter((p) => depth.has(p) && p.end <= s.start).map((p) => depth.get(p) ?? 0);
    depth.set(s, 1 + Math.max(0, ...before));
  }
  return Math.max(0, ...depth.values());
}

/**
 * Each dashboard page renders in one round of queries: after the session's own lookup (round one),
 * every page sends the statements it shows together, in one round.
 */
describe('dashboard pages read in one round of queries', function () {
  this.timeout(60_000);
  let app: TestApp;
  let tenant: SeedResult;
  let integrationId: number;
  let deliveryId: number;
  let orderCode: string;
  let subscriptionId: number;
  let keyId: number;
  let linkId: string;
  let newerLinkId: string;
  let cookie: string;

  before(async () => {
    const shared = await sharedApp();
    tenant = await seed();
    integrationId = await createIntegration(shared, tenant, {
      url: 'https://example.com/hook',
      events: ['order.paid'],
      sendToAllProducts: true,
    });
    // A failed delivery with two attempts, written as the engine writes them: a page with history.
    const eventId = `evt_rounds_${tenant.company.id}`;
    await shared.ctx.pool.query(
      `INSERT INTO events (id, company_id, type, livemode, payload) VALUES ($1, $2, 'order.paid', true, '{}')`,
      [eventId, tenant.company.id],
    );
    const delivery = await shared.ctx.pool.query<{ id: string }>(
      `INSERT INTO deliveries (event_id, integration_id, status, attempts, last_status_code)
       VALUES ($1, $2, 'failed', 2, 404) RETURNING id`,
      [eventId, integrationId],
    );
    deliveryId = Number(delivery.rows[0]?.id);
    for (const attempt of [1, 2]) {
      await shared.ctx.pool.query(
        `INSERT INTO delivery_attempts (delivery_id, event_id, integration_id, attempt, requested_at, status_code,
                                        duration_ms, response_body, request_headers, request_body)
         VALUES ($1, $2, $3, $4, now(), 404, 12, 'moved', '{"webhook-id":"msg_1"}', '{}')`,
        [deliveryId, eventId, integrationId, attempt],
      );
    }
    orderCode = (await checkout(shared, tenant, activeOffer(tenant).code, null)).order.code;
    const plan = tenant.plans.find((p) => p.status === 'active');
    if (!plan) throw new Error('seed has no active plan');
    await checkout(shared, tenant, plan.code, null);
    const subscription = await shared.ctx.pool.query<{ id: string }>(
      'SELECT id FROM subscriptions WHERE company_id = $1 ORDER BY id DESC LIMIT 1',
      [tenant.company.id],
    );
    subscriptionId = Number(subscription.rows[0]?.id);
    const key = await shared.ctx.pool.query<{ id: string }>(
      'SELECT id FROM api_keys WHERE company_id = $1 AND revoked_at IS NULL ORDER BY id LIMIT 1',
      [tenant.company.id],
    );
    keyId = Number(key.rows[0]?.id);
    const link = await shared.http.post<{ id: string }>('/v1/payment-links', {
      auth: tenant.keys.test,
      body: { offer_code: activeOffer(tenant).code },
    });
    linkId = link.body.id;
    // A newer link, whose next page holds the first (an empty page checks its cursor after reading).
    const newer = await shared.http.post<{ id: string }>('/v1/payment-links', {
      auth: tenant.keys.test,
      body: { offer_code: activeOffer(tenant).code },
    });
    newerLinkId = newer.body.id;

    // A web process of its own: no other test's traffic on the pool being watched.
    app = await startTestApp();
    const signIn = await fetch(`${app.url}/dashboard/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ credential: tenant.panel_token }).toString(),
      redirect: 'manual',
    });
    expect(signIn.status).to.equal(303);
    cookie = signIn.headers.getSetCookie()[0]?.split(';')[0] ?? '';
    noteSecret(cookie.split('=')[1] ?? '');
  });
  after(async () => {
    await app?.close();
  });

  const brasiliaNow = (): string => new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 16);

  it('answers each page after the session lookup and one round of statements', async () => {
    const pages = [
      '/',
      '/?mode=test',
      '/integrations',
      '/integrations/new',
      `/integrations/${integrationId}`,
      `/integrations/${integrationId}?status=failed&event_type=order.paid&from=2020-01-01T00:00&to=${brasiliaNow()}`,
      `/integrations/${integrationId}?starting_after=${deliveryId}`,
      `/integrations/${integrationId}/deliveries/${deliveryId}`,
      `/integrations/${integrationId}/delete`,
      `/integrations/${integrationId}/rotate-secret`,
      '/orders',
      '/orders?status=paid&mode=live',
      `/orders?starting_after=${orderCode}`,
      `/orders/${orderCode}/refund`,
      `/orders/${orderCode}`,
      '/subscriptions',
      '/subscriptions?status=active&mode=live',
      `/subscriptions?starting_after=${subscriptionId}`,
      `/subscriptions/${subscriptionId}/cancel?at_period_end=true`,
      '/keys',
      `/keys/${keyId}/revoke`,
      '/links',
      '/links?mode=test&status=active&external_reference=x',
      `/links?mode=test&starting_after=${newerLinkId}`,
      '/links/new?mode=test',
      `/links/${linkId}?mode=test`,
      `/links/${linkId}/cancel?mode=test`,
      '/catalog',
      '/catalog/offers/new',
      `/catalog/offers/${activeOffer(tenant).code}`,
      `/catalog/products/${tenant.products[0]?.id ?? 0}`,
      '/orders.csv?mode=live',
      '/emails',
      '/emails/preview/instructions',
    ];
    const found: Record<string, { status: number; rounds: number; statements: number }> = {};
    for (const path of pages) {
      // Warm: the first request of a process prepares statements and opens connections.
      await fetch(`${app.url}/dashboard${path}`, { headers: { cookie } });
      const watch = recordStatements(app.ctx.pool);
      let status: number;
      try {
        const res = await fetch(`${app.url}/dashboard${path}`, { headers: { cookie } });
        await res.text();
        status = res.status;
      } finally {
        watch.stop();
      }
      found[path] = { status, rounds: rounds(watch.taken), statements: watch.taken.length };
    }
    const expected = Object.fromEntries(
      Object.entries(found).map(([path, f]) => [path, { ...f, status: 200, rounds: 2 }]),
    );
    expect(found).to.deep.equal(expected);
  });

  it('counts rounds as statements that waited for another one’s answer', () => {
    const s = (start: number, end: number): Timed => ({ text: '', start, end });
    expect(rounds([])).to.equal(0);
    expect(rounds([s(0, 5), s(1, 4), s(2, 6)])).to.equal(1);
    expect(rounds([s(0, 1), s(2, 5), s(3, 4)])).to.equal(2);
    expect(rounds([s(0, 1), s(2, 3), s(4, 5)])).to.equal(3);
  });
});
