import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { seed } from '../helpers/app.js';
import { activeOffer, createLink } from '../checkout/helpers.js';
import { createIntegration, eventually, Receiver, startEngine, type Engine } from '../events/helpers.js';
import { P, panelRoles } from '../orders/helpers.js';
import { noteSecret } from '../helpers/secrets.js';
import { MetaCapiStandIn } from '../helpers/ad-platforms/meta-capi.js';
import { Ga4MpStandIn } from '../helpers/ad-platforms/ga4-mp.js';
import { visitAndPay } from './helpers.js';

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
const META_TOKEN = 'EAAGm0PX4ZCpsBAstandinToken0123456789abcdef';
const GA_SECRET = 'ga4-standin-secret-0123456789';
const MEASUREMENT_ID = 'G-STANDIN42';
const SECRET = `whsec_${Buffer.from('ad-pixel-webhook-secret-012345!').toString('base64')}`;

interface Wire {
  id: number;
  config: Record<string, unknown>;
  is_active: boolean;
  disabled_reason: string;
}

/**
 * `ad_pixel` integrations (docs/ad-conversions.md): a sale reaches Meta's Conversions API and GA4's
 * Measurement Protocol stand-ins through the delivery engine, with the visit's click ids; webhooks
 * never see them; test mode never reaches an ad platform.
 */
const PIXEL_ID = '123456789012345';

describe('ad_pixel integrations: conversions to Meta and GA4 through the delivery engine', function () {
  this.timeout(90_000);
  let engine: Engine;
  const meta = new MetaCapiStandIn(META_TOKEN);
  const ga4 = new Ga4MpStandIn(MEASUREMENT_ID, GA_SECRET);
  const receiver = new Receiver();

  before(async () => {
    noteSecret(META_TOKEN);
    noteSecret(GA_SECRET);
    await Promise.all([meta.start(), ga4.start(), receiver.start()]);
    engine = await startEngine({
      META_GRAPH_URL: meta.url,
      META_GRAPH_VERSION: 'v25.0',
      GA4_MP_URL: ga4.url,
      BREAKER_THRESHOLD: '4',
    });
  });
  after(async () => {
    await engine.close();
    await Promise.all([meta.close(), ga4.close(), receiver.close()]);
  });

  const post = (token: string, body: Record<string, unknown>) =>
    engine.app.http.post<Wire>(`${P}/integrations/`, { auth: token, body });
  const metaBody = (config: Record<string, unknown> = {}) => ({
    type: 'ad_pixel',
    events: ['order.paid', 'order.created', 'lead.created'],
    send_to_all_products: true,
    config: {
      provider: 'meta',
      pixel_id: PIXEL_ID,
      access_token: META_TOKEN,
      test_event_code: 'TEST4242',
      ...config,
    },
  });
  const gaBody = () => ({
    type: 'ad_pixel',
    events: ['order.paid', 'order.refunded'],
    send_to_all_products: true,
    config: { provider: 'google_analytics', measurement_id: MEASUREMENT_ID, api_secret: GA_SECRET },
  });

  it('keeps the credential sealed and masked for every role; members may edit, a read-only key may only read', async () => {
    const tenant = await seed();
    const roles = await panelRoles(engine.app, tenant);
    const created = await post(roles.owner, metaBody({ browser_pixel: true }));
    expect(created.status, created.text).to.equal(201);
    expect(created.body.config).to.deep.equal({
      provider: 'meta',
      pixel_id: PIXEL_ID,
      test_event_code: 'TEST4242',
      browser_pixel: true,
      access_token: '••••',
    });
    const byMember = await post(roles.member, gaBody());
    expect(byMember.status, byMember.text).to.equal(201);
    expect(byMember.body.config).to.deep.equal({
      provider: 'google_analytics',
      measurement_id: MEASUREMENT_ID,
      api_secret: '••••',
    });
    expect((await post(roles.readOnly, gaBody())).status).to.equal(403);
    for (const token of [roles.owner, roles.member, roles.readOnly]) {
      const read = await engine.app.http.get<Wire>(`${P}/integrations/${created.body.id}`, { auth: token });
      expect(read.status).to.equal(200);
      expect(read.body.config.access_token).to.equal('••••');
      expect(read.text).not.to.include(META_TOKEN);
    }
    // The mask keeps the stored token; another provider must bring its own secret.
    const kept = await engine.app.http.patch<Wire>(`${P}/integrations/${created.body.id}`, {
      auth: roles.member,
      body: { config: { provider: 'meta', pixel_id: '999999999', access_token: '••••' } },
    });
    expect(kept.status, kept.text).to.equal(200);
    expect(kept.body.config).to.include({
      pixel_id: '999999999',
      access_token: '••••',
      browser_pixel: false,
    });
    const switched = await engine.app.http.patch(`${P}/integrations/${created.body.id}`, {
      auth: roles.owner,
      body: { config: { provider: 'google_analytics', measurement_id: MEASUREMENT_ID, api_secret: '••••' } },
    });
    expect(switched.status).to.equal(400);
    expect(switched.text).to.include('config.api_secret');
    for (const [config, field] of [
      [{ provider: 'meta', pixel_id: 'abc', access_token: 'x' }, 'config.pixel_id'],
      [{ provider: 'meta', pixel_id: '123456' }, 'config.access_token'],
      [{ provider: 'google_analytics', measurement_id: 'UA-1', api_secret: 's' }, 'config.measurement_id'],
      [
        { provider: 'google_analytics', measurement_id: MEASUREMENT_ID, api_secret: 's', pixel_id: '123456' },
        'config.pixel_id',
      ],
      [{ provider: 'tiktok' }, 'config.provider'],
    ] as const) {
      const res = await post(roles.owner, { type: 'ad_pixel', events: ['order.paid'], config });
      expect(res.status, JSON.stringify(config)).to.equal(400);
      expect(res.text, JSON.stringify(config)).to.include(field);
    }
    // Stored: the token never in the clear anywhere in the database.
    const { rows: tables } = await engine.app.ctx.pool.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
    );
    for (const { name } of tables) {
      const { rows } = await engine.app.ctx.pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM "${name}" t WHERE t::text LIKE $1 OR t::text LIKE $2`,
        [`%${META_TOKEN}%`, `%${GA_SECRET}%`],
      );
      expect(Number(rows[0]?.n), name).to.equal(0);
    }
  });

  it('sends a paid sale to Meta (hashes, fbc, event_id = our event id) and GA4 (purchase, then refund); the webhook gets the campaign only', async () => {
    const tenant = await seed();
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      secret: SECRET,
      events: ['order.paid'],
      sendToAllProducts: true,
    });
    expect((await post(tenant.panel_token, metaBody())).status).to.equal(201);
    expect((await post(tenant.panel_token, gaBody())).status).to.equal(201);
    const link = await createLink(engine.app, tenant.keys.live, {
      offer_code: activeOffer(tenant).code,
      tracking: { utm_campaign: 'launch' },
    });
    const before = Date.now();
    const { order } = await visitAndPay(engine.app, tenant, link, {
      query: 'utm_source=facebook&utm_medium=paid_social&fbclid=IwAR3clickid',
      cookie: '_fbp=fb.1.1700000000000.555000111; _ga=GA1.1.424242.1700000000',
      userAgent: 'Mozilla/5.0 (ad-pixel test)',
      name: 'José da Silva',
      email: ' Jose.Silva@Example.com',
      phone: '+55 (11) 98765-4321',
    });
    expect(order.status).to.equal('paid');

    const purchase = await eventually(
      async () =>
        meta.events().find((e) => e.event_name === 'Purchase' && e.custom_data?.order_id === order.code),
      15_000,
      'Purchase at Meta',
    );
    const webhook = await eventually(
      async () =>
        receiver.requests
          .map(
            (r) =>
              new Webhook(SECRET).verify(r.body, r.headers as Record<string, string>) as Record<
                string,
                never
              >,
          )
          .find(
            (e: { type?: string; data?: { order?: { code?: string } } }) =>
              e.type === 'order.paid' && e.data?.order?.code === order.code,
          ) as { id: string; data: { purchase: { tracking: Record<string, unknown> } } } | undefined,
      15_000,
      'order.paid webhook',
    );
    expect(purchase.event_id).to.equal(webhook.id);
    expect(purchase.action_source).to.equal('website');
    expect(purchase.event_source_url).to.match(/utm_source=facebook/);
    expect(purchase.testEventCode).to.equal(undefined);
    expect(purchase.user_data).to.include({
      em: sha('jose.silva@example.com'),
      ph: sha('5511987654321'),
      fn: sha('josé'),
      ln: sha('silva'),
      country: sha('br'),
      external_id: sha('jose.silva@example.com'),
      fbp: 'fb.1.1700000000000.555000111',
      client_user_agent: 'Mozilla/5.0 (ad-pixel test)',
    });
    expect(purchase.user_data.client_ip_address).to.match(/127\.0\.0\.1|::1/);
    const fbc = /^fb\.1\.(\d{13})\.IwAR3clickid$/.exec(purchase.user_data.fbc ?? '');
    expect(fbc, purchase.user_data.fbc).not.to.equal(null);
    expect(Number(fbc?.[1])).to.be.within(before, Date.now());
    expect(purchase.custom_data).to.deep.equal({
      value: 297,
      currency: 'BRL',
      content_ids: [activeOffer(tenant).code],
      content_type: 'product',
      order_id: order.code,
    });
    // The checkout and the lead went as well, each with its own event id.
    const names = () =>
      meta.events().filter((e) => e.custom_data?.order_id === order.code || e.event_name === 'Lead');
    await eventually(
      async () => (names().some((e) => e.event_name === 'InitiateCheckout') ? true : undefined),
      10_000,
      'InitiateCheckout',
    );
    await eventually(
      async () =>
        meta.events().some((e) => e.event_name === 'Lead' && e.user_data.em === sha('jose.silva@example.com'))
          ? true
          : undefined,
      10_000,
      'Lead',
    );

    // The webhook: the same campaign, and no click id, cookie, IP or user agent.
    expect(webhook.data.purchase.tracking).to.include({
      utm_source: 'facebook',
      utm_medium: 'paid_social',
      utm_campaign: 'launch',
    });
    const raw = receiver.requests.map((r) => r.body).join('\n');
    for (const secret of ['IwAR3clickid', '555000111', '424242', 'ad-pixel test', '127.0.0.1'])
      expect(raw).not.to.include(secret);

    // GA4: the purchase, then (after the panel's refund) the refund, one client id for both.
    const gaPurchase = await eventually(
      async () =>
        ga4.hits.find(
          (h) => h.events[0]?.name === 'purchase' && h.events[0]?.params.transaction_id === order.code,
        ),
      10_000,
      'GA4 purchase',
    );
    expect(gaPurchase.clientId).to.equal('424242.1700000000');
    expect(gaPurchase.events[0]?.params).to.deep.include({ value: 297, currency: 'BRL' });
    const refunded = await engine.app.http.post(`${P}/orders/${order.code}/refund`, {
      auth: tenant.panel_token,
    });
    expect(refunded.status, refunded.text).to.equal(200);
    const gaRefund = await eventually(
      async () =>
        ga4.hits.find(
          (h) => h.events[0]?.name === 'refund' && h.events[0]?.params.transaction_id === order.code,
        ),
      10_000,
      'GA4 refund',
    );
    expect(gaRefund.clientId).to.equal(gaPurchase.clientId);
    expect(ga4.hits.indexOf(gaRefund)).to.be.above(ga4.hits.indexOf(gaPurchase));
    expect(ga4.refused).to.deep.equal([]);
    expect(meta.refusedFor(PIXEL_ID)).to.deep.equal([]);

    // The delivery log shows the request with the token masked.
    const { rows } = await engine.app.ctx.pool.query<{ request_body: string | null }>(
      `SELECT a.request_body FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
         JOIN integrations i ON i.id = d.integration_id
        WHERE i.company_id = $1 AND i.type = 'ad_pixel'`,
      [tenant.company.id],
    );
    expect(rows.length).to.be.above(0);
    const logged = rows.map((r) => r.request_body ?? '').join('\n');
    expect(logged).to.include('"access_token":"••••"').and.not.include(META_TOKEN).and.not.include(GA_SECRET);
  });

  it('retries while Meta is down, then the breaker disables the integration', async () => {
    const tenant = await seed();
    const created = await post(tenant.panel_token, metaBody());
    meta.down = 503;
    try {
      const link = await createLink(engine.app, tenant.keys.live, { offer_code: activeOffer(tenant).code });
      await visitAndPay(engine.app, tenant, link, { userAgent: 'Mozilla/5.0 (outage)' });
      const disabled = await eventually(
        async () => {
          const res = await engine.app.http.get<Wire>(`${P}/integrations/${created.body.id}`, {
            auth: tenant.panel_token,
          });
          return res.body.is_active ? undefined : res.body;
        },
        30_000,
        'the breaker',
      );
      expect(disabled.disabled_reason).to.equal('auto_disabled');
      const { rows } = await engine.app.ctx.pool.query<{ n: string; max: number }>(
        `SELECT count(*) AS n, max(a.attempt) AS max FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
          WHERE d.integration_id = $1 AND a.status_code = 503`,
        [created.body.id],
      );
      expect(Number(rows[0]?.n)).to.be.at.least(4);
      expect(Number(rows[0]?.max)).to.be.at.least(2);
    } finally {
      meta.down = null;
    }
  });

  it('sends nothing for a test-mode sale; a test send reaches Meta only as a test conversion', async () => {
    const tenant = await seed();
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      secret: SECRET,
      events: ['order.paid'],
      sendToAllProducts: true,
    });
    const metaId = (await post(tenant.panel_token, metaBody())).body.id;
    const gaId = (await post(tenant.panel_token, gaBody())).body.id;
    const link = await createLink(engine.app, tenant.keys.test, { offer_code: activeOffer(tenant).code });
    const seen = meta.requests.length + ga4.hits.length;
    const simulated = await engine.app.http.post(`/v1/payment-links/${link.id}/simulate`, {
      auth: tenant.keys.test,
      body: { outcome: 'paid' },
    });
    expect(simulated.status, simulated.text).to.equal(200);
    // The webhook got the test sale: by then the ad platforms would have been handed theirs.
    await eventually(
      async () => (receiver.requests.some((r) => r.body.includes(link.id)) ? true : undefined),
      10_000,
      'the test webhook',
    );
    const { rows } = await engine.app.ctx.pool.query<{ n: string }>(
      'SELECT count(*) AS n FROM deliveries WHERE integration_id = ANY($1)',
      [[metaId, gaId]],
    );
    expect(Number(rows[0]?.n)).to.equal(0);
    expect(meta.requests.length + ga4.hits.length).to.equal(seen);

    // The panel's test send: Meta gets it with the test code; GA4 gets nothing.
    const test = await engine.app.http.post<{ success: boolean; status: number | null }>(
      `${P}/integrations/${metaId}/test`,
      {
        auth: tenant.panel_token,
        body: { event: 'order.paid' },
      },
    );
    expect(test.body).to.include({ success: true, status: 200 });
    const conversion = meta.events().at(-1);
    expect(conversion).to.include({ event_name: 'Purchase', testEventCode: 'TEST4242' });
    const gaTest = await engine.app.http.post<{ success: boolean }>(`${P}/integrations/${gaId}/test`, {
      auth: tenant.panel_token,
      body: { event: 'order.paid' },
    });
    expect(gaTest.body.success).to.equal(false);
    expect(ga4.hits.length + meta.requests.length).to.equal(seen + 1);
  });
});
