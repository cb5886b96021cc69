import { expect } from 'chai';
import { sharedApp, seed, type TestApp } from '../helpers/app.js';
import type { SeedResult } from '../../src/cli/seed.js';

// PostgreSQL text and jsonb cannot hold U+0000: one guard in front of every surface answers 4xx.
describe('the NUL character (U+0000) in any request', () => {
  let app: TestApp;
  let tenant: SeedResult;

  before(async () => {
    app = await sharedApp();
    tenant = await seed();
  });

  it('is refused in a panel body with 400 naming the nested field, and nothing is written', async () => {
    const res = await app.http.post('/panel/v1/integrations/', {
      auth: tenant.panel_token,
      body: {
        type: 'webhook',
        config: { url: 'http://127.0.0.1:9/hook', secret: 'a\u0000b' },
        events: ['order.paid'],
      },
    });
    expect(res.status).to.equal(400);
    expect(res.body).to.have.nested.property('error.fields').that.has.key('config.secret');
    const list = await app.http.get<unknown[]>('/panel/v1/integrations/', { auth: tenant.panel_token });
    expect(list.body).to.deep.equal([]);
  });

  it('is refused in a panel key name and a product name with 400 under the field', async () => {
    const key = await app.http.post('/panel/v1/api-keys', {
      auth: tenant.panel_token,
      body: { name: 'ci\u0000', kind: 'payments', test: true },
    });
    expect(key.status).to.equal(400);
    expect(key.body).to.have.nested.property('error.fields').that.has.key('name');
    const product = await app.http.post('/panel/v1/products', {
      auth: tenant.panel_token,
      body: { name: 'x\u0000' },
    });
    expect(product.status).to.equal(400);
  });

  it('in a path names nothing: 404 on the payments and panel APIs', async () => {
    const simulate = await app.http.post('/v1/payment-links/%00/simulate', {
      auth: tenant.keys.test,
      body: { outcome: 'paid' },
    });
    expect(simulate.status).to.equal(404);
    expect(simulate.body).to.have.nested.property('error.type', 'not_found');
    const offer = await app.http.patch('/panel/v1/offers/%00', {
      auth: tenant.panel_token,
      body: { name: 'x' },
    });
    expect(offer.status).to.equal(404);
  });

  it('on the buyer pages answers a 404 page for a path and a 400 page for a form field, never a 500', async () => {
    const page = await app.http.get('/pay/%00', { unvalidated: true });
    expect(page.status).to.equal(404);
    const offer = tenant.offers.find((o) => o.status === 'active');
    const form = await app.http.post(`/pay/${offer?.code ?? ''}/pay`, {
      rawBody: 'name=a%00b&email=buyer%40example.com',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      unvalidated: true,
    });
    expect(form.status).to.equal(400);
  });
});
