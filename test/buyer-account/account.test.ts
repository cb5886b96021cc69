import { expect } from 'chai';
import { seed } from '../helpers/app.js';
import { buyerAddress } from '../helpers/smtp.js';
import { eventually } from '../helpers/eventually.js';
import { buy, mailTo, panelOrder, sellerWorld, smtp } from '../emails/helpers.js';
import { send, signIn as dashboardSignIn } from '../dashboard/helpers.js';
import { askForLink, Browser, csrfOf, signIn, signInToken, useLink } from './helpers.js';

/** The text of a page with tags removed and spaces collapsed. */
const textOf = (page: string): string =>
  page
    .replace(/<[^>]*>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ');

describe("The buyer's page: sign-in by e-mail link, purchases across companies, the right of regret", function () {
  this.timeout(90_000);
  const world = sellerWorld({ name: 'Loja da Ana' });
  const app = () => world.app;

  it('signs a buyer in from the receipt’s link and lists their live orders of two companies, newest first, no one else’s', async () => {
    const other = await seed({ name: 'Editora Beta' });
    const email = buyerAddress('bia');
    const first = await buy(app(), world.tenant, { email, method: 'credit_card', name: 'Bia' });
    expect(first.order.status).to.equal('paid');
    const second = await buy(app(), other, { email, method: 'pix', name: 'Bia' });
    const stranger = await buy(app(), world.tenant, { method: 'credit_card' });
    // A test-mode order of the same address never appears (written as a test checkout would leave it).
    const { rows: testOrders } = await app().ctx.pool.query<{ code: string }>(
      `INSERT INTO orders (code, company_id, livemode, product_id, offer_id, status, amount, payment_method, paid_at, customer)
       SELECT gen_random_uuid(), company_id, false, product_id, offer_id, 'paid', amount, payment_method, paid_at, customer
         FROM orders WHERE code = $1 RETURNING code`,
      [first.order.code],
    );
    expect(testOrders, 'the test-mode order exists').to.have.length(1);

    // The receipt links to the buyer's page.
    const receipt = await mailTo(email, /^Recibo: /);
    const accountLink = /(https?:\/\/\S+\/account\?lang=pt-BR)/.exec(receipt.parsed.text ?? '')?.[1];
    expect(accountLink, receipt.parsed.text).to.be.a('string');
    const browser = new Browser(app());
    const entry = await browser.get(
      new URL(accountLink ?? '').pathname.replace(/^\/pay/, '') + '?lang=pt-BR',
    );
    expect(entry.status).to.equal(200);
    expect(textOf(entry.body)).to.include('Enviar o link');
    const asked = await browser.post('/account/link?lang=pt-BR', { _csrf: csrfOf(entry.body), email });
    expect(asked.status).to.equal(200);
    expect(textOf(asked.body)).to.include('Se houver compras com este e-mail');

    const token = await signInToken(email);
    const used = await useLink(browser, token);
    expect(used.status).to.equal(303);
    expect(used.headers.get('location')).to.match(/account(\?|$)/);
    const cookie = used.headers.getSetCookie().find((c) => c.startsWith('plinks_buyer='));
    expect(cookie)
      .to.match(/HttpOnly/i)
      .and.match(/SameSite=Strict/i)
      .and.match(/Path=\/pay\/account/);
    expect(cookie, 'never the dashboard’s cookie').to.not.match(/plinks_dashboard/);

    const page = await browser.get('/account?lang=pt-BR');
    expect(page.status).to.equal(200);
    const text = textOf(page.body);
    expect(text).to.include(first.order.code).and.include(second.order.code);
    expect(text).to.not.include(stranger.order.code);
    expect(text).to.not.include(testOrders[0]?.code ?? 'x');
    expect(text).to.include('Loja da Ana').and.include('Editora Beta');
    // Newest first: the second purchase (Pix, pending) before the first (card, paid).
    expect(text.indexOf(second.order.code)).to.be.lessThan(text.indexOf(first.order.code));
    expect(text).to.include('Aguardando pagamento').and.include('Pago');
    expect(text).to.include(second.order.pix?.copy_paste ?? 'no pix code');
    expect(page.body).to.include(`orders/${first.order.code}`);
    // The message was filed under the latest purchase's company, and forgot the link once sent.
    const { rows } = await app().ctx.pool.query<{ data: object; state: string }>(
      `SELECT data, state FROM email_messages WHERE kind = 'sign_in' AND recipient = $1`,
      [email],
    );
    expect(rows).to.deep.equal([{ data: {}, state: 'sent' }]);
    const { rows: links } = await app().ctx.pool.query<{ token_hash: string }>(
      'SELECT token_hash FROM buyer_sign_in_links WHERE email = $1',
      [email],
    );
    expect(links[0]?.token_hash)
      .to.match(/^[0-9a-f]{64}$/)
      .and.not.equal(token);
  });

  it('answers an unknown address as a known one, and mails it nothing', async () => {
    const known = buyerAddress('known');
    await buy(app(), world.tenant, { email: known, method: 'credit_card' });
    const unknown = buyerAddress('nobody');
    const a = await askForLink(new Browser(app()), known);
    const b = await askForLink(new Browser(app()), unknown);
    expect([a.status, b.status]).to.deep.equal([200, 200]);
    expect(a.body).to.equal(b.body);
    await signInToken(known);
    await world.engine.workers.sweeps.outbox.runsFromNow(1);
    expect(smtp().to(unknown)).to.have.length(0);
  });

  it('refuses a replayed link and an expired one', async () => {
    const email = buyerAddress('replay');
    await buy(app(), world.tenant, { email, method: 'credit_card' });
    const browser = new Browser(app());
    await askForLink(browser, email);
    const token = await signInToken(email);
    expect((await useLink(browser, token)).status).to.equal(303);
    const replay = await useLink(new Browser(app()), token);
    expect(replay.status).to.equal(400);
    expect(textOf(replay.body)).to.include('Este link não vale mais');
    expect(replay.headers.getSetCookie().some((c) => c.startsWith('plinks_buyer='))).to.equal(false);

    await askForLink(new Browser(app()), email);
    const late = await signInToken(email, 2);
    await app().ctx.pool.query(
      `UPDATE buyer_sign_in_links SET expires_at = now() - interval '1 second' WHERE email = $1 AND used_at IS NULL`,
      [email],
    );
    const expired = await useLink(new Browser(app()), late);
    expect(expired.status).to.equal(400);
    // A made-up token too.
    expect((await useLink(new Browser(app()), 'x'.repeat(43))).status).to.equal(400);
  });

  it('limits link requests: 5 an hour per address (known or not) and 30 per IP', async () => {
    const address = buyerAddress('limit');
    for (let i = 0; i < 5; i += 1)
      expect((await askForLink(new Browser(app(), `198.51.100.${i + 1}`), address)).status).to.equal(200);
    const sixth = await askForLink(new Browser(app(), '198.51.100.9'), address);
    expect(sixth.status).to.equal(429);
    expect(Number(sixth.headers.get('retry-after'))).to.be.greaterThan(0);
    const crowd = new Browser(app(), '203.0.113.77');
    for (let i = 0; i < 30; i += 1)
      expect((await askForLink(crowd, buyerAddress('ip'))).status).to.equal(200);
    expect((await askForLink(crowd, buyerAddress('ip'))).status).to.equal(429);
  });

  it('refuses posts without the form’s token, and from another site', async () => {
    const email = buyerAddress('csrf');
    const { order } = await buy(app(), world.tenant, { email, method: 'credit_card' });
    const fresh = new Browser(app());
    expect((await fresh.post('/account/link', { email })).status, 'no form token').to.equal(403);
    const browser = await signIn(app(), email);
    const refund = `/account/orders/${order.code}/refund`;
    expect((await browser.post(refund, { reason: 'x' })).status).to.equal(403);
    const page = await browser.get('/account');
    expect(
      (await browser.post(refund, { _csrf: csrfOf(page.body) }, { 'sec-fetch-site': 'cross-site' })).status,
    ).to.equal(403);
    expect((await panelOrder(app(), world.tenant, order.code)).status).to.equal('paid');
  });

  it('refunds on day 6 of the guarantee (order.refunded, the reason on the dashboard) and refuses on day 8, naming the seller’s contact', async () => {
    const email = buyerAddress('regret');
    const six = (await buy(app(), world.tenant, { email, method: 'credit_card' })).order;
    const eight = (await buy(app(), world.tenant, { email, method: 'credit_card' })).order;
    await app().ctx.pool.query(`UPDATE orders SET paid_at = paid_at - interval '6 days' WHERE code = $1`, [
      six.code,
    ]);
    await app().ctx.pool.query(`UPDATE orders SET paid_at = paid_at - interval '8 days' WHERE code = $1`, [
      eight.code,
    ]);
    const browser = await signIn(app(), email);
    const page = await browser.get('/account?lang=en');
    expect(page.body).to.include(`orders/${six.code}/refund`);
    expect(page.body).to.not.include(`orders/${eight.code}/refund`);
    expect(textOf(page.body))
      .to.include('The right of regret ended on')
      .and.include('To reach Loja da Ana, write to');

    const reason = 'Não era o que eu esperava <b>mesmo</b>';
    const done = await browser.post(`/account/orders/${six.code}/refund?lang=en`, {
      _csrf: csrfOf(page.body),
      reason,
    });
    expect(done.status, done.body.slice(0, 300)).to.equal(303);
    const after = await browser.get('/account?lang=en&done=refund');
    expect(textOf(after.body)).to.include('Refunded. The money goes back the way you paid.');
    expect(after.body).to.include('Não era o que eu esperava &lt;b&gt;mesmo&lt;/b&gt;');
    const refunded = await panelOrder(app(), world.tenant, six.code);
    expect(refunded.status).to.equal('refunded');
    // The panel API's order carries who asked and the reason, as given (escaped only on pages).
    expect(refunded).to.include({ refund_requested_by: 'buyer', refund_reason: reason });
    const events = await eventually(async () => {
      const list = await app().http.get<{
        data: Array<{ type: string; data: { order?: { code: string } } }>;
      }>('/v1/events?type=order.refunded&limit=100', { auth: world.tenant.keys.live });
      return list.body.data.find((e) => e.data.order?.code === six.code);
    });
    expect(events.type).to.equal('order.refunded');

    // The seller sees who asked and why on the order's dashboard page.
    const session = await dashboardSignIn(app(), world.tenant.panel_token);
    const detail = await send(app(), 'GET', `/orders/${six.code}?lang=en`, { session });
    expect(detail.status).to.equal(200);
    expect(textOf(detail.text)).to.include('By the buyer (right of regret)').and.include("Buyer's reason");
    expect(detail.text).to.include('Não era o que eu esperava &lt;b&gt;mesmo&lt;/b&gt;');

    // Day 8: refused, the order unchanged.
    const late = await browser.post(`/account/orders/${eight.code}/refund?lang=en`, {
      _csrf: csrfOf(page.body),
      reason: '',
    });
    expect(late.status).to.equal(409);
    expect(await panelOrder(app(), world.tenant, eight.code)).to.include({
      status: 'paid',
      refund_requested_by: null,
      refund_reason: null,
    });
    // A reason over 500 characters is a 400; another buyer's order does not exist here.
    const stranger = (await buy(app(), world.tenant, { method: 'credit_card' })).order;
    expect(
      (await browser.post(`/account/orders/${stranger.code}/refund`, { _csrf: csrfOf(page.body) })).status,
    ).to.equal(404);
    expect((await panelOrder(app(), world.tenant, stranger.code)).status).to.equal('paid');
  });

  it('refuses a reason over 500 characters, leaving the order paid', async () => {
    const email = buyerAddress('long');
    const { order } = await buy(app(), world.tenant, { email, method: 'credit_card' });
    const browser = await signIn(app(), email);
    const page = await browser.get('/account');
    const answer = await browser.post(`/account/orders/${order.code}/refund`, {
      _csrf: csrfOf(page.body),
      reason: 'a'.repeat(501),
    });
    expect(answer.status).to.equal(400);
    expect((await panelOrder(app(), world.tenant, order.code)).status).to.equal('paid');
  });

  it('signs out: the session stops working at once', async () => {
    const email = buyerAddress('out');
    await buy(app(), world.tenant, { email, method: 'credit_card' });
    const browser = await signIn(app(), email);
    const cookie = browser.cookies.get('plinks_buyer') ?? '';
    const page = await browser.get('/account');
    expect((await browser.post('/account/sign-out', { _csrf: csrfOf(page.body) })).status).to.equal(303);
    const again = new Browser(app());
    again.cookies.set('plinks_buyer', cookie);
    expect(textOf((await again.get('/account')).body)).to.include('Enviar o link');
  });
});
