import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { activeOffer, activePlan } from '../checkout/helpers.js';
import { eventually } from '../events/helpers.js';
import { buy, mailTo, sellerWorld } from '../emails/helpers.js';
import { P } from '../orders/helpers.js';
import { browserIn, checkPage, launchChromium } from './browser.js';

/**
 * The pages e-mail to buyers added, in Chromium, in both languages at 375 and 1280 px, axe clean:
 * the checkout's consent box, the unsubscribe page of a recovery message, the pay-now checkout of a
 * failed renewal, and the dashboard's E-mails page and order page.
 */
describe('E-mail pages in Chromium', function () {
  this.timeout(180_000);
  const world = sellerWorld({ localhost: true });
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
    const on = await world.app.http.patch(`${P}/email-settings`, {
      auth: world.tenant.panel_token,
      body: { messages: { recovery: true } },
    });
    expect(on.status).to.equal(200);
  });
  after(() => browser?.close());
  const engine = {
    get app() {
      return world.app;
    },
  };
  const tenantOf = () => world.tenant;

  /** A page of the service under 127.0.0.1, as the browser opens a link of an e-mail. */
  const local = (url: string): string => {
    const u = new URL(url);
    return `${engine.app.url}${u.pathname}${u.search}`;
  };

  it('the checkout’s consent box, ticked by the buyer, reaches the order', async () => {
    for (const [locale, lang] of [
      ['pt-BR', 'pt-BR'],
      ['en-US', 'en'],
    ] as const) {
      const context = await browserIn(browser, locale);
      const page = await context.newPage();
      await page.goto(`${engine.app.url}/pay/${activeOffer(tenantOf()).code}`);
      const box = page.locator('#recovery_consent');
      expect(await box.isChecked()).to.equal(false);
      await checkPage(page, `checkout-consent`, lang);
      await context.close();
    }
    const { order } = await buy(engine.app, tenantOf(), { method: 'pix', consent: true });
    const { rows } = await engine.app.ctx.pool.query(
      'SELECT recovery_consent, language FROM orders WHERE code = $1',
      [order.code],
    );
    expect(rows[0]).to.deep.equal({ recovery_consent: true, language: 'pt-BR' });
  });

  it('the unsubscribe page asks, then unsubscribes, in the message’s language', async () => {
    const { order, email } = await buy(engine.app, tenantOf(), { method: 'pix', consent: true, lang: 'en' });
    await engine.app.ctx.pool.query(
      `UPDATE orders SET abandon_at = clock_timestamp() - interval '1 minute',
              pix_expires_at = clock_timestamp() - interval '1 minute' WHERE code = $1`,
      [order.code],
    );
    const mail = await mailTo(email, /^You left /, 20_000);
    const link =
      /(http\S+\/pay\/emails\/unsubscribe\?token=\w+&lang=en)/.exec(mail.parsed.text ?? '')?.[1] ?? '';
    expect(link).to.not.equal('');
    const context = await browserIn(browser, 'en-US');
    const page = await context.newPage();
    await page.goto(local(link));
    await checkPage(page, 'unsubscribe-ask', 'en');
    await page.getByRole('button', { name: 'Stop the reminders' }).click();
    await page.getByText('you will not receive reminders').waitFor();
    await checkPage(page, 'unsubscribe-done', 'en');
    await context.close();
  });

  it('the pay-now checkout of a failed renewal, and the dashboard’s E-mails and order pages', async () => {
    const plan = activePlan(tenantOf());
    const { order, email } = await buy(engine.app, tenantOf(), { method: 'credit_card', code: plan.code });
    const renew = await engine.app.http.post(`${P}/subscriptions/${order.subscription_id ?? 0}/renew`, {
      auth: tenantOf().panel_token,
      body: { outcome: 'failed' },
    });
    expect(renew.status).to.equal(200);
    const failed = await mailTo(email, /^Não conseguimos renovar/);
    const link = /(http\S+\/pay\/renewals\?token=\w+&lang=pt-BR)/.exec(failed.parsed.text ?? '')?.[1] ?? '';
    const buyer = await browserIn(browser, 'pt-BR');
    const page = await buyer.newPage();
    await page.goto(local(link));
    await checkPage(page, 'renewal-pay-now', 'pt-BR');
    await page.locator('#payment_method-credit_card').check();
    await Promise.all([page.waitForURL(/\/pay\/orders\//), page.locator('main button[type=submit]').click()]);
    await buyer.close();
    await eventually(
      async () =>
        (
          await engine.app.http.get<{ status: string }>(`${P}/subscriptions/${order.subscription_id ?? 0}`, {
            auth: tenantOf().panel_token,
          })
        ).body.status === 'active',
      10_000,
      'renewed',
    );

    for (const [locale, lang] of [
      ['pt-BR', 'pt-BR'],
      ['en-US', 'en'],
    ] as const) {
      const context = await browserIn(browser, locale);
      const seller = await context.newPage();
      await seller.goto(`${engine.app.url}/dashboard/sign-in`);
      await seller.locator('#credential').fill(tenantOf().panel_token);
      await Promise.all([
        seller.waitForURL(/\/dashboard$/),
        seller.locator('main button[type=submit]').click(),
      ]);
      await seller.goto(`${engine.app.url}/dashboard/emails`);
      await checkPage(seller, 'dashboard-emails', lang);
      await seller.goto(`${engine.app.url}/dashboard/orders/${order.code}`);
      expect(await seller.locator('main table tbody tr').count()).to.be.at.least(1);
      await checkPage(seller, 'dashboard-order', lang);
      await context.close();
    }
  });
});
