import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { SeedResult } from '../../src/cli/seed.js';
import { freePort } from '../../src/infra/free-port.js';
import { seed, startTestApp, type TestApp } from '../helpers/app.js';
import { createIntegration, eventually, Receiver, startEngine, type Engine } from '../events/helpers.js';
import { activeOffer, activePlan, createLink, type Envelope, type WireLink } from '../checkout/helpers.js';
import { browserIn, checkPage, focusWithoutOutline, launchChromium } from './browser.js';

/**
 * The kinds the pay step of a card payment by a buyer the company has never seen emits, as the
 * service on this branch records them. The test compares this list with what was recorded and
 * delivered, so a new kind at the pay step (`lead.created` for a new buyer) fails it until named here.
 */
const PAY_STEP_KINDS = ['lead.created', 'order.created', 'order.paid'];

const BUYER = {
  name: 'Maria Compradora',
  email: 'maria.compradora@example.com',
  phone: '+55 11 98765-4321',
  document: '529.982.247-25',
};

const LANGUAGES = [
  { lang: 'pt-BR', browser: 'pt-BR' },
  { lang: 'en', browser: 'en-US' },
] as const;

/**
 * Each server listens on 127.0.0.1 with PUBLIC_BASE_URL on `localhost`: the browser opens every
 * page under 127.0.0.1, a host other than the one the links were made with, so a form or redirect
 * that pointed at PUBLIC_BASE_URL would leave (or, with CSP `form-action 'self'`, not post at all).
 */
async function appEnv(extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const port = await freePort();
  return { PORT: String(port), PUBLIC_BASE_URL: `http://localhost:${port}`, ...extra };
}

describe('Buyer pages in Chromium', function () {
  this.timeout(120_000);
  let browser: Browser;
  let engine: Engine;
  /**
   * The dev gateway off: the pay step leaves the order pending and the page has no instructions
   * (the payment is made at a gateway elsewhere, which calls back).
   */
  let pendingApp: TestApp;
  let receiver: Receiver;

  before(async () => {
    browser = await launchChromium();
    engine = await startEngine(await appEnv());
    pendingApp = await startTestApp(await appEnv({ DEV_GATEWAY: 'false' }));
    receiver = await new Receiver().start();
  });
  after(async () => {
    await browser?.close();
    await receiver?.close();
    await pendingApp?.close();
    await engine?.close();
  });

  /** A link's address as the browser opens it: under 127.0.0.1, not PUBLIC_BASE_URL's localhost. */
  const underLoopback = (app: TestApp, url: string): string => {
    const configured = new URL(app.ctx.config.urls.payments);
    expect(configured.hostname).to.equal('localhost');
    return url.replace(configured.origin, new URL(app.url).origin);
  };

  /** A new company whose webhook receives `events`, or every kind the panel offers. */
  async function tenantListeningTo(events: string[] | 'every kind'): Promise<SeedResult> {
    const tenant = await seed();
    const kinds =
      events === 'every kind'
        ? (
            await engine.app.http.get<Array<{ value: string }>>('/panel/v1/integrations/events', {
              auth: tenant.panel_token,
            })
          ).body.map((k) => k.value)
        : events;
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      events: kinds,
      sendToAllProducts: true,
    });
    return tenant;
  }

  /** What the service recorded for the company, and what the receiver got of it (by webhook-id). */
  async function recordedAndReceived(
    tenant: SeedResult,
  ): Promise<{ recorded: string[]; received: Envelope[] }> {
    const rows = await engine.app.ctx.pool.query<{ id: string; type: string }>(
      'SELECT id, type FROM events WHERE company_id = $1 ORDER BY type',
      [tenant.company.id],
    );
    const ids = new Set(rows.rows.map((r) => r.id));
    const received = () => receiver.requests.filter((r) => ids.has(String(r.headers['webhook-id'])));
    // Whatever has arrived by the deadline is compared with what was recorded: a missing delivery
    // shows up in that comparison, by kind.
    await eventually(async () => (received().length >= ids.size ? true : undefined), 15_000).catch(
      () => undefined,
    );
    return {
      recorded: rows.rows.map((r) => r.type),
      received: received().map((r) => JSON.parse(r.body) as Envelope),
    };
  }

  it('pays a live link from its short url under another host: prefilled form, thank-you page, link paid, events delivered', async () => {
    const tenant = await tenantListeningTo('every kind');
    const offer = activeOffer(tenant);
    const link = await createLink(engine.app, tenant.keys.live, {
      offer_code: offer.code,
      customer: BUYER,
      external_reference: 'browser-order-1',
    });
    const context = await browserIn(browser, 'pt-BR');
    const page = await context.newPage();

    await page.goto(underLoopback(engine.app, link.short_url));

    const opened = new URL(page.url());
    expect(opened.hostname).to.equal('127.0.0.1');
    expect(`${opened.pathname}${opened.search}`).to.equal(`/pay/${offer.code}?plink=${link.id}`);
    expect(await page.locator('h1').textContent()).to.equal(offer.name);
    expect(await page.inputValue('#name')).to.equal(BUYER.name);
    expect(await page.inputValue('#email')).to.equal(BUYER.email);
    expect(await page.inputValue('#phone')).to.equal('+5511987654321');
    expect(await page.inputValue('#document')).to.equal('52998224725');
    expect(await page.isChecked('#payment_method-credit_card')).to.equal(true);
    await checkPage(page, 'checkout-prefilled', 'pt-BR');
    expect(await focusWithoutOutline(page, 12), 'focused elements without a visible outline').to.deep.equal(
      [],
    );

    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: /^Pagar R\$/ }).click(),
    ]);
    await page.waitForLoadState();

    // The pay step leads to the order's own page (a reload shows it again, never posts again).
    expect(response.status()).to.equal(303);
    expect(new URL(page.url()).hostname).to.equal('127.0.0.1');
    expect(new URL(page.url()).pathname).to.match(/^\/pay\/orders\/[0-9a-f-]{36}$/);
    expect(await page.locator('h1').textContent()).to.equal('Obrigado pela sua compra!');
    expect(await page.getAttribute('#order-status', 'data-status')).to.equal('paid');
    // The order code is all the page's address carries: it shows no buyer data.
    expect(await page.locator('main').textContent())
      .to.include('O que acontece agora')
      .and.not.include(BUYER.email);
    const orderCode = await page.locator('#order-code').textContent();
    await checkPage(page, 'thank-you-paid', 'pt-BR');

    const read = await engine.app.http.get<WireLink>(`/v1/payment-links/${link.id}`, {
      auth: tenant.keys.live,
    });
    expect(read.body.status).to.equal('paid');
    expect(read.body.order).to.include({ code: orderCode, status: 'paid', payment_method: 'credit_card' });

    const { recorded, received } = await recordedAndReceived(tenant);
    expect(recorded, 'kinds the pay step recorded').to.deep.equal([...PAY_STEP_KINDS].sort());
    expect(received.map((e) => e.type).sort(), 'kinds the receiver got').to.deep.equal(recorded);
    for (const event of received) {
      if (event.type.startsWith('order.')) expect(event.data.order?.code, event.type).to.equal(orderCode);
      expect(event.data.purchase.payment_link?.code, event.type).to.equal(link.id);
    }
    await context.close();
  });

  for (const [button, outcome, kind, status] of [
    ['Pagamento aprovado', 'paid', 'order.paid', 'paid'],
    ['Pagamento recusado', 'failed', 'order.payment_declined', 'active'],
    ['Pagamento expirado', 'expired', 'order.expired', 'expired'],
  ] as const) {
    it(`on a test link's page, “${button}” (${outcome}) sends ${kind} to the receiver`, async () => {
      const tenant = await tenantListeningTo(['order.paid', 'order.payment_declined', 'order.expired']);
      const link = await createLink(engine.app, tenant.keys.test, {
        offer_code: activeOffer(tenant).code,
        external_reference: `browser-${outcome}`,
      });
      const context = await browserIn(browser, 'pt-BR');
      const page = await context.newPage();
      await page.goto(underLoopback(engine.app, link.short_url));
      expect(new URL(page.url()).pathname).to.equal(`/pay/teste/${link.id}`);

      await page.getByRole('button', { name: button }).click();
      await page.waitForLoadState();

      expect(await page.locator('#event').textContent()).to.equal(kind);
      expect(await page.getAttribute('#link-status', 'data-status')).to.equal(status);
      const { recorded, received } = await recordedAndReceived(tenant);
      expect(recorded).to.deep.equal([kind]);
      expect(received.map((e) => [e.type, e.data.purchase.payment_link?.code, e.test])).to.deep.equal([
        [kind, link.id, true],
      ]);
      await context.close();
    });
  }

  describe('every page, at 375 px and 1280 px, in both languages, without an axe violation', () => {
    let tenant: SeedResult;
    let pendingTenant: SeedResult;

    before(async () => {
      tenant = await tenantListeningTo(['order.paid', 'order.payment_declined', 'order.expired']);
      pendingTenant = await seed();
    });

    const liveLink = (app: TestApp, owner: SeedResult, body: Record<string, unknown> = {}) =>
      createLink(app, owner.keys.live, { offer_code: activeOffer(owner).code, ...body });

    for (const { lang, browser: locale } of LANGUAGES) {
      describe(`${lang} (browser asks for ${locale})`, () => {
        let context: BrowserContext;
        let page: Page;
        beforeEach(async () => {
          context = await browserIn(browser, locale);
          page = await context.newPage();
        });
        afterEach(async () => {
          await context.close();
        });

        const open = async (app: TestApp, url: string, status = 200): Promise<void> => {
          const response = await page.goto(underLoopback(app, url));
          expect(response?.status(), url).to.equal(status);
        };
        const submit = async (status: number): Promise<void> => {
          const [response] = await Promise.all([
            page.waitForResponse((r) => r.request().method() === 'POST'),
            page.locator('main form button[type=submit]').first().click(),
          ]);
          await page.waitForLoadState();
          expect(response.status()).to.equal(status);
        };

        it('checkout with a coupon, its form with mistakes, and the thank-you page', async () => {
          const coupon = tenant.coupons[0]?.code ?? '';
          const link = await liveLink(engine.app, tenant, { coupon_code: coupon });
          await open(engine.app, link.url);
          expect(await page.locator('#list-price').count()).to.equal(1);
          expect(await page.locator('#discount').count()).to.equal(1);
          await checkPage(page, 'checkout-coupon', lang);

          await page.fill('#name', '');
          await page.fill('#email', 'not-an-email');
          await page.fill('#document', '111.111.111-11');
          await submit(400);
          expect(await page.getAttribute('#email', 'aria-invalid')).to.equal('true');
          expect(await page.getAttribute('#email', 'aria-describedby')).to.equal('email-error');
          expect(await page.locator('#email-error').textContent()).to.match(/e-?mail/i);
          await checkPage(page, 'checkout-form-mistakes', lang);

          await page.fill('#name', BUYER.name);
          await page.fill('#email', BUYER.email);
          await page.fill('#document', BUYER.document);
          await submit(303);
          expect(await page.getAttribute('#order-status', 'data-status')).to.equal('paid');
          await checkPage(page, 'thank-you-paid-coupon', lang);
        });

        for (const method of ['pix', 'boleto'] as const) {
          it(`a ${method} payment in progress at a gateway elsewhere says what happens next`, async () => {
            const link = await liveLink(pendingApp, pendingTenant, { customer: BUYER });
            await open(pendingApp, link.url);
            await page.check(`#payment_method-${method}`);
            await submit(303);
            expect(await page.getAttribute('#order-status', 'data-status')).to.equal('pending');
            expect(await page.locator('main li').count()).to.be.at.least(3);
            // What to do depends on how the buyer pays: the Pix app, or the boleto's due date.
            expect(await page.locator('main li').first().textContent()).to.match(
              method === 'pix' ? /Pix/ : /boleto/,
            );
            await checkPage(page, `payment-in-progress-${method}`, lang);
          });
        }

        it('plan checkout, a paid link’s notice and the error pages (400, 404, 409)', async () => {
          const planLink = await createLink(engine.app, tenant.keys.live, {
            plan_code: activePlan(tenant).code,
          });
          await open(engine.app, planLink.url);
          expect(await page.locator('.cycle').count()).to.equal(1);
          await checkPage(page, 'checkout-plan', lang);

          const canceled = await liveLink(engine.app, tenant);
          await engine.app.http.post(`/v1/payment-links/${canceled.id}/cancel`, { auth: tenant.keys.live });
          await open(engine.app, canceled.url);
          expect(await page.locator('.notice').count()).to.equal(1);
          expect(await page.locator('form').count()).to.equal(0);
          await checkPage(page, 'checkout-canceled-notice', lang);

          const other = tenant.offers.filter((o) => o.status === 'active')[1]?.code ?? '';
          const live = await liveLink(engine.app, tenant);
          await open(engine.app, live.url.replace(`/${activeOffer(tenant).code}?`, `/${other}?`), 400);
          await checkPage(page, 'error-400-other-offer', lang);

          await open(engine.app, `${engine.app.ctx.config.urls.checkout}/r/UNKNOWN0`, 404);
          await checkPage(page, 'error-404-short-link', lang);
          await open(engine.app, `${engine.app.ctx.config.urls.checkout}/no/such/page`, 404);
          await checkPage(page, 'error-404-page', lang);

          // A link paid by someone else while this buyer had the page open: the pay step says 409.
          const race = await liveLink(engine.app, tenant, { customer: BUYER });
          await open(engine.app, race.url);
          const elsewhere = await context.newPage();
          await elsewhere.goto(underLoopback(engine.app, race.url));
          await elsewhere.locator('main form button[type=submit]').click();
          await elsewhere.waitForLoadState();
          await elsewhere.close();
          await submit(409);
          await checkPage(page, 'error-409-already-paid', lang);
        });

        it('test link: the simulation page and its result table', async () => {
          const link = await createLink(engine.app, tenant.keys.test, {
            offer_code: activeOffer(tenant).code,
            external_reference: `browser-pages-${lang}`,
          });
          await open(engine.app, link.url);
          expect(await page.locator('.actions button').count()).to.equal(3);
          await checkPage(page, 'simulation', lang);
          await page.locator('.actions button.bad').click();
          await page.waitForLoadState();
          expect(await page.locator('#event').textContent()).to.equal('order.payment_declined');
          expect(await page.locator('tbody tr').count()).to.equal(1);
          await checkPage(page, 'simulation-result', lang);
        });
      });
    }

    it('keeps a language chosen in the address through the form, against the browser’s own', async () => {
      const context = await browserIn(browser, 'pt-BR');
      const page = await context.newPage();
      const link = await liveLink(engine.app, tenant, { customer: BUYER });
      await page.goto(`${underLoopback(engine.app, link.url)}&lang=en`);
      expect(await page.getAttribute('html', 'lang')).to.equal('en');
      expect(await page.getAttribute('header a', 'hreflang')).to.equal('pt-BR');
      await page.getByRole('button', { name: /^Pay R\$/ }).click();
      await page.waitForLoadState();
      expect(await page.getAttribute('html', 'lang')).to.equal('en');
      expect(await page.locator('h1').textContent()).to.equal('Thank you for your purchase!');
      await context.close();
    });
  });
});
