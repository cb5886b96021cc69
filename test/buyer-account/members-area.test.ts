import { expect } from 'chai';
import { buyerAddress } from '../helpers/smtp.js';
import { eventually } from '../helpers/eventually.js';
import { createIntegration, Receiver } from '../events/helpers.js';
import { buy, sellerWorld } from '../emails/helpers.js';
import { P } from '../orders/helpers.js';
import { send, signIn as dashboardSignIn } from '../dashboard/helpers.js';
import { Browser, csrfOf, signIn, verifiedEvents } from './helpers.js';

const SECRET = 'members-area-secret';

interface AccessEnvelope {
  type: string;
  data: {
    access: {
      product_id: number;
      customer: { email: string; name: string | null };
      order_code: string;
      subscription_id: number | null;
    };
  };
}

describe('The members_area integration (builtin): content on the buyer’s page and access events', function () {
  this.timeout(90_000);
  const world = sellerWorld({ name: 'Curso da Ana' });
  const app = () => world.app;
  const receiver = new Receiver();
  before(() => receiver.start());
  after(() => receiver.close());

  const verified = (): AccessEnvelope[] => verifiedEvents<AccessEnvelope>(receiver, SECRET);

  it('checks the config (provider builtin only) and the products’ content (https, at most 50 items)', async () => {
    const auth = world.tenant.panel_token;
    const bad = await app().http.post(`${P}/integrations/`, {
      auth,
      body: { type: 'members_area', config: { provider: 'hotmart' }, events: [] },
    });
    expect(bad.status).to.equal(400);
    expect(bad.text).to.include('config.provider');
    const product = world.tenant.products[0]?.id ?? 0;
    const http = await app().http.patch(`${P}/products/${product}`, {
      auth,
      body: { content: [{ title: 'Aula', url: 'http://example.com/aula' }] },
    });
    expect(http.status).to.equal(400);
    const cleared = await app().http.patch<{ content: unknown[] }>(`${P}/products/${product}`, {
      auth,
      body: { content: [] },
    });
    expect(cleared.status, 'an empty list clears the content').to.equal(200);
    expect(cleared.body.content).to.deep.equal([]);
    const many = Array.from({ length: 51 }, (_, n) => ({
      title: `Aula ${n}`,
      url: `https://example.com/${n}`,
    }));
    expect(
      (await app().http.patch(`${P}/products/${product}`, { auth, body: { content: many } })).status,
    ).to.equal(400);
  });

  it('edits a product’s content in the dashboard catalog, one item a line', async () => {
    const session = await dashboardSignIn(app(), world.tenant.panel_token);
    const product = world.tenant.products[1] ?? world.tenant.products[0];
    const path = `/catalog/products/${product?.id ?? 0}`;
    const saved = await send(app(), 'POST', `${path}?lang=en`, {
      session,
      form: {
        name: product?.name ?? 'x',
        status: 'active',
        content:
          'Module 1 | https://learn.example.com/m1 | Start here\nBonus | https://learn.example.com/bonus',
      },
    });
    expect(saved.status, saved.text.slice(0, 300)).to.equal(303);
    const read = await app().http.get<Array<{ id: number; content: unknown }>>(`${P}/products`, {
      auth: world.tenant.panel_token,
    });
    expect(read.body.find((p) => p.id === product?.id)?.content).to.deep.equal([
      { title: 'Module 1', url: 'https://learn.example.com/m1', description: 'Start here' },
      { title: 'Bonus', url: 'https://learn.example.com/bonus', description: '' },
    ]);
    const form = await send(app(), 'GET', `${path}?lang=en`, { session });
    expect(form.text).to.include(
      'Module 1 | https://learn.example.com/m1 | Start here\nBonus | https://learn.example.com/bonus</textarea>',
    );
    const bad = await send(app(), 'POST', `${path}?lang=en`, {
      session,
      form: {
        name: product?.name ?? 'x',
        status: 'active',
        content: 'Module 1 | ftp://learn.example.com/m1',
      },
    });
    expect(bad.status).to.equal(400);
  });

  it('grants access while paid (content on the signed-in page only) and revokes it at the refund, by webhook', async () => {
    const auth = world.tenant.panel_token;
    const offer = world.tenant.offers.find((o) => o.status === 'active');
    const productId = offer?.product_id ?? 0;
    const url = `https://cursos.example.com/aula-1?k=${Date.now()}`;
    const patched = await app().http.patch<{ content: unknown[] }>(`${P}/products/${productId}`, {
      auth,
      body: { content: [{ title: 'Aula 1', url, description: 'Boas-vindas' }] },
    });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body.content).to.deep.equal([{ title: 'Aula 1', url, description: 'Boas-vindas' }]);
    const area = await app().http.post<{ config: unknown }>(`${P}/integrations/`, {
      auth,
      body: { type: 'members_area', config: { provider: 'builtin' }, events: [], send_to_all_products: true },
    });
    expect(area.status, area.text).to.equal(201);
    expect(area.body.config).to.deep.equal({ provider: 'builtin' });
    await createIntegration(app(), world.tenant, {
      url: receiver.url,
      secret: SECRET,
      events: ['access.granted', 'access.revoked'],
      sendToAllProducts: true,
    });

    const email = buyerAddress('member');
    const { order } = await buy(app(), world.tenant, { email, method: 'credit_card', name: 'Maria' });
    expect(order.status).to.equal('paid');
    await receiver.waitFor(1, 30_000);
    const [granted] = verified();
    expect(granted?.type).to.equal('access.granted');
    expect(granted?.data.access).to.deep.equal({
      product_id: productId,
      customer: { email, name: 'Maria' },
      order_code: order.code,
      subscription_id: null,
    });

    // The order's public page never shows the content; the signed-in buyer's page does.
    const orderPage = await new Browser(app()).get(`/orders/${order.code}`);
    expect(orderPage.body).to.not.include('cursos.example.com');
    const browser = await signIn(app(), email);
    const page = await browser.get('/account');
    expect(page.body).to.include(url.replace(/&/g, '&amp;')).and.include('Aula 1').and.include('Boas-vindas');
    // Another buyer of another product sees none of it.
    const stranger = buyerAddress('stranger');
    await buy(app(), world.tenant, { email: stranger, method: 'credit_card' });
    // (Same product here: the stranger holds access too, through their own order, and the page shows it.)
    expect((await (await signIn(app(), stranger)).get('/account')).body).to.include('Aula 1');

    const refunded = await browser.post(`/account/orders/${order.code}/refund`, {
      _csrf: csrfOf(page.body),
      reason: 'desisti',
    });
    expect(refunded.status).to.equal(303);
    await receiver.waitFor(3, 30_000);
    const kinds = verified()
      .filter((e) => e.data.access.customer.email === email)
      .map((e) => e.type);
    expect(kinds).to.deep.equal(['access.granted', 'access.revoked']);
    const after = await browser.get('/account');
    expect(after.body).to.not.include('cursos.example.com');
    expect(after.body).to.include(order.code);
  });

  it('ends a subscription’s access when its canceled period ends (access.revoked), not before', async () => {
    const plan = world.tenant.plans.find((p) => p.status === 'active');
    const lesson = { title: 'Lição do clube', url: 'https://clube.example.com/1' };
    const set = await app().http.patch(`${P}/products/${plan?.product_id ?? 0}`, {
      auth: world.tenant.panel_token,
      body: { content: [lesson] },
    });
    expect(set.status).to.equal(200);
    const email = buyerAddress('subscriber');
    const { order } = await buy(app(), world.tenant, {
      email,
      method: 'credit_card',
      code: plan?.code ?? '',
    });
    const id = order.subscription_id ?? 0;
    const mine = () => verified().filter((e) => e.data.access.customer.email === email);
    await eventually(() => (mine().length === 1 ? true : undefined), 30_000);
    expect(mine()[0]?.data.access).to.include({ order_code: order.code, subscription_id: id });
    const browser = await signIn(app(), email);
    const page = await browser.get('/account');
    await browser.post(`/account/subscriptions/${id}/cancel`, {
      _csrf: csrfOf(page.body),
      when: 'period_end',
    });
    // Still within the period: the content stays.
    expect((await browser.get('/account')).body).to.include('Lição do clube');
    // The period ends (the panel's renew-now runs the charge due, which cancels instead).
    const ended = await app().http.post(`${P}/subscriptions/${id}/renew`, {
      auth: world.tenant.panel_token,
      body: { outcome: 'paid' },
    });
    expect(ended.status, ended.text).to.equal(200);
    await eventually(() => (mine().length === 2 ? true : undefined), 30_000);
    expect(mine().map((e) => e.type)).to.deep.equal(['access.granted', 'access.revoked']);
    expect((await browser.get('/account')).body).to.not.include('Lição do clube');
  });
});
