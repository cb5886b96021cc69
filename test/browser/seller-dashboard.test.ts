import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { SeedResult } from '../../src/cli/seed.js';
import { freePort } from '../../src/infra/free-port.js';
import { activeOffer } from '../checkout/helpers.js';
import { startEngine, type Engine } from '../events/helpers.js';
import { seed } from '../helpers/app.js';
import { browserIn, checkPage, launchChromium } from './browser.js';

/**
 * A seller runs the business from the dashboard, in Chromium: creates a link without code, opens
 * it, pays it, and sees the home's revenue grow. Every page the seller uses (home, links, a link,
 * its form refused and not, the catalog and its forms, the orders with their export) passes axe at
 * 375 and 1280 px in both languages.
 */
describe('Seller dashboard in Chromium', function () {
  this.timeout(180_000);
  let browser: Browser;
  let engine: Engine;
  let tenant: SeedResult;

  before(async () => {
    browser = await launchChromium();
    const port = await freePort();
    // Links are made for localhost; the browser opens them under 127.0.0.1 (see buyer-pages.test.ts).
    engine = await startEngine({ PORT: String(port), PUBLIC_BASE_URL: `http://localhost:${port}` });
    tenant = await seed();
  });
  after(async () => {
    await browser?.close();
    await engine?.close();
  });

  const at = (path: string): string => `${engine.app.url}/dashboard${path}`;
  const underLoopback = (url: string): string =>
    url.replace(new URL(engine.app.ctx.config.urls.payments).origin, new URL(engine.app.url).origin);
  const plain = (text: string | null): string => (text ?? '').replace(/\s+/g, ' ').trim();

  async function signedIn(locale: 'pt-BR' | 'en-US'): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browserIn(browser, locale);
    const page = await context.newPage();
    await page.goto(at('/sign-in'));
    await page.locator('#credential').fill(tenant.panel_token);
    await Promise.all([page.waitForURL(/\/dashboard$/), page.locator('main button[type=submit]').click()]);
    return { context, page };
  }

  /** The home's net revenue, as the page shows it. */
  const revenue = async (page: Page): Promise<string> =>
    plain(await page.locator('dl.figures div').first().locator('dd strong').textContent());

  it('creates a link, opens it, pays it, and sees the home’s revenue grow', async () => {
    const offer = activeOffer(tenant);
    const { context, page } = await signedIn('en-US');
    expect(await revenue(page)).to.equal('R$0.00');
    await checkPage(page, 'seller-home-empty', 'en');

    await page.getByRole('link', { name: 'Create a payment link' }).click();
    await page.waitForURL(/\/links\/new/);
    await page.selectOption('#item', `offer:${offer.code}`);
    await page.fill('#external_reference', 'walk-1');
    await Promise.all([
      page.waitForURL(/done=link_created/),
      page.getByRole('button', { name: 'Create link' }).click(),
    ]);
    expect(plain(await page.locator('.done').textContent())).to.equal(
      'Link created. Share its address or its QR code.',
    );
    const url = await page.inputValue('#link-url');
    expect(await page.getByRole('img', { name: `QR code of the address ${url}` }).count()).to.equal(1);
    await checkPage(page, 'seller-link-created', 'en');

    const buyer = await context.newPage();
    await buyer.goto(underLoopback(url));
    await buyer.fill('#name', 'Bia Buyer');
    await buyer.fill('#email', 'bia.walk@example.com');
    await buyer.check('#payment_method-credit_card');
    await Promise.all([
      buyer.waitForURL(/\/pay\/orders\//),
      buyer.locator('main form button[type=submit]').click(),
    ]);
    expect(await buyer.getAttribute('#order-status', 'data-status')).to.equal('paid');

    await page.goto(at(''));
    const price = new Intl.NumberFormat('en', { style: 'currency', currency: 'BRL' }).format(
      Number(offer.price),
    );
    expect(await revenue(page)).to.equal(price);
    expect(plain(await page.locator('dl.figures div').nth(1).textContent())).to.equal('Paid orders 1');
    const today = page.locator('table.figures tbody tr').first();
    expect(plain(await today.locator('td').first().textContent())).to.equal(price);
    await checkPage(page, 'seller-home-paid', 'en');

    await page.goto(at('/links?external_reference=walk-1'));
    expect(plain(await page.locator('table tbody tr td[data-label="Status"]').textContent())).to.equal(
      'Paid',
    );
    await context.close();
  });

  // One test per language: each walks fifteen pages through axe at two widths, which a loaded
  // machine takes minutes to do.
  for (const [locale, lang] of [
    ['pt-BR', 'pt-BR'],
    ['en-US', 'en'],
  ] as const) {
    it(`passes axe on every new page in ${lang}`, async function () {
      // At a load average of 25 one language's walk took just over three minutes.
      this.timeout(360_000);
      const offer = activeOffer(tenant);
      const { context, page } = await signedIn(locale);
      const visit = async (path: string, name: string): Promise<void> => {
        const answer = await page.goto(at(path));
        expect(answer?.status(), path).to.equal(200);
        await checkPage(page, name, lang);
      };
      await visit('', 'seller-home');
      await visit('?mode=test', 'seller-home-test');
      await visit('/links', 'seller-links');
      await visit('/links/new?mode=test', 'seller-link-new');
      // A refused form: each problem beside its field.
      await page.selectOption('#item', `offer:${offer.code}`);
      await page.fill('#max_installments', '13');
      await page.click('form[action*="/links"] button[type=submit]');
      await page.locator('.problems').waitFor();
      await checkPage(page, 'seller-link-refused', lang);
      await page.fill('#max_installments', '2');
      await Promise.all([
        page.waitForURL(/done=link_created/),
        page.click('form[action*="/links"] button[type=submit]'),
      ]);
      await checkPage(page, 'seller-link', lang);
      const id = /links\/(plink_\w+)/.exec(page.url())?.[1] ?? '';
      await visit(`/links/${id}/cancel?mode=test`, 'seller-link-cancel');
      await visit('/catalog', 'seller-catalog');
      await visit('/catalog/products/new', 'seller-product-new');
      await visit('/catalog/offers/new', 'seller-offer-new');
      await visit(`/catalog/offers/${offer.code}`, 'seller-offer-edit');
      await visit('/catalog/plans/new', 'seller-plan-new');
      await visit('/catalog/coupons/new', 'seller-coupon-new');
      await page.fill('#code', 'no spaces allowed');
      await page.click('form[action*="/catalog/coupons"] button[type=submit]');
      await page.locator('.problems').waitFor();
      await checkPage(page, 'seller-coupon-refused', lang);
      await visit('/orders', 'seller-orders');
      await context.close();
    });
  }
});
