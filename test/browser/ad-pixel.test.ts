import { expect } from 'chai';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import type { SeedResult } from '../../src/cli/seed.js';
import { freePort } from '../../src/infra/free-port.js';
import { seed, type TestApp } from '../helpers/app.js';
import { eventually, startEngine, type Engine } from '../events/helpers.js';
import { activeOffer, createLink, signedCallback, type WireLink } from '../checkout/helpers.js';
import { P } from '../orders/helpers.js';
import { noteSecret } from '../helpers/secrets.js';
import { MetaCapiStandIn } from '../helpers/ad-platforms/meta-capi.js';
import { MetaPixelStandIn, type PixelHit } from '../helpers/ad-platforms/meta-pixel.js';
import { browserIn, checkPage, launchChromium } from './browser.js';

const META_TOKEN = 'EAAGm0PX4ZCpsBAbrowserPixelToken0123456789';
const PIXEL_ID = '135792468013579';
const BUYER = { name: 'Maria Compradora', email: 'maria.pixel@example.com', document: '529.982.247-25' };

/** The order pages' policy without a pixel, exactly as before the browser side existed. */
const TODAYS_ORDER_CSP =
  "default-src 'none'; style-src 'self'; img-src data:; form-action 'self'; base-uri 'none'; " +
  "frame-ancestors 'none'; script-src 'self'; connect-src 'self'";

const ORDER_PAGE = /\/pay\/orders\/[0-9a-f-]{36}$/;

/**
 * The Meta pixel on the buyer pages in Chromium (docs/ad-conversions.md, "The browser pixel"): a
 * company whose `meta` integration has `browser_pixel` on gets the pixel on its order pages, which
 * reports InitiateCheckout and, once paid, Purchase with the event ids the Conversions API sent (so
 * Meta counts each once). The pixel and the Graph API are loopback stand-ins written from Meta's
 * references; the page's CSP must allow the pixel's stand-in, or Chromium blocks it.
 */
describe('Meta pixel on the buyer pages in Chromium', function () {
  this.timeout(120_000);
  let browser: Browser;
  let engine: Engine;
  const capi = new MetaCapiStandIn(META_TOKEN);
  const pixel = new MetaPixelStandIn();

  before(async () => {
    noteSecret(META_TOKEN);
    browser = await launchChromium();
    await Promise.all([capi.start(), pixel.start()]);
    const port = await freePort();
    // Links are made for localhost; the browser opens them under 127.0.0.1 (see buyer-pages.test.ts).
    engine = await startEngine({
      PORT: String(port),
      PUBLIC_BASE_URL: `http://localhost:${port}`,
      META_GRAPH_URL: capi.url,
      META_GRAPH_VERSION: 'v25.0',
      META_PIXEL_SCRIPT_URL: pixel.scriptUrl,
      META_PIXEL_HOST: pixel.url,
    });
  });
  after(async () => {
    await browser?.close();
    await engine?.close();
    await Promise.all([capi.close(), pixel.close()]);
  });
  afterEach(() => {
    // The stand-in refused nothing: no track before init, none without an eventID.
    expect(pixel.refused).to.deep.equal([]);
    expect(capi.refused).to.deep.equal([]);
  });

  const app = (): TestApp => engine.app;
  const underLoopback = (url: string): string =>
    url.replace(new URL(app().ctx.config.urls.payments).origin, new URL(app().url).origin);

  /** A company with a `meta` integration sending InitiateCheckout and Purchase, `browser_pixel` as given. */
  async function companyWithMeta(browserPixel: boolean): Promise<SeedResult> {
    const tenant = await seed();
    const res = await app().http.post(`${P}/integrations/`, {
      auth: tenant.panel_token,
      body: {
        type: 'ad_pixel',
        events: ['order.created', 'order.paid'],
        send_to_all_products: true,
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

  const link = (tenant: SeedResult, key: 'live' | 'test' = 'live'): Promise<WireLink> =>
    createLink(app(), tenant.keys[key], { offer_code: activeOffer(tenant).code, customer: BUYER });

  /** Opens the link, pays with `method`; returns the order page's response and its order code. */
  async function pay(
    page: Page,
    l: WireLink,
    method: 'pix' | 'credit_card',
  ): Promise<{ response: Response; code: string }> {
    await page.goto(underLoopback(l.short_url));
    await page.check(`#payment_method-${method}`);
    const [response] = await Promise.all([
      page.waitForResponse(
        (r) => r.request().method() === 'GET' && ORDER_PAGE.test(new URL(r.url()).pathname),
      ),
      page.locator('main form button[type=submit]').click(),
    ]);
    await page.waitForLoadState();
    const code = await page.locator('#order-code').textContent();
    if (!code) throw new Error('no order code on the page');
    return { response, code };
  }

  /** The ids of the order's live events, as the service recorded them. */
  async function eventIds(
    code: string,
  ): Promise<{ created: string; paid: string | undefined; amount: number }> {
    const { rows } = await app().ctx.pool.query<{ id: string; type: string; amount: string }>(
      `SELECT id, type, payload #>> '{data,order,amount}' AS amount FROM events
        WHERE payload #>> '{data,order,code}' = $1 AND livemode AND type IN ('order.created', 'order.paid')`,
      [code],
    );
    const created = rows.find((r) => r.type === 'order.created');
    if (!created) throw new Error(`no order.created for ${code}`);
    return {
      created: created.id,
      paid: rows.find((r) => r.type === 'order.paid')?.id,
      amount: Number(created.amount),
    };
  }

  const hitsOf = (eid: string): PixelHit[] => pixel.hits.filter((h) => h.eid === eid);
  /** The pixel's one hit with this event id (waits for it; a second one fails the test). */
  async function oneHit(eid: string, ev: string): Promise<PixelHit> {
    const [hit] = await eventually(
      () => (hitsOf(eid).length > 0 ? hitsOf(eid) : undefined),
      10_000,
      `${ev} ${eid}`,
    );
    expect(hitsOf(eid), `hits with eid ${eid}`).to.have.length(1);
    expect(hit).to.include({ id: PIXEL_ID, ev });
    return hit as PixelHit;
  }
  /** The Conversions API event with this name and id, once delivered. */
  const serverEvent = (name: string, eid: string) =>
    eventually(
      () => capi.events().find((e) => e.event_name === name && e.event_id === eid),
      15_000,
      `${name} ${eid} at the Conversions API stand-in`,
    );

  /** What the page's last load tracked, once the pixel's script has run (its queue is then taken). */
  async function trackedThisLoad(page: Page): Promise<unknown> {
    await page.waitForFunction('window.__pixelStandIn !== undefined');
    return page.evaluate('window.__pixelStandIn.tracked');
  }
  /** Whether the page has any trace of Meta's pixel (its queue, its script). */
  const pixelOnPage = async (page: Page): Promise<unknown> =>
    page.evaluate(
      `typeof window.fbq !== 'undefined' || document.querySelector('script[src*="fbevents"], script[src*="ad-pixel"]') !== null`,
    );

  let context: BrowserContext;
  afterEach(async () => {
    await context?.close();
  });

  it('a Pix: InitiateCheckout with the order.created id, then paid in place, Purchase with the order.paid id, each as the Conversions API sent it', async () => {
    const tenant = await companyWithMeta(true);
    context = await browserIn(browser, 'pt-BR');
    const page = await context.newPage();
    const loads = pixel.scriptLoads;
    // The checkout form, where the buyer types, never loads the pixel.
    await page.goto(underLoopback((await link(tenant)).short_url));
    expect(await pixelOnPage(page), 'pixel on the checkout form').to.equal(false);

    const { response, code } = await pay(page, await link(tenant), 'pix');
    expect(await page.getAttribute('#order-status', 'data-status')).to.equal('pending');
    const csp = (await response.allHeaders())['content-security-policy'] ?? '';
    expect(csp).to.include(`script-src 'self' ${pixel.url};`);
    expect(csp).to.include(`img-src data: ${pixel.url};`);
    expect(csp).to.include(`connect-src 'self' ${pixel.url}`);

    const ids = await eventIds(code);
    const initiate = await oneHit(ids.created, 'InitiateCheckout');
    expect(initiate).to.include({ value: ids.amount, currency: 'BRL' });
    expect(new URL(initiate.page).pathname).to.match(ORDER_PAGE);
    const serverInitiate = await serverEvent('InitiateCheckout', ids.created);
    expect(serverInitiate.event_id).to.equal(initiate.eid);
    expect(pixel.scriptLoads).to.equal(loads + 1);
    await checkPage(page, 'order-pix-meta-pixel', 'pt-BR');

    // The gateway confirms: the open page shows the paid state by itself, and reports the Purchase.
    const paid = await signedCallback(app(), { order_code: code, status: 'paid', payment_method: 'pix' });
    expect(paid.status, paid.text).to.equal(200);
    await page.locator('#order-status[data-status="paid"]').waitFor({ timeout: 10_000 });
    const paidIds = await eventIds(code);
    if (!paidIds.paid) throw new Error('no order.paid recorded');
    const purchase = await oneHit(paidIds.paid, 'Purchase');
    expect(purchase).to.include({ value: ids.amount, currency: 'BRL' });
    const serverPurchase = await serverEvent('Purchase', paidIds.paid);
    expect(serverPurchase.event_id).to.equal(purchase.eid);
    expect(serverPurchase.custom_data?.value).to.equal(purchase.value);
    expect(hitsOf(ids.created), 'InitiateCheckout not reported again').to.have.length(1);
    await checkPage(page, 'order-paid-meta-pixel', 'pt-BR');

    // A reload reports nothing again (Meta would count a browser event twice).
    await page.reload();
    expect(await trackedThisLoad(page)).to.deep.equal([]);
    expect(hitsOf(ids.created)).to.have.length(1);
    expect(hitsOf(paidIds.paid)).to.have.length(1);
  });

  it('a card paid at once: the order page reports InitiateCheckout and Purchase, the server’s ids', async () => {
    const tenant = await companyWithMeta(true);
    context = await browserIn(browser, 'en-US');
    const page = await context.newPage();
    const { code } = await pay(page, await link(tenant), 'credit_card');
    expect(await page.getAttribute('#order-status', 'data-status')).to.equal('paid');
    const ids = await eventIds(code);
    if (!ids.paid) throw new Error('no order.paid recorded');
    await oneHit(ids.created, 'InitiateCheckout');
    await oneHit(ids.paid, 'Purchase');
    expect((await serverEvent('Purchase', ids.paid)).event_id).to.equal(ids.paid);
    expect((await serverEvent('InitiateCheckout', ids.created)).event_id).to.equal(ids.created);
    await checkPage(page, 'order-card-meta-pixel', 'en');
  });

  it('another company on the same server (browser_pixel false): today’s CSP, no pixel script, nothing reported', async () => {
    await companyWithMeta(true);
    const other = await companyWithMeta(false);
    context = await browserIn(browser, 'pt-BR');
    const page = await context.newPage();
    const loads = pixel.scriptLoads;
    const hits = pixel.hits.length;
    const { response, code } = await pay(page, await link(other), 'credit_card');
    expect((await response.allHeaders())['content-security-policy']).to.equal(TODAYS_ORDER_CSP);
    expect(await pixelOnPage(page)).to.equal(false);
    // Its server side still runs (the Conversions API gets the Purchase); the browser side does not.
    const ids = await eventIds(code);
    if (!ids.paid) throw new Error('no order.paid recorded');
    await serverEvent('Purchase', ids.paid);
    expect(pixel.scriptLoads).to.equal(loads);
    expect(pixel.hits.length).to.equal(hits);
  });

  it('a test-mode link of a company with the pixel on loads no pixel, before or after a simulated payment', async () => {
    const tenant = await companyWithMeta(true);
    context = await browserIn(browser, 'pt-BR');
    const page = await context.newPage();
    const loads = pixel.scriptLoads;
    const l = await link(tenant, 'test');
    await page.goto(underLoopback(l.short_url));
    expect(new URL(page.url()).pathname).to.equal(`/pay/teste/${l.id}`);
    expect(await pixelOnPage(page)).to.equal(false);
    await page.getByRole('button', { name: 'Pagamento aprovado' }).click();
    await page.waitForLoadState();
    expect(await page.locator('#event').textContent()).to.equal('order.paid');
    expect(await pixelOnPage(page)).to.equal(false);
    expect(pixel.scriptLoads).to.equal(loads);
  });

  it('the dashboard’s ad platform form: the browser pixel box, ticked, saved and shown, without an axe violation', async () => {
    for (const [locale, lang] of [
      ['pt-BR', 'pt-BR'],
      ['en-US', 'en'],
    ] as const) {
      const tenant = await seed();
      context = await browserIn(browser, locale);
      const page = await context.newPage();
      await page.goto(`${app().url}/dashboard`);
      await page.locator('#credential').fill(tenant.panel_token);
      await page.locator('main button[type=submit]').click();
      await page.waitForURL(/\/dashboard$/);
      await page.goto(`${app().url}/dashboard/integrations/new-ad-pixel`);
      await checkPage(page, 'dashboard-new-ad-pixel', lang);
      await page.fill('#pixel_id', PIXEL_ID);
      await page.fill('#access_token', META_TOKEN);
      await page.check('input[name="browser_pixel"]');
      await page.check('input[name="send_to_all_products"]');
      await Promise.all([
        page.waitForURL(/\/dashboard\/integrations\/\d+/),
        page.locator('main form button[type=submit]').last().click(),
      ]);
      expect(await page.isChecked('input[name="browser_pixel"]')).to.equal(true);
      await checkPage(page, 'dashboard-ad-pixel-integration', lang);
      await context.close();
    }
  }).timeout(240_000); // two languages, four pages through axe at two widths

  it('without JavaScript the pixel company’s pages still take the payment and show the order', async () => {
    const tenant = await companyWithMeta(true);
    context = await browser.newContext({ locale: 'pt-BR', javaScriptEnabled: false });
    const page = await context.newPage();
    const loads = pixel.scriptLoads;
    const { code } = await pay(page, await link(tenant), 'credit_card');
    expect(await page.getAttribute('#order-status', 'data-status')).to.equal('paid');
    expect(await page.locator('h1').textContent()).to.equal('Obrigado pela sua compra!');
    const ids = await eventIds(code);
    expect(pixel.scriptLoads).to.equal(loads);
    expect(hitsOf(ids.created)).to.have.length(0);
  });
});
