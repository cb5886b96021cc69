import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { SeedResult } from '../../src/cli/seed.js';
import { eq } from 'drizzle-orm';
import { schema } from '../../src/shared/db/index.js';
import { seed } from '../helpers/app.js';
import { buyerAddress } from '../helpers/smtp.js';
import { eventually } from '../events/helpers.js';
import { signIn } from '../buyer-account/helpers.js';
import { createLink, payPath } from '../checkout/helpers.js';
import type { Seller } from '../helpers/mercadopago/index.js';
import { connectMercadoPago, mercadoPagoWorld, offerLink, P, pay } from '../mercadopago/helpers.js';
import { browserIn, checkPage, launchChromium } from './browser.js';

const CARD = '4235 6477 2802 5682';

/**
 * The checkout of a company connected to Mercado Pago, in Chromium: MercadoPago.js (the stand-in's,
 * from MERCADOPAGO_SDK_URL) mounts the card fields as its own iframes, tokenizes the card, and the
 * pay step charges the token through MP; the card number never reaches the page or the service.
 */
describe('Mercado Pago in the browser: a card paid through MP’s secure fields', function () {
  this.timeout(90_000);
  const world = mercadoPagoWorld();
  let browser: Browser;
  let tenant: SeedResult;
  let seller: Seller;

  before(async () => {
    browser = await launchChromium();
    tenant = await seed();
    ({ seller } = await connectMercadoPago(world, tenant));
  });
  after(async () => {
    await browser?.close();
  });

  let context: BrowserContext;
  afterEach(() => context?.close());

  /** Opens the checkout of a new link, with every request the page sends to the service recorded. */
  async function openCheckout(
    locale: 'pt-BR' | 'en-US',
  ): Promise<{ page: Page; sent: string[]; link: { id: string } }> {
    context = await browserIn(browser, locale);
    const page = await context.newPage();
    const sent: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(world.app.url)) sent.push(`${request.url()} ${request.postData() ?? ''}`);
    });
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    const link = await offerLink(world.app, tenant, { single_use: false, max_installments: 3 });
    await page.goto(`${world.app.url}${payPath(world.app, `/${link.code}?plink=${link.id}`)}`);
    await page.locator('#mp-card-number iframe').waitFor();
    expect(violations, 'CSP violations').to.deep.equal([]);
    return { page, sent, link };
  }

  async function fillCard(
    page: Page,
    holder: string,
    labels = ['Número do cartão', 'Data de vencimento', 'Código de segurança'],
  ): Promise<void> {
    const [number = '', expiry = '', code = ''] = labels;
    await page.locator('#name').fill('Maria Souza');
    await page.locator('#email').fill('maria@example.com');
    await page.frameLocator('#mp-card-number iframe').getByLabel(number).fill(CARD);
    await page.frameLocator('#mp-expiration iframe').getByLabel(expiry).fill('11/30');
    await page.frameLocator('#mp-security-code iframe').getByLabel(code).fill('123');
    await page.frameLocator('#mp-security-code iframe').getByLabel(code).blur();
    await page.locator('#card_holder').fill(holder);
    await page.waitForFunction(
      "document.querySelector('input[name=card_payment_method_id]').value === 'visa'",
    );
  }

  it('passes axe with MP’s fields mounted, tokenizes the card, and the pay step completes through MP', async () => {
    const { page, sent, link } = await openCheckout('pt-BR');
    await checkPage(page, 'checkout-mercadopago', 'pt-BR');
    await fillCard(page, 'APRO');
    await page.locator('#installments').selectOption('3');
    await Promise.all([
      page.waitForURL(/\/orders\/[0-9a-f-]{36}$/),
      page.getByRole('button', { name: /^Pagar/ }).click(),
    ]);
    await page.getByRole('heading', { level: 1 }).waitFor();
    const orderCode = /\/orders\/([0-9a-f-]{36})$/.exec(page.url())?.[1] ?? '';
    const order = await world.app.http.get<{ status: string; installments: number }>(
      `${P}/orders/${orderCode}`,
      {
        auth: tenant.panel_token,
      },
    );
    expect(order.body).to.include({ status: 'paid', installments: 3 });
    const [payment] = world.mp.paymentsOf(seller.userId).filter((p) => p.external_reference === orderCode);
    expect(payment).to.deep.include({ status: 'approved', installments: 3, payment_method_id: 'visa' });
    expect(payment?.card).to.deep.include({ last_four_digits: '5682' });
    // The service saw a token and a brand, never the number.
    const digits = CARD.replace(/ /g, '');
    const posted = sent.find((s) => s.includes('/pay '));
    expect(posted)
      .to.match(/card_token=[A-Za-z0-9_-]+/)
      .and.to.include('card_payment_method_id=visa');
    expect(sent.join('\n')).not.to.include(digits);
    expect(sent.join('\n')).not.to.include('4235+6477');
    void link;
  });

  it('says in English why a card was declined, and the link is still there to pay', async () => {
    const { page } = await openCheckout('en-US');
    await checkPage(page, 'checkout-mercadopago', 'en');
    await fillCard(page, 'FUND', ['Card number', 'Expiration date', 'Security code']);
    await Promise.all([page.waitForURL(/\/orders\//), page.getByRole('button', { name: /^Pay/ }).click()]);
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(await page.locator('main').innerText()).to.include('The card was declined for insufficient funds');
    await checkPage(page, 'order-declined-mercadopago', 'en');
  });

  it('connects Mercado Pago from the dashboard: the button, MP’s consent page, back to “connected”', async () => {
    const fresh = await seed();
    const buyerSeller = world.mp.createSeller();
    context = await browserIn(browser, 'pt-BR');
    const page = await context.newPage();
    await page.goto(`${world.app.url}/dashboard`);
    await page.locator('#credential').fill(fresh.panel_token);
    await page.locator('main button[type=submit]').click();
    // Signing in leads to the home; the gateway is on the integrations page.
    await page.waitForURL(/\/dashboard$/);
    await page.goto(`${world.app.url}/dashboard/integrations`);
    await checkPage(page, 'dashboard-integrations-mercadopago', 'pt-BR');
    await Promise.all([
      page.waitForURL((url) => url.href.startsWith(`${world.mp.authUrl}/authorization?`)),
      page.getByRole('button', { name: 'Conectar Mercado Pago' }).click(),
    ]);
    // MP's consent page: the seller signs in and allows the application.
    await Promise.all([
      page.waitForURL(/\/dashboard\/integrations\?done=gateway_connected/),
      page
        .getByRole('link', { name: `Autorizar como ${buyerSeller.nickname} (${buyerSeller.userId})` })
        .click(),
    ]);
    const main = await page.locator('main').innerText();
    expect(main).to.include('Mercado Pago conectado. Os novos pagamentos passam pela sua conta.');
    expect(main).to.include(`Mercado Pago conectado: conta ${buyerSeller.userId}.`);
    await checkPage(page, 'dashboard-integrations-mercadopago-connected', 'pt-BR');

    // A read-only key sees where it stands, and no button.
    const reader = await browserIn(browser, 'en-US');
    try {
      const readerPage = await reader.newPage();
      await readerPage.goto(`${world.app.url}/dashboard`);
      await readerPage.locator('#credential').fill(fresh.keys.read_only);
      await readerPage.locator('main button[type=submit]').click();
      await readerPage.waitForURL(/\/dashboard$/);
      await readerPage.goto(`${world.app.url}/dashboard/integrations`);
      expect(await readerPage.locator('main').innerText()).to.include(
        `Mercado Pago connected: account ${buyerSeller.userId}.`,
      );
      expect(await readerPage.getByRole('button', { name: /Mercado Pago/ }).count()).to.equal(0);
    } finally {
      await reader.close();
    }
  });

  it('switches a subscription to a card on the buyer’s page through MP’s fields (axe clean), storing MP’s token for its renewals', async () => {
    const plan = tenant.plans.find((p) => p.status === 'active');
    const email = buyerAddress('mp-switch');
    const link = await createLink(world.app, tenant.keys.live, { plan_code: plan?.code ?? '' });
    const first = await pay(world.app, plan?.code ?? '', { plink: link.id, email, payment_method: 'pix' });
    const [payment] = world.mp
      .paymentsOf(seller.userId)
      .filter((p) => p.external_reference === first.orderCode);
    await world.mp.approve(payment?.id ?? 0);
    const order = await eventually(async () => {
      const read = await world.app.http.get<{ status: string; subscription_id: number | null }>(
        `${P}/orders/${first.orderCode ?? ''}`,
        { auth: tenant.panel_token },
      );
      return read.body.subscription_id !== null ? read.body : undefined;
    });
    const id = order.subscription_id ?? 0;

    // Signed in by the mailed link (over HTTP), then the browser carries the session cookie.
    const signedIn = await signIn(world.app, email);
    context = await browserIn(browser, 'en-US');
    await context.addCookies([
      {
        name: 'plinks_buyer',
        value: signedIn.cookies.get('plinks_buyer') ?? '',
        url: `${world.app.url}${payPath(world.app, '/account')}`,
      },
    ]);
    const page = await context.newPage();
    await page.goto(`${world.app.url}${payPath(world.app, `/account/subscriptions/${id}/method?lang=en`)}`);
    // Bought by Pix, so Pix is chosen and the script hides the card until the card is chosen.
    await page.locator('#mp-card-number iframe').waitFor({ state: 'attached' });
    await page.locator('input[name=payment_method][value=credit_card]').check();
    await page.locator('#mp-card-number iframe').waitFor();
    await checkPage(page, 'account-renewal-method-mercadopago', 'en');
    await page.frameLocator('#mp-card-number iframe').getByLabel('Card number').fill(CARD);
    await page.frameLocator('#mp-expiration iframe').getByLabel('Expiration date').fill('11/30');
    await page.frameLocator('#mp-security-code iframe').getByLabel('Security code').fill('123');
    await page.frameLocator('#mp-security-code iframe').getByLabel('Security code').blur();
    await page.locator('#card_holder').fill('APRO');
    await page.waitForFunction(
      "document.querySelector('input[name=card_payment_method_id]').value === 'visa'",
    );
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('p.notice[role=status]').waitFor();
    expect(await page.locator('main').innerText()).to.include('Renews by Credit card.');
    const [row] = await world.app.ctx.db
      .select({ method: schema.subscriptions.renewalMethod, card: schema.subscriptions.renewalCard })
      .from(schema.subscriptions)
      .where(eq(schema.subscriptions.id, id));
    expect(row?.method).to.equal('credit_card');
    expect(row?.card?.payment_method_id).to.equal('visa');
  });
});
