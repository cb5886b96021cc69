import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import jsQR from 'jsqr';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import type { SeedResult } from '../../src/cli/seed.js';
import { freePort } from '../../src/infra/free-port.js';
import { seed, type TestApp } from '../helpers/app.js';
import { eventually, startEngine, type Engine } from '../events/helpers.js';
import { P, type PanelOrder } from '../orders/helpers.js';
import {
  activeOffer,
  checkBoleto,
  createLink,
  readStaticPix,
  signedCallback,
  type WireLink,
} from '../checkout/helpers.js';
import { ARTIFACTS, browserIn, checkPage, focusWithoutOutline, launchChromium } from './browser.js';

const BUYER = { name: 'Maria Compradora', email: 'maria.pix@example.com', document: '529.982.247-25' };

/** The QR code in a PNG screenshot, decoded (jsQR), or null when none is found. */
function decodeQr(png: Buffer): string | null {
  const image = PNG.sync.read(png);
  // jsqr is CommonJS: under NodeNext its default import is the module, whose `default` is the decoder.
  return jsQR.default(new Uint8ClampedArray(image.data), image.width, image.height)?.data ?? null;
}

/** A seller's own "thank you" page: what a link's success_url points at. */
async function sellerSite(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html lang="pt-BR"><title>Loja</title><h1>Obrigado!</h1></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/obrigado?utm_source=checkout`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Pix, boleto and card instalments paid from the buyer pages in Chromium, end to end: the buyer
 * pays from what the page shows (the QR code decoded from a screenshot, the boleto read by
 * validators), the gateway's signed callback confirms it, and the open page turns into the
 * confirmation (or goes to the seller's success_url) by itself.
 */
describe('Pix, boleto and card instalments in Chromium', function () {
  this.timeout(120_000);
  let browser: Browser;
  let engine: Engine;
  let tenant: SeedResult;
  let seller: Awaited<ReturnType<typeof sellerSite>>;

  before(async () => {
    browser = await launchChromium();
    const port = await freePort();
    // Links are made for localhost; the browser opens them under 127.0.0.1 (see buyer-pages.test.ts).
    engine = await startEngine({ PORT: String(port), PUBLIC_BASE_URL: `http://localhost:${port}` });
    tenant = await seed();
    seller = await sellerSite();
  });
  after(async () => {
    await browser?.close();
    await seller?.close();
    await engine?.close();
  });

  const app = (): TestApp => engine.app;
  const underLoopback = (url: string): string =>
    url.replace(new URL(app().ctx.config.urls.payments).origin, new URL(app().url).origin);
  const link = (body: Record<string, unknown> = {}): Promise<WireLink> =>
    createLink(app(), tenant.keys.live, { offer_code: activeOffer(tenant).code, customer: BUYER, ...body });
  const panelOrder = async (code: string): Promise<PanelOrder> =>
    (await app().http.get<PanelOrder>(`${P}/orders/${code}`, { auth: tenant.panel_token })).body;

  /** Opens the link's checkout, picks the method and pays; returns the order code of the page it lands on. */
  async function payWith(page: Page, l: WireLink, method: 'pix' | 'boleto' | 'credit_card'): Promise<string> {
    await page.goto(underLoopback(l.short_url));
    await page.check(`#payment_method-${method}`);
    await Promise.all([
      page.waitForURL(/\/pay\/orders\/[0-9a-f-]{36}/),
      page.locator('main form button[type=submit]').click(),
    ]);
    const code = await page.locator('#order-code').textContent();
    if (!code) throw new Error('no order code on the page');
    return code;
  }

  /** A marker in the page's JavaScript: gone after any reload or navigation. */
  const mark = (page: Page) => page.evaluate('window.__stillTheSamePage = true');
  const stillMarked = async (page: Page): Promise<boolean> =>
    (await page.evaluate('window.__stillTheSamePage === true')) === true;

  async function pageWithClipboard(
    locale: 'pt-BR' | 'en-US' = 'pt-BR',
  ): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browserIn(browser, locale);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: new URL(app().url).origin,
    });
    return { context, page: await context.newPage() };
  }

  for (const withSuccessUrl of [false, true]) {
    const outcome = withSuccessUrl
      ? 'the browser lands on the success_url'
      : 'the page turns into the confirmation';
    it(`Pix: the QR code in a screenshot is the copia e cola, pix-utils reads the amount; paid, ${outcome}`, async () => {
      const { context, page } = await pageWithClipboard();
      const l = await link(withSuccessUrl ? { success_url: seller.url } : {});
      const code = await payWith(page, l, 'pix');
      const order = await panelOrder(code);

      // Exactly the code the page shows, the QR code encodes and the seller got.
      const shown = await page.inputValue('#pix-code');
      expect(shown).to.equal(order.pix?.copy_paste);
      const screenshot = await page.screenshot({
        fullPage: true,
        path: path.join(ARTIFACTS, `pix-order${withSuccessUrl ? '-success-url' : ''}.png`),
      });
      expect(decodeQr(screenshot), 'QR code decoded from the screenshot').to.equal(shown);
      const brCode = readStaticPix(shown);
      expect(brCode.transactionAmount).to.equal(Number(order.amount));
      expect(brCode.txid).to.equal(code.replace(/-/g, '').slice(0, 25));
      expect(await page.getAttribute('#pix-qr', 'alt')).to.match(/^QR code do Pix de R\$/);

      // The copy button (shown by the page's script) copies the code and says so.
      await page.getByRole('button', { name: 'Copiar código Pix' }).click();
      await textEventually(() => page.locator('#pix-code-status').textContent(), /Copiado/);
      expect(await page.evaluate('navigator.clipboard.readText()')).to.equal(shown);

      // The gateway confirms: the open page changes by itself within 5 s, without a reload.
      await mark(page);
      const paid = await signedCallback(app(), { order_code: code, status: 'paid', payment_method: 'pix' });
      expect(paid.status, paid.text).to.equal(200);
      if (withSuccessUrl) {
        await page.waitForURL((url) => url.href.startsWith(seller.url), { timeout: 5000 });
        const landed = new URL(page.url());
        expect(landed.searchParams.get('utm_source')).to.equal('checkout');
        expect(landed.searchParams.get('link_id')).to.equal(l.id);
        expect(landed.searchParams.get('order_code')).to.equal(code);
      } else {
        await page.locator('#order-status[data-status="paid"]').waitFor({ timeout: 5000 });
        expect(await stillMarked(page), 'the page was not reloaded').to.equal(true);
        expect(await page.locator('h1').textContent()).to.equal('Obrigado pela sua compra!');
        // The new heading has the focus, so a screen reader reads the change.
        expect(await page.evaluate('document.activeElement && document.activeElement.tagName')).to.equal(
          'H1',
        );
        await checkPage(page, 'pix-paid-in-place', 'pt-BR');
      }
      await context.close();
    });

    it(`boleto: validators accept its linha digitável with the amount and due date; printable; paid, ${outcome}`, async () => {
      const { context, page } = await pageWithClipboard();
      const l = await link({ boleto_due_days: 4, ...(withSuccessUrl ? { success_url: seller.url } : {}) });
      const code = await payWith(page, l, 'boleto');
      const order = await panelOrder(code);
      const boleto = order.boleto;
      if (!boleto) throw new Error('the boleto order has no boleto');

      // What the page shows is the boleto the seller got, and independent validators read it back.
      const shown = ((await page.locator('#boleto-line').textContent()) ?? '').replace(/\D/g, '');
      expect(shown).to.equal(boleto.digitable_line);
      checkBoleto(boleto, { cents: Math.round(Number(order.amount) * 100) });
      expect(await page.locator('#boleto-due time').getAttribute('datetime')).to.equal(boleto.due_date);
      expect(await page.locator('#boleto-barcode').isVisible()).to.equal(true);
      await page.getByRole('button', { name: 'Copiar linha digitável' }).click();
      await textEventually(() => page.locator('#boleto-line-status').textContent(), /Copiado/);
      expect(await page.evaluate('navigator.clipboard.readText()')).to.equal(boleto.digitable_line);

      // The printable page, opened from the order's page.
      const printable = await context.newPage();
      await printable.goto(
        new URL((await page.getAttribute('#boleto-print', 'href')) ?? '', page.url()).href,
      );
      expect(((await printable.locator('#boleto-line').textContent()) ?? '').replace(/\D/g, '')).to.equal(
        boleto.digitable_line,
      );
      expect(await printable.getByRole('button', { name: 'Imprimir' }).isVisible()).to.equal(true);
      await printable.close();

      await mark(page);
      const paid = await signedCallback(app(), {
        order_code: code,
        status: 'paid',
        payment_method: 'boleto',
      });
      expect(paid.status, paid.text).to.equal(200);
      if (withSuccessUrl) {
        await page.waitForURL((url) => url.href.startsWith(seller.url), { timeout: 5000 });
        expect(new URL(page.url()).searchParams.get('order_code')).to.equal(code);
        expect(new URL(page.url()).searchParams.get('link_id')).to.equal(l.id);
      } else {
        await page.locator('#order-status[data-status="paid"]').waitFor({ timeout: 5000 });
        expect(await stillMarked(page), 'the page was not reloaded').to.equal(true);
      }
      await context.close();
    });
  }

  it('card in 3 instalments: chosen in the form, on the confirmation and on the order', async () => {
    const context = await browserIn(browser, 'pt-BR');
    const page = await context.newPage();
    const l = await link({ max_installments: 3 });
    await page.goto(underLoopback(l.short_url));
    await checkPage(page, 'checkout-installments', 'pt-BR');
    await page.selectOption('#installments', '3');
    await Promise.all([
      page.waitForURL(/\/pay\/orders\//),
      page.getByRole('button', { name: /^Pagar R\$/ }).click(),
    ]);
    expect(await page.getAttribute('#order-status', 'data-status')).to.equal('paid');
    expect((await page.locator('#order-method').textContent())?.replace(/\u00a0/g, ' ')).to.equal(
      'Cartão de crédito, 3x de R$ 99,00',
    );
    const code = (await page.locator('#order-code').textContent()) ?? '';
    expect(await panelOrder(code)).to.include({ installments: 3, payment_method: 'credit_card' });
    await context.close();
  });

  it('works without JavaScript: the code is there to select, and a reload shows the payment', async () => {
    const context = await browser.newContext({ locale: 'pt-BR', javaScriptEnabled: false });
    const page = await context.newPage();
    const code = await payWith(page, await link(), 'pix');
    expect(await page.inputValue('#pix-code')).to.match(/^000201/);
    // The copy button needs the script; without it, it stays hidden.
    expect(await page.locator('button[data-copy]').isVisible()).to.equal(false);
    await signedCallback(app(), { order_code: code, status: 'paid', payment_method: 'pix' });
    await page.reload();
    expect(await page.getAttribute('#order-status', 'data-status')).to.equal('paid');
    await context.close();
  });

  describe('the new pages, at 375 px and 1280 px, in both languages, without an axe violation', () => {
    for (const [lang, locale] of [
      ['pt-BR', 'pt-BR'],
      ['en', 'en-US'],
    ] as const) {
      it(`${lang}: Pix and boleto to pay, the printable boleto, the limited checkout, expired and failed orders`, async () => {
        const context = await browserIn(browser, locale);
        const page = await context.newPage();

        await page.goto(
          underLoopback((await link({ payment_methods: ['pix', 'boleto'], max_installments: 1 })).url),
        );
        expect(await page.locator('input[name=payment_method]').count()).to.equal(2);
        await checkPage(page, 'checkout-pix-boleto-only', lang);

        const pixCode = await payWith(page, await link(), 'pix');
        expect(await focusWithoutOutline(page, 8), 'focus ring').to.deep.equal([]);
        await checkPage(page, 'order-pix', lang);

        await payWith(page, await link(), 'boleto');
        await checkPage(page, 'order-boleto', lang);
        await page.goto(new URL((await page.getAttribute('#boleto-print', 'href')) ?? '', page.url()).href);
        await checkPage(page, 'boleto-printable', lang);

        const failedCode = await payWith(page, await link(), 'pix');
        await signedCallback(app(), { order_code: failedCode, status: 'failed' });
        await page.reload();
        expect(await page.getAttribute('#order-status', 'data-status')).to.equal('failed');
        await checkPage(page, 'order-failed', lang);

        // The Pix of the first order expires; its page then offers a new order.
        await app().ctx.pool.query(
          `UPDATE orders SET pix_expires_at = clock_timestamp() - interval '1 second',
                  abandon_at = clock_timestamp() - interval '2 seconds' WHERE code = $1`,
          [pixCode],
        );
        await eventually(
          async () => ((await panelOrder(pixCode)).status === 'abandoned' ? true : undefined),
          10_000,
          'the sweep abandoning the expired Pix order',
        );
        await page.goto(underLoopback(`${app().ctx.config.urls.checkout}/orders/${pixCode}`));
        expect(await page.getAttribute('#order-status', 'data-status')).to.equal('abandoned');
        await checkPage(page, 'order-abandoned', lang);
        await context.close();
      });
    }
  });
});

/** Waits until `read` gives text matching `pattern` (a copy confirmation is written asynchronously). */
async function textEventually(read: () => Promise<string | null>, pattern: RegExp): Promise<void> {
  let text = '';
  await eventually(
    async () => {
      text = (await read()) ?? '';
      return pattern.test(text) ? true : undefined;
    },
    3000,
    () => `text matching ${String(pattern)}, got ${JSON.stringify(text)}`,
  );
}
