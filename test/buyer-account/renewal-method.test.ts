import { expect } from 'chai';
import { buyerAddress } from '../helpers/smtp.js';
import { createIntegration, Receiver } from '../events/helpers.js';
import { buy, sellerWorld } from '../emails/helpers.js';
import { P } from '../orders/helpers.js';
import { Browser, csrfOf, signIn, verifiedEvents } from './helpers.js';

const SECRET = 'renewal-method-secret';

interface PaidEnvelope {
  type: string;
  data: { order: { code: string; payment_method: string }; subscription: { id: number } | null };
}

describe('The buyer’s page: switching how a subscription renews (Pix or card)', function () {
  this.timeout(90_000);
  const world = sellerWorld({ name: 'Clube do Beto' });
  const app = () => world.app;
  const receiver = new Receiver();
  before(async () => {
    await receiver.start();
    await createIntegration(app(), world.tenant, {
      url: receiver.url,
      secret: SECRET,
      events: ['order.paid'],
      sendToAllProducts: true,
    });
  });
  after(() => receiver.close());

  const paidEvents = (): PaidEnvelope[] => verifiedEvents<PaidEnvelope>(receiver, SECRET);

  /** Renews now (the dev gateway's clock) and answers the renewal's `order.paid` as the webhook got it. */
  async function renewal(id: number): Promise<PaidEnvelope> {
    const before = receiver.requests.length;
    const renewed = await app().http.post(`${P}/subscriptions/${id}/renew`, {
      auth: world.tenant.panel_token,
      body: {},
    });
    expect(renewed.status, renewed.text).to.equal(200);
    await receiver.waitFor(before + 1, 30_000);
    const event = paidEvents()
      .slice(before)
      .find((e) => e.type === 'order.paid' && e.data.subscription?.id === id);
    if (!event) throw new Error(`no order.paid of subscription ${id}`);
    return event;
  }

  /** A plan bought by card (the dev gateway pays it at once); its subscription's id. */
  async function subscribe(email: string): Promise<number> {
    const plan = world.tenant.plans.find((p) => p.status === 'active');
    const before = receiver.requests.length;
    const { order } = await buy(app(), world.tenant, {
      email,
      method: 'credit_card',
      code: plan?.code ?? '',
    });
    expect(order.status).to.equal('paid');
    await receiver.waitFor(before + 1, 30_000);
    return order.subscription_id ?? 0;
  }

  it('a subscription switched to Pix renews by Pix, and switched to card renews by card', async () => {
    const email = buyerAddress('switcher');
    const id = await subscribe(email);
    expect((await renewal(id)).data.order.payment_method, 'as bought').to.equal('credit_card');

    const browser = await signIn(app(), email);
    const account = await browser.get('/account?lang=en');
    expect(account.body).to.include(`subscriptions/${id}/method`).and.include('Renews by Credit card.');
    const form = await browser.get(`/account/subscriptions/${id}/method?lang=en`);
    expect(form.status).to.equal(200);
    expect(form.body)
      .to.match(/name="payment_method"\s+value="pix"/)
      .and.include('How it renews');
    // The dev gateway tokenizes nothing: no PSP script, no card token fields.
    expect(form.body).to.not.include('data-mp-public-key').and.not.include('card_token');

    const toPix = await browser.post(`/account/subscriptions/${id}/method?lang=en`, {
      _csrf: csrfOf(form.body),
      payment_method: 'pix',
    });
    expect(toPix.status, toPix.body.slice(0, 300)).to.equal(303);
    expect(toPix.headers.get('location')).to.include('done=method');
    expect((await browser.get('/account?lang=en')).body).to.include('Renews by Pix.');
    expect((await renewal(id)).data.order.payment_method).to.equal('pix');

    const toCard = await browser.post(`/account/subscriptions/${id}/method`, {
      _csrf: csrfOf(form.body),
      payment_method: 'credit_card',
    });
    expect(toCard.status).to.equal(303);
    expect((await renewal(id)).data.order.payment_method).to.equal('credit_card');
    // Only the two methods: a boleto or anything else is a 400, the method unchanged.
    const boleto = await browser.post(`/account/subscriptions/${id}/method`, {
      _csrf: csrfOf(form.body),
      payment_method: 'boleto',
    });
    expect(boleto.status).to.equal(400);
    // The dev gateway tokenizes nothing: a card token it never asked for is refused, not stored.
    const stray = await browser.post(`/account/subscriptions/${id}/method`, {
      _csrf: csrfOf(form.body),
      payment_method: 'pix',
      card_token: '<script>alert(1)</script>',
    });
    expect(stray.status).to.equal(400);
    expect((await renewal(id)).data.order.payment_method).to.equal('credit_card');
  });

  it('another buyer cannot switch it (404), and the form needs the session’s CSRF token', async () => {
    const owner = buyerAddress('owner');
    const id = await subscribe(owner);
    // The other buyer has a purchase of their own, so the page is theirs to use.
    const otherEmail = buyerAddress('other');
    await buy(app(), world.tenant, { email: otherEmail, method: 'pix' });
    const other = await signIn(app(), otherEmail);
    const page = await other.get('/account');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
    expect((await other.get(`/account/subscriptions/${id}/method`)).status).to.equal(404);
    const refused = await other.post(`/account/subscriptions/${id}/method`, {
      _csrf: csrf,
      payment_method: 'pix',
    });
    expect(refused.status).to.equal(404);

    const browser = await signIn(app(), owner);
    const form = await browser.get(`/account/subscriptions/${id}/method`);
    const noToken = await browser.post(`/account/subscriptions/${id}/method`, { payment_method: 'pix' });
    expect(noToken.status).to.equal(403);
    const wrongToken = await browser.post(`/account/subscriptions/${id}/method`, {
      _csrf: csrf,
      payment_method: 'pix',
    });
    expect(wrongToken.status).to.equal(403);
    const crossSite = await browser.post(
      `/account/subscriptions/${id}/method`,
      { _csrf: csrfOf(form.body), payment_method: 'pix' },
      { 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSite.status).to.equal(403);
    // Signed out: no session, no switch.
    expect(
      (await new Browser(app()).post(`/account/subscriptions/${id}/method`, { payment_method: 'pix' }))
        .status,
    ).to.equal(403);
    expect((await renewal(id)).data.order.payment_method, 'nothing switched').to.equal('credit_card');

    // Canceled, it renews no more: switching is a 409.
    await browser.post(`/account/subscriptions/${id}/cancel`, { _csrf: csrfOf(form.body), when: 'now' });
    const late = await browser.post(`/account/subscriptions/${id}/method`, {
      _csrf: csrfOf(form.body),
      payment_method: 'pix',
    });
    expect(late.status).to.equal(409);
  });
});
