import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { buyerAddress } from '../helpers/smtp.js';
import { buy, sellerWorld } from '../emails/helpers.js';
import { P } from '../orders/helpers.js';
import { signInToken } from '../buyer-account/helpers.js';
import { browserIn, checkPage, launchChromium } from './browser.js';

/**
 * The buyer's page in Chromium, in both languages at 375 and 1280 px, axe clean: the sign-in form,
 * the answer, the mailed link's page, and the signed-in page with its content, a purchase within
 * its guarantee (the refund form) and a subscription's actions.
 */
describe("The buyer's page in Chromium", function () {
  this.timeout(240_000);
  const world = sellerWorld({ localhost: true, name: 'Escola da Ana' });
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
    const auth = world.tenant.panel_token;
    const offer = world.tenant.offers.find((o) => o.status === 'active');
    const content = [
      { title: 'Aula 1: boas-vindas', url: 'https://cursos.example.com/aula-1', description: 'Comece aqui.' },
      { title: 'Material em PDF', url: 'https://cursos.example.com/material.pdf' },
    ];
    expect(
      (await world.app.http.patch(`${P}/products/${offer?.product_id ?? 0}`, { auth, body: { content } }))
        .status,
    ).to.equal(200);
    const area = await world.app.http.post(`${P}/integrations/`, {
      auth,
      body: { type: 'members_area', config: { provider: 'builtin' }, events: [], send_to_all_products: true },
    });
    expect(area.status).to.equal(201);
  });
  after(() => browser?.close());

  for (const [locale, lang] of [
    ['pt-BR', 'pt-BR'],
    ['en-US', 'en'],
  ] as const) {
    it(`walks sign-in, the link and the purchases (${lang})`, async () => {
      const email = buyerAddress(`walk-${lang}`);
      const plan = world.tenant.plans.find((p) => p.status === 'active');
      await buy(world.app, world.tenant, { email, method: 'credit_card', lang });
      await buy(world.app, world.tenant, { email, method: 'pix', lang });
      await buy(world.app, world.tenant, { email, method: 'credit_card', lang, code: plan?.code ?? '' });
      const context = await browserIn(browser, locale);
      const page = await context.newPage();
      await page.goto(`${world.app.url}/pay/account`);
      await checkPage(page, 'account-sign-in', lang);
      await page.locator('#email').fill(email);
      await page.locator('form button[type=submit]').click();
      await page.locator('p.notice').waitFor();
      await checkPage(page, 'account-link-sent', lang);

      const token = await signInToken(email);
      await page.goto(`${world.app.url}/pay/account/sign-in?token=${token}&lang=${lang}`);
      await checkPage(page, 'account-use-link', lang);
      await page.locator('form button[type=submit]').click();
      await page.locator('ol.purchases').waitFor();
      expect(await page.locator('ol.purchases > li').count()).to.equal(3);
      expect(await page.locator('a[href="https://cursos.example.com/aula-1"]').count()).to.equal(1);
      expect(await page.locator('textarea[name=reason]').count()).to.be.greaterThan(0);
      await checkPage(page, 'account-purchases', lang);

      // The subscription switched to Pix, then back to a card, through the page's form (the dev
      // gateway's card posts no card data, as at checkout); the next renewal is charged by card.
      const words =
        lang === 'en'
          ? { change: 'Change how it renews', pix: 'Renews by Pix.' }
          : { change: 'Mudar a forma de renovação', pix: 'Renova por Pix.' };
      await page.getByRole('link', { name: words.change }).click();
      await page.locator('input[name=payment_method][value=pix]').waitFor();
      await checkPage(page, 'account-renewal-method', lang);
      await page.getByLabel('Pix', { exact: true }).check();
      await page.locator('form button[type=submit]').click();
      await page.locator('p.notice[role=status]').waitFor();
      expect(await page.locator('main').innerText()).to.include(words.pix);
      await page.getByRole('link', { name: words.change }).click();
      await page.locator('input[name=payment_method][value=credit_card]').check();
      await page.locator('form button[type=submit]').click();
      await page.locator('p.notice[role=status]').waitFor();
      const id = /subscriptions\/(\d+)\/method/.exec(await page.content())?.[1] ?? '0';
      const renewed = await world.app.http.post(`${P}/subscriptions/${id}/renew`, {
        auth: world.tenant.panel_token,
        body: {},
      });
      expect(renewed.status, renewed.text).to.equal(200);
      const orders = await world.app.http.get<{
        data: Array<{ subscription_id: number | null; payment_method: string }>;
      }>(`${P}/orders?limit=100`, { auth: world.tenant.panel_token });
      expect(orders.body.data.find((o) => o.subscription_id === Number(id))?.payment_method).to.equal(
        'credit_card',
      );
      await context.close();
    });
  }
});
