import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
import { seed, sharedApp, type TestApp } from '../helpers/app.js';
import { activeOffer, createLink, pathOf, payPath } from '../checkout/helpers.js';
import { P } from '../orders/helpers.js';
import { noteSecret } from '../helpers/secrets.js';
import { visitAndPay } from './helpers.js';

const META_TOKEN = 'EAAGm0PX4ZCpsBAbrowserCspToken0123456789';
const PIXEL_ID = '246813579024681';

/** The order pages' policy before the browser pixel existed: every page without the pixel keeps it. */
const TODAYS_ORDER_CSP =
  "default-src 'none'; style-src 'self'; img-src data:; form-action 'self'; base-uri 'none'; " +
  "frame-ancestors 'none'; script-src 'self'; connect-src 'self'";
/** The same with Meta's pixel hosts (the defaults of META_PIXEL_SCRIPT_URL and META_PIXEL_HOST). */
const PIXEL_ORDER_CSP =
  "default-src 'none'; style-src 'self'; img-src data: https://www.facebook.com; form-action 'self'; " +
  "base-uri 'none'; frame-ancestors 'none'; script-src 'self' https://connect.facebook.net; " +
  "connect-src 'self' https://www.facebook.com";
/** A page that runs no script (the checkout without a card tokenizer, the simulation page). */
const NO_SCRIPT_CSP =
  "default-src 'none'; style-src 'self'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/**
 * The browser side of `ad_pixel` (docs/ad-conversions.md, "The browser pixel"), over HTTP: which order
 * pages load the Meta pixel, with which event ids, and their Content-Security-Policy, company by
 * company on one server.
 */
describe('ad_pixel browser pixel: order pages and their CSP, per company', function () {
  this.timeout(60_000);
  let app: TestApp;

  before(async () => {
    noteSecret(META_TOKEN);
    app = await sharedApp();
  });

  /** A company with a `meta` integration (`browser_pixel` as given) covering `products`. */
  async function companyWithMeta(
    browserPixel: boolean | null,
    options: { allProducts?: boolean; events?: string[] } = {},
  ): Promise<SeedResult> {
    const tenant = await seed();
    if (browserPixel === null) return tenant;
    const res = await app.http.post<{ id: number }>(`${P}/integrations/`, {
      auth: tenant.panel_token,
      body: {
        type: 'ad_pixel',
        events: options.events ?? ['order.created', 'order.paid'],
        send_to_all_products: options.allProducts ?? true,
        config: {
          provider: 'meta',
          pixel_id: PIXEL_ID,
          access_token: META_TOKEN,
          browser_pixel: browserPixel,
        },
      },
    });
    expect(res.status, res.text).to.equal(201);
    return tenant;
  }

  const liveLink = (tenant: SeedResult) =>
    createLink(app, tenant.keys.live, { offer_code: activeOffer(tenant).code });

  /** Pays a new live link of the company (card, or a Pix left pending) and opens its order page. */
  async function orderPageOf(tenant: SeedResult, method: 'credit_card' | 'pix' = 'credit_card') {
    const { order } = await visitAndPay(app, tenant, await liveLink(tenant), { method });
    const page = await app.http.get<string>(payPath(app, `/orders/${order.code}`));
    expect(page.status, page.text.slice(0, 300)).to.equal(200);
    const { rows } = await app.ctx.pool.query<{ id: string; type: string }>(
      `SELECT id, type FROM events WHERE company_id = $1 AND payload #>> '{data,order,code}' = $2`,
      [tenant.company.id, order.code],
    );
    const idOf = (type: string): string | undefined => rows.find((r) => r.type === type)?.id;
    return { order, page, created: idOf('order.created'), paid: idOf('order.paid') };
  }

  const attribute = (html: string, name: string): string | undefined =>
    new RegExp(`\\b${name}="([^"]*)"`).exec(html)?.[1];

  it('a company with browser_pixel on: the paid order page names the pixel, both event ids and Meta’s hosts', async () => {
    const tenant = await companyWithMeta(true);
    const { page, order, created, paid } = await orderPageOf(tenant);
    expect(order.status).to.equal('paid');
    expect(created, 'order.created recorded').to.be.a('string');
    expect(paid, 'order.paid recorded').to.be.a('string');
    expect(page.headers.get('content-security-policy')).to.equal(PIXEL_ORDER_CSP);
    expect(page.body).to.match(/<script src="[^"]*assets\/ad-pixel\.[0-9a-f]{12}\.js" defer><\/script>/);
    expect(attribute(page.body, 'data-pixel-id')).to.equal(PIXEL_ID);
    expect(attribute(page.body, 'data-pixel-script')).to.equal(
      'https://connect.facebook.net/en_US/fbevents.js',
    );
    expect(attribute(page.body, 'data-pixel-initiate-checkout')).to.equal(created);
    expect(attribute(page.body, 'data-pixel-purchase')).to.equal(paid);
    expect(attribute(page.body, 'data-pixel-value')).to.equal(order.amount);
    expect(attribute(page.body, 'data-pixel-currency')).to.equal('BRL');
    // No inline script: the page's only scripts are files of this service.
    expect(page.body).not.to.match(/<script(?![^>]*\bsrc=)[^>]*>/);

    // The checkout form itself (where the card is typed) never loads the pixel.
    const checkout = await app.http.get<string>(pathOf(app, (await liveLink(tenant)).url));
    expect(checkout.headers.get('content-security-policy')).to.equal(NO_SCRIPT_CSP);
    expect(checkout.body).not.to.include('data-pixel').and.not.to.include('ad-pixel');
  });

  it('a pending Pix names only the InitiateCheckout id; the status check stays {status}', async () => {
    const tenant = await companyWithMeta(true);
    const { page, order, created, paid } = await orderPageOf(tenant, 'pix');
    expect(order.status).to.equal('pending');
    expect(paid).to.equal(undefined);
    expect(page.headers.get('content-security-policy')).to.equal(PIXEL_ORDER_CSP);
    expect(attribute(page.body, 'data-pixel-initiate-checkout')).to.equal(created);
    expect(page.body).not.to.include('data-pixel-purchase');
    const status = await app.http.get<Record<string, unknown>>(payPath(app, `/orders/${order.code}/status`));
    expect(status.body).to.deep.equal({ status: 'pending' });
  });

  it('only the kinds the integration sends: without order.created, no InitiateCheckout id', async () => {
    const tenant = await companyWithMeta(true, { events: ['order.paid'] });
    const { page, paid } = await orderPageOf(tenant);
    expect(attribute(page.body, 'data-pixel-purchase')).to.equal(paid);
    expect(page.body).not.to.include('data-pixel-initiate-checkout');
  });

  for (const [why, make] of [
    ['no ad_pixel integration', () => companyWithMeta(null)],
    ['browser_pixel false', () => companyWithMeta(false)],
    ['browser_pixel on but the product not linked', () => companyWithMeta(true, { allProducts: false })],
    [
      'browser_pixel on but no conversion kind sent',
      () => companyWithMeta(true, { events: ['lead.created'] }),
    ],
  ] as const) {
    it(`${why}: the order page keeps today’s CSP exactly and loads no pixel`, async () => {
      // A company with the pixel on, on the same server, changes nothing for this one.
      await companyWithMeta(true);
      const { page } = await orderPageOf(await make());
      expect(page.headers.get('content-security-policy')).to.equal(TODAYS_ORDER_CSP);
      expect(page.body).not.to.include('data-pixel').and.not.to.include('ad-pixel');
    });
  }

  it('an inactive integration loads no pixel; a test-mode link’s page never does', async () => {
    const tenant = await companyWithMeta(true);
    const { rows } = await app.ctx.pool.query<{ id: number }>(
      `SELECT id FROM integrations WHERE company_id = $1`,
      [tenant.company.id],
    );
    const id = rows[0]?.id;
    const off = await app.http.patch(`${P}/integrations/${id}`, {
      auth: tenant.panel_token,
      body: { is_active: false },
    });
    expect(off.status, off.text).to.equal(200);
    const { page } = await orderPageOf(tenant);
    expect(page.headers.get('content-security-policy')).to.equal(TODAYS_ORDER_CSP);
    expect(page.body).not.to.include('data-pixel');

    const active = await companyWithMeta(true);
    const testLink = await createLink(app, active.keys.test, { offer_code: activeOffer(active).code });
    const simulation = await app.http.get<string>(pathOf(app, testLink.url));
    expect(simulation.status).to.equal(200);
    expect(simulation.headers.get('content-security-policy')).to.equal(NO_SCRIPT_CSP);
    expect(simulation.body).not.to.include('data-pixel').and.not.to.include('ad-pixel');
  });
});
