import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import type { SeedResult } from '../../src/cli/seed.js';
import { seed } from '../helpers/app.js';
import { activeOffer, createLink, pathOf } from '../checkout/helpers.js';
import { createIntegration, engineAndReceiver, eventually } from '../events/helpers.js';
import { send, signIn } from '../dashboard/helpers.js';
import { NO_CAMPAIGN, hiddenFields, visitAndPay, type Campaign } from './helpers.js';

const SECRET = `whsec_${Buffer.from('tracking-capture-secret-012345!').toString('base64')}`;

interface Delivered {
  type: string;
  data: {
    order: { code: string } | null;
    purchase: { tracking: Campaign & { external_reference: string | null } };
  };
}

/**
 * Tracking kept from the first click (docs/api.md, "Tracking"): the link's `tracking`, the checkout
 * address's campaign parameters and click ids, the ad cookies, IP and user agent stored on the order;
 * events carry the campaign part only.
 */
describe('Tracking: from the link and the checkout address to the order, its events and the dashboard', function () {
  this.timeout(60_000);
  const { engine, receiver } = engineAndReceiver();
  let tenant: SeedResult;

  before(async () => {
    tenant = await seed();
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      secret: SECRET,
      events: ['order.created', 'order.paid', 'lead.created'],
      sendToAllProducts: true,
    });
  });

  const delivered = (): Delivered[] =>
    receiver.requests.map(
      (r) => new Webhook(SECRET).verify(r.body, r.headers as Record<string, string>) as Delivered,
    );

  it('POST /v1/payment-links keeps `tracking` (trimmed, control characters dropped) and refuses bad shapes with a 400', async () => {
    const app = engine.app;
    const link = await createLink(app, tenant.keys.live, {
      offer_code: activeOffer(tenant).code,
      tracking: { utm_source: '  news\u0007letter ', utm_campaign: 'c'.repeat(255), utm_term: '', src: null },
    });
    expect(link.tracking).to.deep.equal({
      ...NO_CAMPAIGN,
      utm_source: 'newsletter',
      utm_campaign: 'c'.repeat(255),
    });
    for (const tracking of [
      { utm_source: 'x'.repeat(256) },
      { fbclid: 'click ids come from the page, not the API' },
      { utm_source: 7 },
      'utm_source=a',
    ]) {
      const res = await app.http.post<{ error: { details?: Record<string, unknown> } }>('/v1/payment-links', {
        auth: tenant.keys.live,
        body: { offer_code: activeOffer(tenant).code, tracking },
      });
      expect(res.status, res.text).to.equal(400);
      expect(res.text).to.include('tracking');
    }
  });

  it('keeps the address’s campaign and click ids, the cookies, IP and user agent on the order; webhooks get the campaign only', async () => {
    const app = engine.app;
    const link = await createLink(app, tenant.keys.live, {
      offer_code: activeOffer(tenant).code,
      external_reference: 'crm-77',
      tracking: { utm_source: 'whatsapp', utm_campaign: 'black-friday', sck: 'msg-1' },
    });
    const { page, order } = await visitAndPay(app, tenant, link, {
      query:
        'utm_source=facebook&utm_medium=cpc&utm_content=%E2%9C%A8%20video%0D%0A&fbclid=IwAR2xYz&gclid=Cj0K&ttclid=E.C.P&utm_term=' +
        'a'.repeat(400),
      cookie:
        '_fbp=fb.1.1700000000000.123456789; _fbc=fb.1.1700000000001.IwAR2xYz; _ga=GA1.1.111.222; other=1',
      userAgent: 'Mozilla/5.0 (tracking test)',
    });
    // The page carries the address's values in hidden fields, cleaned and cut to 255 characters.
    const hidden = hiddenFields(page);
    expect(hidden).to.include({
      utm_source: 'facebook',
      utm_medium: 'cpc',
      utm_content: '✨ video',
      fbclid: 'IwAR2xYz',
    });
    expect(hidden.utm_term).to.equal('a'.repeat(255));
    expect(hidden.page_url).to.match(/^http.*\?plink=.*&utm_source=facebook/);

    // The panel shows the campaign: the address's, else the link's.
    const campaign: Campaign = {
      utm_source: 'facebook',
      utm_medium: 'cpc',
      utm_campaign: 'black-friday',
      utm_content: '✨ video',
      utm_term: 'a'.repeat(255),
      src: null,
      sck: 'msg-1',
    };
    expect(order.tracking).to.deep.equal(campaign);
    expect(order.status).to.equal('paid');

    // The order row keeps all of it for the ad platforms.
    const { rows } = await app.ctx.pool.query<{ tracking: Record<string, unknown> }>(
      'SELECT tracking FROM orders WHERE code = $1',
      [order.code],
    );
    const stored = rows[0]?.tracking ?? {};
    expect(stored).to.include({
      fbclid: 'IwAR2xYz',
      gclid: 'Cj0K',
      ttclid: 'E.C.P',
      fbp: 'fb.1.1700000000000.123456789',
      fbc: 'fb.1.1700000000001.IwAR2xYz',
      ga: 'GA1.1.111.222',
      user_agent: 'Mozilla/5.0 (tracking test)',
    });
    expect(stored.ip)
      .to.be.a('string')
      .and.match(/127\.0\.0\.1|::1/);
    expect(stored.page_url).to.equal(hidden.page_url);
    expect(stored.seen_at).to.be.a('number');

    // Every event of the order carries the campaign, and never a click id, cookie, IP or user agent.
    const paid = await eventually(
      async () => delivered().find((e) => e.type === 'order.paid' && e.data.order?.code === order.code),
      10_000,
      'order.paid',
    );
    expect(paid.data.purchase.tracking).to.deep.equal({ external_reference: 'crm-77', ...campaign });
    const lead = await eventually(
      async () =>
        delivered().find((e) => e.type === 'lead.created' && e.data.purchase.tracking.sck === 'msg-1'),
      10_000,
      'lead.created',
    );
    expect(lead.data.purchase.tracking.utm_source).to.equal('facebook');
    for (const request of receiver.requests)
      for (const secret of ['IwAR2xYz', 'Cj0K', 'E.C.P', '123456789', 'GA1.1', 'tracking test', '127.0.0.1'])
        expect(request.body).not.to.include(secret);
  });

  it('never fails on hostile values: repeated, nested and endless parameters, bad cookies', async () => {
    const app = engine.app;
    const link = await createLink(app, tenant.keys.live, { offer_code: activeOffer(tenant).code });
    const address = pathOf(app, link.url);
    for (const query of [
      'utm_source=a&utm_source=b',
      'utm_source[x]=1',
      `fbclid=${'%00%01'.repeat(300)}`,
      `utm_campaign=${'%F0%9F%98%80'.repeat(300)}`,
      'utm_medium=%E0%A4%A',
    ]) {
      const res = await app.http.get<string>(`${address}&${query}`);
      expect(res.status, query).to.be.below(500);
    }
    const { order } = await visitAndPay(app, tenant, link, {
      query: 'utm_source=a&utm_source=b&utm_medium[x]=1',
      cookie: '_fbc=%E0%A4%A; _fbp=; ; =x; _ga="GA1.2.3.4"',
    });
    expect(order.tracking).to.deep.equal(NO_CAMPAIGN);
    const { rows } = await app.ctx.pool.query<{ tracking: Record<string, unknown> }>(
      'SELECT tracking FROM orders WHERE code = $1',
      [order.code],
    );
    expect(rows[0]?.tracking).to.include({ fbc: '%E0%A4%A', ga: 'GA1.2.3.4' });
    expect(rows[0]?.tracking).not.to.have.property('fbp');
  });

  it('shows the campaign on the dashboard’s order page and the revenue by utm_source on its home', async () => {
    const app = engine.app;
    const other = await seed();
    const link = await createLink(app, other.keys.live, {
      offer_code: activeOffer(other).code,
      tracking: { utm_source: 'tiktok' },
    });
    const { order } = await visitAndPay(app, other, link, { query: 'utm_campaign=%3Cb%3Esummer%3C%2Fb%3E' });
    const owner = await signIn(app, other.panel_token);
    const detail = await send(app, 'GET', `/orders/${order.code}?lang=en`, { session: owner });
    expect(detail.status).to.equal(200);
    expect(detail.text).to.include('<dt>utm_source</dt>').and.include('<dd>tiktok</dd>');
    expect(detail.text).to.include('&lt;b&gt;summer&lt;/b&gt;').and.not.include('<b>summer');
    const home = await send(app, 'GET', '/?lang=en', { session: owner });
    expect(home.text).to.include('Net revenue by utm_source');
    expect(home.text).to.match(/<th scope="row">tiktok<\/th>\s*<td>1<\/td>/);
  });
});
