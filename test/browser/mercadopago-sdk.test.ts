import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { MercadoPagoStandIn, type MpPayment, type Seller } from '../helpers/mercadopago/index.js';
import { AxeBuilder } from '@axe-core/playwright';
import { browserIn, launchChromium } from './browser.js';

const CARD = '4235 6477 2802 5682';

/** A checkout page as the service will serve it: on its own origin, loading MercadoPago.js from the stand-in. */
function checkoutPage(sdkUrl: string, publicKey: string): string {
  return `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pagamento com cartão</title>
<script src="${sdkUrl}"></script>
<style>
  body { font: 16px system-ui, sans-serif; margin: 1rem; color: #111; }
  .field { height: 2.75rem; border: 1px solid #595959; border-radius: 4px; margin: 0.25rem 0 1rem; }
</style>
</head>
<body>
<main>
<h1>Pagamento com cartão</h1>
<p>Número do cartão</p><div id="cardNumber" class="field"></div>
<p>Vencimento</p><div id="expirationDate" class="field"></div>
<p>Código de segurança</p><div id="securityCode" class="field"></div>
</main>
<script>
  window.seen = { bins: [], brand: null, ready: 0, validity: [] };
  const mp = new MercadoPago(${JSON.stringify(publicKey)}, { locale: 'pt-BR' });
  const onReady = () => { window.seen.ready += 1; };
  const cardNumber = mp.fields.create('cardNumber', { placeholder: '0000 0000 0000 0000' }).mount('cardNumber');
  cardNumber.on('ready', onReady);
  cardNumber.on('binChange', (event) => {
    window.seen.bins.push(event.bin);
    if (event.bin) mp.getPaymentMethods({ bin: event.bin }).then((found) => { window.seen.brand = found.results[0].id; });
  });
  cardNumber.on('validityChange', (event) => { window.seen.validity.push(event.errorMessages.length); });
  mp.fields.create('expirationDate', { placeholder: 'MM/AA' }).mount('expirationDate').on('ready', onReady);
  mp.fields.create('securityCode', { placeholder: 'CVV' }).mount('securityCode').on('ready', onReady);
  window.tokenize = () => mp.fields.createCardToken({
    cardholderName: 'APRO', identificationType: 'CPF', identificationNumber: '12345678909',
  });
</script>
</body>
</html>`;
}

const isToken = (
  value: unknown,
): value is { id: string; first_six_digits: string; last_four_digits: string } =>
  typeof value === 'object' &&
  value !== null &&
  'id' in value &&
  typeof value.id === 'string' &&
  'first_six_digits' in value &&
  typeof value.first_six_digits === 'string' &&
  'last_four_digits' in value &&
  typeof value.last_four_digits === 'string';

/**
 * MercadoPago.js from the stand-in in Chromium: the three Secure Fields mount as iframes of the
 * stand-in's origin, are filled inside those frames, and the token they make charges the card.
 */
describe('Mercado Pago stand-in: MercadoPago.js Secure Fields in Chromium', function () {
  this.timeout(30_000);
  let mp: MercadoPagoStandIn;
  let browser: Browser;
  let site: http.Server;
  let siteUrl: string;
  let seller: Seller;

  before(async () => {
    mp = await MercadoPagoStandIn.start();
    seller = mp.createSeller();
    const html = checkoutPage(mp.sdkUrl, mp.publicKey(seller.userId));
    site = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/checkout`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => site?.close(() => resolve()));
    await mp?.close();
  });

  let context: BrowserContext;
  // axe needs a page of a context it may open more pages in.
  beforeEach(async () => {
    context = await browserIn(browser, 'pt-BR');
  });
  afterEach(() => context?.close());

  async function seen(page: Page, expression: string): Promise<unknown> {
    return page.evaluate(expression);
  }

  it('fills the card inside the iframes and gets a token that charges the card; the page never holds the number', async () => {
    const page = await context.newPage();
    await page.goto(siteUrl);
    await page.waitForFunction('window.seen.ready === 3');
    const frames = page.locator('iframe');
    expect(await frames.count()).to.equal(3);
    for (const iframe of await frames.all()) {
      expect(new URL((await iframe.getAttribute('src')) ?? '').origin, 'served by the stand-in').to.equal(
        mp.apiUrl,
      );
      expect(await iframe.getAttribute('title'))
        .to.be.a('string')
        .and.not.equal('');
    }
    // axe reads inside the iframes too: each field's frame has its title, language and label.
    const axe = await new AxeBuilder({ page }).analyze();
    expect(
      axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    ).to.deep.equal([]);

    await page.frameLocator('#cardNumber iframe').getByLabel('Número do cartão').fill(CARD);
    await page.frameLocator('#expirationDate iframe').getByLabel('Data de vencimento').fill('11/30');
    await page.frameLocator('#securityCode iframe').getByLabel('Código de segurança').fill('123');
    await page.frameLocator('#securityCode iframe').getByLabel('Código de segurança').blur();
    await page.waitForFunction("window.seen.brand === 'visa'");
    expect(await seen(page, 'window.seen.bins')).to.deep.equal(['42356477']);

    const token = await seen(page, 'window.tokenize()');
    if (!isToken(token)) throw new Error(`not a card token: ${JSON.stringify(token)}`);
    expect(token).to.include({ first_six_digits: '423564', last_four_digits: '5682' });
    const digits = CARD.replace(/ /g, '');
    expect(await page.content(), "the page's DOM").to.not.include(digits);
    expect(JSON.stringify(await seen(page, 'window.seen')), 'what the page was told').to.not.include(digits);

    const { access_token: accessToken } = mp.issueTokens(seller);
    const res = await fetch(`${mp.apiUrl}/v1/payments`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${accessToken}`,
        'content-type': 'application/json',
        'x-idempotency-key': randomUUID(),
      },
      body: JSON.stringify({
        transaction_amount: 99.9,
        payment_method_id: 'visa',
        token: token.id,
        installments: 1,
        payer: { email: 'buyer@example.com' },
      }),
    });
    const payment = (await res.json()) as MpPayment;
    expect(payment).to.include({ status: 'approved', status_detail: 'accredited' });
    expect(payment.card).to.deep.include({ last_four_digits: '5682' });
  });

  it('rejects createCardToken with the causes when a field is wrong', async () => {
    const page = await context.newPage();
    await page.goto(siteUrl);
    await page.waitForFunction('window.seen.ready === 3');
    await page.frameLocator('#cardNumber iframe').getByLabel('Número do cartão').fill('4235 6477 2802 5683');
    await page.frameLocator('#expirationDate iframe').getByLabel('Data de vencimento').fill('11/30');
    await page.frameLocator('#securityCode iframe').getByLabel('Código de segurança').fill('123');
    const refused = await page.evaluate('window.tokenize().then(() => null, (causes) => causes)');
    expect(refused).to.deep.equal([
      { field: 'cardNumber', cause: 'invalid_value', message: 'card number rejected on Luhn Validation.' },
    ]);
  });
});
