import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { SeedResult } from '../../src/cli/seed.js';
import { freePort } from '../../src/infra/free-port.js';
import { seed } from '../helpers/app.js';
import { noteSecret } from '../helpers/secrets.js';
import {
  createIntegration,
  emit,
  eventually,
  Receiver,
  startEngine,
  type Engine,
} from '../events/helpers.js';
import { activeOffer } from '../checkout/helpers.js';
import { checkout } from '../orders/helpers.js';
import { browserIn, checkPage, launchChromium } from './browser.js';

/** What the old endpoint answers: the reason a seller's team has to find. */
const MOVED = 'Cannot POST /webhooks/payments: this endpoint moved to /hooks';

/**
 * The dashboard driven as a seller's team would: a webhook receiver that moved, its deliveries
 * failing with 404; sign in, find the failing delivery, read why, fix the URL, recover, see it
 * succeed. Every page passes axe at 375 and 1280 px in both languages, with screenshots.
 */
describe('Dashboard in Chromium', function () {
  this.timeout(120_000);
  let browser: Browser;
  let engine: Engine;
  let receiver: Receiver;
  let oldEndpoint: Receiver;
  let tenant: SeedResult;
  let integrationId: number;
  let deliveryId: number;

  before(async () => {
    browser = await launchChromium();
    const port = await freePort();
    engine = await startEngine({ PORT: String(port), PUBLIC_BASE_URL: `http://localhost:${port}` });
    receiver = await new Receiver().start();
    oldEndpoint = await new Receiver().start();
    oldEndpoint.reply = () => ({ status: 404, body: MOVED });
    tenant = await seed();
    integrationId = await createIntegration(engine.app, tenant, {
      url: oldEndpoint.url,
      events: ['order.paid'],
      sendToAllProducts: true,
    });
    await emit(engine.app, {
      companyId: tenant.company.id,
      type: 'order.paid',
      productId: tenant.products[0]?.id ?? null,
    });
    deliveryId = await eventually(
      async () => {
        const { rows } = await engine.app.ctx.pool.query<{ id: string }>(
          "SELECT id FROM deliveries WHERE integration_id = $1 AND status = 'failed'",
          [integrationId],
        );
        return rows[0] ? Number(rows[0].id) : undefined;
      },
      15_000,
      'the delivery to fail',
    );
  });
  after(async () => {
    await browser?.close();
    await receiver?.close();
    await oldEndpoint?.close();
    await engine?.close();
  });

  const at = (path: string): string => `${engine.app.url}/dashboard${path}`;

  async function signIn(context: BrowserContext, credential: string, lang: 'pt-BR' | 'en'): Promise<Page> {
    const page = await context.newPage();
    await page.goto(at(''));
    expect(new URL(page.url()).pathname).to.equal('/dashboard/sign-in');
    await checkPage(page, 'dashboard-sign-in', lang);
    await page.locator('#credential').fill(credential);
    await page.locator('main button[type=submit]').click();
    // Signing in leads to the home; the walks below start from the integrations.
    await page.waitForURL(/\/dashboard$/);
    await page.goto(at('/integrations'));
    return page;
  }

  /** Each language's browser, signed in with the panel token, on a fresh page; closed afterwards. */
  async function inEachLanguage(look: (page: Page, lang: 'pt-BR' | 'en') => Promise<void>): Promise<void> {
    for (const [locale, lang] of [
      ['pt-BR', 'pt-BR'],
      ['en-US', 'en'],
    ] as const) {
      const context = await browserIn(browser, locale);
      await look(await signIn(context, tenant.panel_token, lang), lang);
      await context.close();
    }
  }

  it('finds a failing delivery, reads why, fixes the URL, recovers and sees it succeed; rotates the secret; signs out', async () => {
    const context = await browserIn(browser, 'en-US');
    const page = await signIn(context, tenant.panel_token, 'en');
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'plinks_dashboard');
    expect(session).to.include({ httpOnly: true, sameSite: 'Strict', secure: true, path: '/dashboard' });
    noteSecret(session?.value ?? '');

    // The list: the integration failing, at a glance.
    await checkPage(page, 'dashboard-integrations', 'en');
    const card = page.locator('.cards li', { hasText: `Integration ${integrationId}` });
    expect(await card.textContent()).to.match(/0% of 4 attempts/);
    expect(await card.locator('svg').count()).to.equal(1);
    await card.getByRole('link', { name: `Integration ${integrationId}` }).click();

    // Its deliveries, filtered to the failed ones.
    await page.locator('#status').selectOption('failed');
    await page.locator('#event_type').selectOption('order.paid');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/status=failed/);
    await checkPage(page, 'dashboard-integration', 'en');
    const row = page.locator('tbody tr', { hasText: 'Failed' });
    expect(await row.count()).to.equal(1);
    expect(await row.textContent()).to.include('HTTP 404');

    // Why: every attempt, what was sent and what came back.
    await row.getByRole('link', { name: String(deliveryId) }).click();
    await page.waitForURL(new RegExp(`/deliveries/${deliveryId}$`));
    await checkPage(page, 'dashboard-delivery', 'en');
    expect(await page.locator('section.attempt').count()).to.equal(4);
    const first = page.locator('section.attempt').last();
    expect(await first.textContent()).to.include('HTTP 404');
    expect(await first.textContent()).to.include(MOVED);
    expect(await first.textContent()).to.include('webhook-id');
    expect(await first.textContent()).to.include('"type":"order.paid"');

    // Fix the URL, recover since an hour ago, and see it delivered.
    await page.getByRole('link', { name: 'Back to the integration' }).click();
    await page.locator('#url').fill(receiver.url);
    await page.getByRole('button', { name: 'Save URL' }).click();
    await page.waitForURL(/done=url_saved/);
    expect(await page.locator('#current-url').textContent()).to.equal(receiver.url);
    await page.getByRole('button', { name: 'Recover since this time' }).click();
    await page.waitForURL(/done=recovered/);
    expect(await page.locator('.done').textContent()).to.include('1 delivery will be sent again.');
    await receiver.waitFor(1, 15_000);
    await page.goto(at(`/integrations/${integrationId}/deliveries/${deliveryId}`));
    await eventually(async () => {
      await page.reload();
      return (await page.locator('main .badge').first().textContent()) === 'Succeeded' ? true : undefined;
    });
    const latest = page.locator('section.attempt').first();
    expect(await latest.locator('h2').textContent()).to.equal('Attempt 5');
    expect(await latest.textContent()).to.include('HTTP 200');
    await checkPage(page, 'dashboard-delivery-succeeded', 'en');

    // Resend that one delivery: one more attempt, with the same webhook-id, to the fixed URL.
    await page.getByRole('button', { name: 'Resend this delivery' }).click();
    await page.waitForURL(/done=resent/);
    expect(await page.locator('.done').textContent()).to.include('Delivery sent again');
    await receiver.waitFor(2, 15_000);
    expect(receiver.requests[1]?.headers['webhook-id']).to.equal(receiver.requests[0]?.headers['webhook-id']);
    await eventually(async () => {
      await page.reload();
      return (await page.locator('section.attempt h2').first().textContent()) === 'Attempt 6'
        ? true
        : undefined;
    });
    expect(await page.locator('section.attempt').first().textContent()).to.include('HTTP 200');

    // Rotate the secret: the new one is shown once, ready to copy.
    await page.getByRole('link', { name: 'Back to the integration' }).click();
    const before = await engine.app.ctx.pool.query<{ secret: string }>(
      "SELECT config->>'secret' AS secret FROM integrations WHERE id = $1",
      [integrationId],
    );
    await page.getByRole('button', { name: 'Generate a new secret' }).click();
    // A confirmation step first: nothing changed yet.
    await page.waitForURL(/\/rotate-secret\??$/);
    expect(await page.locator('#question').textContent()).to.include('keeps signing for a day');
    await page.getByRole('button', { name: 'Generate a new secret' }).click();
    const shown = await page.locator('#new-secret').inputValue();
    noteSecret(shown);
    expect(shown).to.match(/^whsec_/);
    expect(shown).not.to.equal(before.rows[0]?.secret);
    await checkPage(page, 'dashboard-new-secret', 'en');
    await page.goto(at(`/integrations/${integrationId}`));
    expect(await page.locator('#new-secret').count(), 'shown once').to.equal(0);
    expect(await page.content()).not.to.include(shown);

    // Sign out: the same cookie no longer opens anything.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/sign-in\?done=signed_out/);
    expect(await page.locator('.done').textContent()).to.include('You signed out');
    const reuse = await context.request.get(at('/integrations'), {
      headers: { cookie: `plinks_dashboard=${session?.value ?? ''}` },
      maxRedirects: 0,
    });
    expect(reuse.status()).to.equal(303);
    await page.goto(at(`/integrations/${integrationId}`));
    expect(new URL(page.url()).pathname).to.equal('/dashboard/sign-in');
    await context.close();
  });

  it('shows every page in Portuguese, passing axe at both widths', async () => {
    const context = await browserIn(browser, 'pt-BR');
    const page = await signIn(context, tenant.panel_token, 'pt-BR');
    await checkPage(page, 'dashboard-integrations', 'pt-BR');
    expect(await page.locator('h1').textContent()).to.equal('Integrações');
    await page.goto(at(`/integrations/${integrationId}`));
    await checkPage(page, 'dashboard-integration', 'pt-BR');
    await page.goto(at(`/integrations/${integrationId}/deliveries/${deliveryId}`));
    await checkPage(page, 'dashboard-delivery', 'pt-BR');
    // The language switch keeps the page and carries the choice through its links.
    await page.getByRole('link', { name: 'English' }).click();
    expect(await page.getAttribute('html', 'lang')).to.equal('en');
    await page.getByRole('link', { name: 'Back to the integration' }).click();
    expect(page.url()).to.match(/lang=en$/);
    await context.close();
  });

  it('shows its error pages in each language, in the page’s own words, passing axe at both widths', async () => {
    await inEachLanguage(async (page, lang) => {
      const missing = await page.goto(at('/integrations/999999'));
      expect(missing?.status()).to.equal(404);
      await checkPage(page, 'dashboard-error-404', lang);
      const bad = await page.goto(at(`/integrations/${integrationId}?status=lost`));
      expect(bad?.status()).to.equal(400);
      await checkPage(page, 'dashboard-error-400', lang);
      const said = (await page.locator('main .notice').textContent()) ?? '';
      if (lang === 'pt-BR') expect(said).not.to.match(/\b(must|is not|Not found)\b/);
    });
    const context = await browserIn(browser, 'pt-BR');
    const page = await signIn(context, tenant.keys.read_only, 'pt-BR');
    const refused = await page.goto(at('/integrations/new'));
    expect(refused?.status()).to.equal(403);
    await checkPage(page, 'dashboard-error-403', 'pt-BR');
    await context.close();
  });

  /** `YYYY-MM-DDTHH:MM` in Brasília, `offsetMs` from now: what a person types in a datetime-local field. */
  const brasilia = (offsetMs: number): string =>
    new Date(Date.now() + offsetMs - 3 * 3_600_000).toISOString().slice(0, 16);

  it('filters the deliveries by time as well as status and event type', async () => {
    const context = await browserIn(browser, 'en-US');
    const page = await signIn(context, tenant.panel_token, 'en');
    await page.goto(at(`/integrations/${integrationId}`));
    await page.locator('#from').fill(brasilia(3_600_000));
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/from=/);
    expect(await page.locator('main').textContent()).to.include('No deliveries match these filters.');
    await page.locator('#from').fill(brasilia(-3_600_000));
    await page.locator('#to').fill(brasilia(60_000));
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/to=/);
    expect(await page.locator('tbody tr').count()).to.be.at.least(1);
    await checkPage(page, 'dashboard-integration-time-filter', 'en');
    // A span that ends before it starts is refused in the page's words.
    await page.goto(
      at(`/integrations/${integrationId}?lang=pt-BR&from=${brasilia(0)}&to=${brasilia(-3_600_000)}`),
    );
    expect(await page.locator('main .notice').textContent()).to.include('A data final precisa ser');
    expect(await page.locator('main').textContent()).not.to.include('must be');
    await context.close();
  });

  it('creates an integration with events, products and a rate limit, edits it, test-sends and deletes it', async () => {
    const hook = await new Receiver().start();
    const product = tenant.products[0];
    if (!product) throw new Error('seed has no product');
    try {
      // A refused form, in Portuguese: each problem in a sentence, never the service's English.
      await inEachLanguage(async (page, lang) => {
        await page.goto(at('/integrations/new'));
        await checkPage(page, 'dashboard-integration-new', lang);
        await page.locator('#url').fill('ftp://example.com/hook');
        await page.locator('#rate_limit_per_second').fill('5000');
        await page.evaluate("document.querySelector('main form').noValidate = true");
        await page.locator('main button[type=submit]').click();
        await page.waitForSelector('.problems');
        const rate = (await page.locator('.problems').textContent()) ?? '';
        expect(await page.locator('#rate_limit_per_second').getAttribute('aria-invalid')).to.equal('true');
        await checkPage(page, 'dashboard-integration-new-problems', lang);
        // The limit fixed, the URL is checked next (by the API's own guard).
        await page.locator('#rate_limit_per_second').fill('5');
        await page.locator('main button[type=submit]').click();
        await page.waitForSelector('#url[aria-invalid=true]');
        const url = (await page.locator('.problems').textContent()) ?? '';
        if (lang === 'pt-BR') {
          expect(rate).to.include('O limite por segundo deve ser um número inteiro de 1 a 1000');
          expect(url).to.include('A URL precisa ser um endereço https completo');
          expect(rate + url).not.to.match(/must|config\.url|rate_limit/);
        } else {
          expect(rate).to.include('The rate limit must be a whole number from 1 to 1000');
          expect(url).to.include('The URL must be a full https address');
        }
        expect(await page.locator('#url').inputValue(), 'kept as sent').to.equal('ftp://example.com/hook');
      });

      // Created as a person fills the form in.
      const context = await browserIn(browser, 'en-US');
      const page = await signIn(context, tenant.panel_token, 'en');
      await page.getByRole('link', { name: 'New integration' }).click();
      await page.locator('#type').selectOption('webhook');
      await page.locator('#url').fill(hook.url);
      await page.getByRole('checkbox', { name: 'order.paid', exact: true }).check();
      await page.getByRole('checkbox', { name: 'order.refunded', exact: true }).check();
      await page.getByRole('checkbox', { name: 'Every product, including those created later' }).uncheck();
      await page.getByRole('checkbox', { name: product.name, exact: true }).check();
      await page.locator('#rate_limit_per_second').fill('5');
      await page.getByRole('button', { name: 'Create integration' }).click();
      await page.waitForURL(/done=created/);
      expect(await page.locator('.done').textContent()).to.include('Integration created.');
      const id = Number(/\/integrations\/(\d+)/.exec(page.url())?.[1]);
      const stored = async () =>
        (
          await engine.app.ctx.pool.query<{
            events: string[];
            send_to_all_products: boolean;
            rate_limit_per_second: number | null;
            products: number[];
          }>(
            `SELECT events, send_to_all_products, rate_limit_per_second,
                    ARRAY(SELECT product_id FROM integration_products WHERE integration_id = i.id) AS products
               FROM integrations i WHERE id = $1`,
            [id],
          )
        ).rows[0];
      expect(await stored()).to.deep.equal({
        events: ['order.paid', 'order.refunded'],
        send_to_all_products: false,
        rate_limit_per_second: 5,
        products: [product.id],
      });

      // Its events, products and rate limit changed.
      await page.getByRole('checkbox', { name: 'order.refunded', exact: true }).uncheck();
      await page.getByRole('checkbox', { name: product.name, exact: true }).uncheck();
      await page.getByRole('checkbox', { name: 'Every product, including those created later' }).check();
      await page.locator('#rate_limit_per_second').fill('');
      await page.getByRole('button', { name: 'Save events, products and rate limit' }).click();
      await page.waitForURL(/done=saved/);
      expect(await stored()).to.deep.equal({
        events: ['order.paid'],
        send_to_all_products: true,
        rate_limit_per_second: null,
        products: [],
      });

      // A test send: the receiver gets a signed test event, and the page says what it answered.
      await page.locator('#test-event').selectOption('order.paid');
      await page.getByRole('button', { name: 'Send test' }).click();
      await page.waitForSelector('#test-outcome');
      expect(await page.locator('#test-outcome').textContent()).to.match(
        /Test order\.paid delivered: the receiver answered HTTP 200 in \d+ ms\./,
      );
      expect(hook.requests).to.have.length(1);
      expect(JSON.parse(hook.requests[0]?.body ?? '{}')).to.include({ type: 'order.paid', test: true });
      await checkPage(page, 'dashboard-integration-tested', 'en');

      // Deleted after a confirmation; going back first changes nothing.
      await page.getByRole('button', { name: 'Delete the integration' }).click();
      await page.waitForURL(/\/delete\??$/);
      expect(await page.locator('#question').textContent()).to.include(hook.url);
      await checkPage(page, 'dashboard-confirm-delete', 'en');
      await page.getByRole('link', { name: 'No, go back' }).click();
      await page.waitForURL(new RegExp(`/integrations/${id}$`));
      expect(await stored()).not.to.equal(undefined);
      await page.getByRole('button', { name: 'Delete the integration' }).click();
      await page.getByRole('button', { name: 'Yes, delete the integration' }).click();
      await page.waitForURL(/\/integrations\?done=deleted$/);
      expect(await page.locator('.done').textContent()).to.include('Integration deleted.');
      expect(await stored()).to.equal(undefined);
      await context.close();

      const pt = await browserIn(browser, 'pt-BR');
      const ptPage = await signIn(pt, tenant.panel_token, 'pt-BR');
      await ptPage.goto(at(`/integrations/${integrationId}/delete`));
      expect(await ptPage.locator('h1').textContent()).to.equal('Excluir a integração');
      await checkPage(ptPage, 'dashboard-confirm-delete', 'pt-BR');
      await ptPage.goto(at(`/integrations/${integrationId}/rotate-secret`));
      await checkPage(ptPage, 'dashboard-confirm-rotate', 'pt-BR');
      await pt.close();
    } finally {
      await hook.close();
    }
  });

  it('rotates a secret and copies it', async () => {
    for (const [locale, lang, rotate, copied] of [
      ['pt-BR', 'pt-BR', 'Gerar novo segredo', 'Copiado.'],
      ['en-US', 'en', 'Generate a new secret', 'Copied.'],
    ] as const) {
      const context = await browserIn(browser, locale);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: engine.app.url });
      const page = await signIn(context, tenant.panel_token, lang);
      await page.goto(at(`/integrations/${integrationId}`));
      await page.getByRole('button', { name: rotate }).click();
      await page.waitForURL(/\/rotate-secret\??$/);
      await checkPage(page, 'dashboard-confirm-rotate', lang);
      await page.getByRole('button', { name: rotate }).click();
      const shown = await page.locator('#new-secret').inputValue();
      noteSecret(shown);
      const copy = page.locator('button[data-copy=new-secret]');
      expect(await copy.isVisible(), 'the copy button shows once the script runs').to.equal(true);
      await copy.click();
      await page.locator('#new-secret-copied', { hasText: copied }).waitFor();
      const clipboard: unknown = await page.evaluate('navigator.clipboard.readText()');
      expect(clipboard).to.equal(shown);
      await checkPage(page, 'dashboard-new-secret-copied', lang);
      await context.close();
    }
    // Without script the value is still there, as selectable text, and no dead button shows.
    const noScript = await browser.newContext({ javaScriptEnabled: false, locale: 'en-US' });
    const page = await noScript.newPage();
    await page.goto(at('/sign-in'));
    await page.locator('#credential').fill(tenant.panel_token);
    await page.locator('main button[type=submit]').click();
    await page.waitForURL(/\/dashboard$/);
    await page.goto(at(`/integrations/${integrationId}`));
    await page.getByRole('button', { name: 'Generate a new secret' }).click();
    await page.getByRole('button', { name: 'Generate a new secret' }).click();
    const shown = await page.locator('#new-secret').inputValue();
    noteSecret(shown);
    expect(shown).to.match(/^whsec_/);
    expect(await page.locator('button[data-copy=new-secret]').isVisible()).to.equal(false);
    await noScript.close();
  });

  it('refunds a paid order from the orders list', async () => {
    const { order } = await checkout(engine.app, tenant, activeOffer(tenant).code, null, {
      payment_method: 'credit_card',
    });
    expect(order.status).to.equal('paid');
    await inEachLanguage(async (page, lang) => {
      await page.goto(at('/orders'));
      await checkPage(page, 'dashboard-orders', lang);
      await page.goto(at(`/orders/${order.code}/refund`));
      await checkPage(page, 'dashboard-confirm-refund', lang);
    });
    const context = await browserIn(browser, 'en-US');
    const page = await signIn(context, tenant.panel_token, 'en');
    await page.getByRole('link', { name: 'Orders' }).click();
    await page.locator('#status').selectOption('paid');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/status=paid/);
    const row = page.locator('tbody tr', { hasText: order.code });
    expect(await row.textContent()).to.include('Paid');
    await row.getByRole('button', { name: `Refund order ${order.code}` }).click();
    await page.waitForURL(/\/refund\??$/);
    expect(await page.locator('#question').textContent()).to.include(order.code);
    await page.getByRole('button', { name: 'Yes, refund' }).click();
    await page.waitForURL(/done=refunded/);
    expect(await page.locator('.done').textContent()).to.include('Order refunded.');
    const refunded = page.locator('tbody tr', { hasText: order.code });
    expect(await refunded.textContent()).to.include('Refunded');
    expect(await refunded.locator('button').count()).to.equal(0);
    await checkPage(page, 'dashboard-orders-refunded', 'en');
    const { rows } = await engine.app.ctx.pool.query<{ status: string }>(
      'SELECT status FROM orders WHERE code = $1',
      [order.code],
    );
    expect(rows[0]?.status).to.equal('refunded');
    await context.close();
  });

  it('cancels a subscription at the period end, then at once', async () => {
    const plan = tenant.plans.find((p) => p.status === 'active');
    if (!plan) throw new Error('seed has no active plan');
    await checkout(engine.app, tenant, plan.code, null, { payment_method: 'credit_card' });
    const { rows } = await engine.app.ctx.pool.query<{ id: string }>(
      "SELECT id FROM subscriptions WHERE company_id = $1 AND status = 'active' ORDER BY id DESC LIMIT 1",
      [tenant.company.id],
    );
    const id = Number(rows[0]?.id);
    await inEachLanguage(async (page, lang) => {
      await page.goto(at('/subscriptions'));
      await checkPage(page, 'dashboard-subscriptions', lang);
      await page.goto(at(`/subscriptions/${id}/cancel?at_period_end=true`));
      await checkPage(page, 'dashboard-confirm-cancel', lang);
    });
    const context = await browserIn(browser, 'en-US');
    const page = await signIn(context, tenant.panel_token, 'en');
    await page.getByRole('link', { name: 'Subscriptions' }).click();
    await page.getByRole('button', { name: `Cancel at period end: subscription ${id}` }).click();
    await page.waitForURL(/\/cancel\?at_period_end=true$/);
    await page.getByRole('button', { name: 'Cancel at period end' }).click();
    await page.waitForURL(/done=cancel_scheduled/);
    const row = page.locator('tbody tr', { hasText: 'Ends at the period end' });
    expect(await row.count()).to.equal(1);
    expect(await row.textContent()).to.include('Active');
    expect((await row.getByRole('button').allTextContents()).map((l) => l.trim())).to.deep.equal([
      'Cancel now',
    ]);
    await row.getByRole('button', { name: `Cancel now: subscription ${id}` }).click();
    await page.waitForURL(/\/cancel\??$/);
    await page.getByRole('button', { name: 'Cancel now' }).click();
    await page.waitForURL(/done=canceled/);
    expect(await page.locator('.done').textContent()).to.include('Subscription canceled.');
    await checkPage(page, 'dashboard-subscriptions-canceled', 'en');
    const after = await engine.app.ctx.pool.query<{ status: string }>(
      'SELECT status FROM subscriptions WHERE id = $1',
      [id],
    );
    expect(after.rows[0]?.status).to.equal('canceled');
    await context.close();
  });

  it('creates an API key shown once, signs in with it, and revokes it, which ends its session', async () => {
    const { rows: keyRows } = await engine.app.ctx.pool.query<{ id: string }>(
      'SELECT id FROM api_keys WHERE company_id = $1 AND revoked_at IS NULL ORDER BY id LIMIT 1',
      [tenant.company.id],
    );
    await inEachLanguage(async (page, lang) => {
      await page.goto(at('/keys'));
      await checkPage(page, 'dashboard-keys', lang);
      await page.goto(at(`/keys/${keyRows[0]?.id ?? 0}/revoke`));
      await checkPage(page, 'dashboard-confirm-revoke', lang);
    });
    const owner = await browserIn(browser, 'en-US');
    await owner.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: engine.app.url });
    const page = await signIn(owner, tenant.panel_token, 'en');
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.locator('#key-name').fill('Reporting dashboard');
    await page.locator('#key-kind').selectOption('read_only');
    await page.locator('#key-mode').selectOption('test');
    await page.getByRole('button', { name: 'Create key' }).click();
    const value = await page.locator('#new-key').inputValue();
    noteSecret(value);
    expect(value).to.match(/^vk_test_/);
    await page.locator('button[data-copy=new-key]').click();
    await page.locator('#new-key-copied', { hasText: 'Copied.' }).waitFor();
    const clipboard: unknown = await page.evaluate('navigator.clipboard.readText()');
    expect(clipboard, 'the copied key').to.equal(value);
    await checkPage(page, 'dashboard-new-key', 'en');
    const row = page.locator('tbody tr', { hasText: 'Reporting dashboard' });
    expect(await row.textContent()).to.include(value.slice(-4));
    await page.goto(at('/keys'));
    expect(await page.content(), 'shown once').not.to.include(value);

    // The new key signs in, read-only.
    const reader = await browserIn(browser, 'en-US');
    const readerPage = await signIn(reader, value, 'en');
    expect(await readerPage.locator('.who').textContent()).to.equal('Signed in as read-only');

    // Revoked by the owner: the key's session ends at once.
    await page
      .locator('tbody tr', { hasText: 'Reporting dashboard' })
      .getByRole('button', { name: 'Revoke key Reporting dashboard' })
      .click();
    await page.waitForURL(/\/revoke\??$/);
    expect(await page.locator('#question').textContent()).to.include('Reporting dashboard');
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.waitForURL(/done=revoked/);
    expect(await page.locator('tbody tr', { hasText: 'Reporting dashboard' }).textContent()).to.include(
      'Revoked',
    );
    await readerPage.reload();
    expect(new URL(readerPage.url()).pathname).to.equal('/dashboard/sign-in');
    await reader.close();
    await owner.close();
  });

  it('shows a read-only key no button that changes anything, and answers 403 if it posts anyway', async () => {
    const context = await browserIn(browser, 'en-US');
    const page = await signIn(context, tenant.keys.read_only, 'en');
    for (const path of [
      '/integrations',
      `/integrations/${integrationId}`,
      `/integrations/${integrationId}/deliveries/${deliveryId}`,
      '/orders',
      '/subscriptions',
      '/keys',
    ]) {
      await page.goto(at(path));
      const posts = await page
        .locator('form[method=post]')
        .evaluateAll((forms) => forms.map((f) => f.getAttribute('action')));
      expect(posts, path).to.deep.equal(['/dashboard/sign-out']);
      expect(await page.locator('main button').allTextContents(), path).to.satisfy((labels: string[]) =>
        labels.every((l) => l === 'Filter'),
      );
      // Nor a link to a page that only leads to a change (the create form, a confirmation).
      const links = await page
        .locator('main a')
        .evaluateAll((anchors) => anchors.map((a) => a.getAttribute('href')));
      expect(
        links.filter((href) => /\/(new|delete|rotate-secret|refund|cancel|revoke)\b/.test(href ?? '')),
        path,
      ).to.deep.equal([]);
    }
    await checkPage(page, 'dashboard-delivery-read-only', 'en');
    const csrf = await page.locator('input[name=_csrf]').first().inputValue();
    const before = await engine.app.ctx.pool.query<{ config: unknown }>(
      'SELECT config FROM integrations WHERE id = $1',
      [integrationId],
    );
    const posted = await context.request.post(at(`/integrations/${integrationId}/rotate-secret`), {
      form: { _csrf: csrf },
      maxRedirects: 0,
    });
    expect(posted.status()).to.equal(403);
    const after = await engine.app.ctx.pool.query<{ config: unknown }>(
      'SELECT config FROM integrations WHERE id = $1',
      [integrationId],
    );
    expect(after.rows).to.deep.equal(before.rows);
    await context.close();
  });

  it('refuses a POST from another site, even one that carries the session’s CSRF token', async () => {
    const context = await browserIn(browser, 'en-US');
    const page = await signIn(context, tenant.panel_token, 'en');
    await page.goto(at(`/integrations/${integrationId}`));
    const csrf = await page.locator('input[name=_csrf]').first().inputValue();
    const target = at(`/integrations/${integrationId}/rotate-secret`);
    await page.route('http://attacker.example/**', (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><html lang="en"><title>Win a prize</title><form method="post" action="${target}"><input type="hidden" name="_csrf" value="${csrf}"><button>Claim</button></form></html>`,
      }),
    );
    const before = await engine.app.ctx.pool.query<{ config: unknown }>(
      'SELECT config FROM integrations WHERE id = $1',
      [integrationId],
    );
    await page.goto('http://attacker.example/');
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url() === target),
      page.getByRole('button', { name: 'Claim' }).click(),
    ]);
    expect(response.status()).to.equal(403);
    const after = await engine.app.ctx.pool.query<{ config: unknown }>(
      'SELECT config FROM integrations WHERE id = $1',
      [integrationId],
    );
    expect(after.rows).to.deep.equal(before.rows);
    await context.close();
  });
});
