import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
import { seed, sharedApp, type TestApp } from '../helpers/app.js';
import { P, panelRoles } from '../orders/helpers.js';
import { readable, send, signIn, type Session } from './helpers.js';

interface Item {
  code: string;
  name: string;
  price: string;
  status: string;
  billing_cycle?: string;
  guarantee_days?: number;
  product: { id: number };
}

/**
 * The catalog in the dashboard: created and edited as the panel API allows, read back through the
 * panel API, refused with the API's messages in the page's language.
 */
describe('dashboard catalog', function () {
  this.timeout(30_000);
  let app: TestApp;
  let tenant: SeedResult;
  let owner: Session;

  const panel = async <T>(path: string): Promise<T> =>
    (await app.http.get<T>(`${P}${path}`, { auth: tenant.panel_token })).body;

  before(async () => {
    app = await sharedApp();
    tenant = await seed();
    owner = await signIn(app, tenant.panel_token);
  });

  it('lists products, offers, plans and coupons', async () => {
    const page = await send(app, 'GET', '/catalog?lang=en', { session: owner });
    expect(page.status).to.equal(200);
    for (const p of tenant.products) expect(page.text).to.include(p.name);
    for (const o of tenant.offers) expect(page.text).to.include(o.code);
    for (const p of tenant.plans) expect(page.text).to.include(p.code);
    for (const c of tenant.coupons) expect(page.text).to.include(c.code);
  });

  it('creates and edits a product, an offer and a plan; a pt-BR price takes a decimal comma', async () => {
    const made = await send(app, 'POST', '/catalog/products', {
      session: owner,
      form: { name: 'Curso de bolos', status: 'active' },
    });
    expect(made.status, readable(made.text)).to.equal(303);
    expect(made.location).to.equal('/dashboard/catalog?done=catalog_created');
    const product = (await panel<Array<{ id: number; name: string; status: string }>>('/products')).find(
      (p) => p.name === 'Curso de bolos',
    );
    expect(product?.status).to.equal('active');
    const renamed = await send(app, 'POST', `/catalog/products/${product?.id}`, {
      session: owner,
      form: { name: 'Curso de bolos 2', status: 'active' },
    });
    expect(renamed.status, readable(renamed.text)).to.equal(303);

    const offer = await send(app, 'POST', '/catalog/offers?lang=pt-BR', {
      session: owner,
      form: {
        product_id: String(product?.id),
        name: 'À vista',
        price: '197,50',
        guarantee_days: '14',
        status: 'active',
      },
    });
    expect(offer.status, readable(offer.text)).to.equal(303);
    const offers = await panel<Item[]>('/offers');
    const created = offers.find((o) => o.name === 'À vista');
    expect(created).to.include({ price: '197.50', status: 'active', guarantee_days: 14 });
    expect(created?.product.id).to.equal(product?.id);
    const edit = await send(app, 'GET', `/catalog/offers/${created?.code}?lang=pt-BR`, { session: owner });
    expect(edit.text).to.include('value="197,50"');
    expect(edit.text).to.include('value="14"');
    const repriced = await send(app, 'POST', `/catalog/offers/${created?.code}`, {
      session: owner,
      form: { name: 'À vista', price: '99.90', status: 'inactive' },
    });
    expect(repriced.status).to.equal(303);
    expect((await panel<Item[]>('/offers')).find((o) => o.code === created?.code)).to.include({
      price: '99.90',
      status: 'inactive',
    });

    const plan = await send(app, 'POST', '/catalog/plans', {
      session: owner,
      form: {
        product_id: String(product?.id),
        name: 'Mensal',
        price: '29.90',
        billing_cycle: 'quarterly',
        status: 'active',
      },
    });
    expect(plan.status, readable(plan.text)).to.equal(303);
    expect((await panel<Item[]>('/plans')).find((p) => p.name === 'Mensal')).to.include({
      billing_cycle: 'quarterly',
      price: '29.90',
    });
  });

  it('refuses with the API’s messages, in English and in Portuguese', async () => {
    const product = tenant.products[0]?.id ?? 0;
    const form = { product_id: String(product), name: '', price: '9.999', status: 'active' };
    const en = await send(app, 'POST', '/catalog/offers?lang=en', { session: owner, form });
    expect(en.status).to.equal(400);
    expect(readable(en.text)).to.include('Name: is not allowed to be empty');
    expect(readable(en.text)).to.include(
      'Price: must be a decimal amount with at most two decimals, such as "97.00"',
    );
    expect(en.text).to.match(/id="price"[^>]*value="9.999"[^>]*aria-invalid="true"/);
    const pt = await send(app, 'POST', '/catalog/offers?lang=pt-BR', { session: owner, form });
    expect(readable(pt.text)).to.include('Nome: não pode ficar vazio.');
    expect(readable(pt.text)).to.include(
      'Preço: deve ser um valor com no máximo duas casas decimais, como 97,00.',
    );

    const both = await send(app, 'POST', '/catalog/coupons?lang=en', {
      session: owner,
      form: { code: 'BOTH', percent_off: '10', amount_off: '5', status: 'active' },
    });
    expect(both.status).to.equal(400);
    expect(readable(both.text)).to.include('Discount in %: send exactly one of percent_off and amount_off');
  });

  it('creates a coupon, refuses a code taken, and deactivates it', async () => {
    const made = await send(app, 'POST', '/catalog/coupons', {
      session: owner,
      form: { code: 'NATAL10', percent_off: '10', status: 'active' },
    });
    expect(made.status, readable(made.text)).to.equal(303);
    const again = await send(app, 'POST', '/catalog/coupons?lang=pt-BR', {
      session: owner,
      form: { code: 'NATAL10', amount_off: '5,00', status: 'active' },
    });
    expect(again.status).to.equal(400);
    expect(readable(again.text)).to.include('Código: a empresa já tem um cupom com esse código.');
    const off = await send(app, 'POST', '/catalog/coupons/NATAL10/status', {
      session: owner,
      form: { status: 'inactive' },
    });
    expect(off.status).to.equal(303);
    const coupons =
      await panel<Array<{ code: string; status: string; percent_off: string | null }>>('/coupons');
    expect(coupons.find((c) => c.code === 'NATAL10')).to.include({
      status: 'inactive',
      percent_off: '10.00',
    });
  });

  it('shows read-only sign-ins every catalog page and no form that changes anything (403 if they try)', async () => {
    const roles = await panelRoles(app, tenant);
    const offer = tenant.offers[0]?.code ?? '';
    const product = tenant.products[0]?.id ?? 0;
    const forms = [
      '/catalog/products/new',
      `/catalog/products/${product}`,
      '/catalog/offers/new',
      `/catalog/offers/${offer}`,
      '/catalog/plans/new',
      '/catalog/coupons/new',
    ];
    for (const [role, credential] of Object.entries(roles)) {
      const session = await signIn(app, credential);
      const can = role !== 'readOnly';
      const page = await send(app, 'GET', '/catalog?lang=en', { session });
      expect(page.status, role).to.equal(200);
      const posts = [...page.text.matchAll(/<form method="post" action="([^"]+)"/g)]
        .map((m) => m[1])
        .filter((a) => !a?.includes('/sign-out'));
      expect(posts.length > 0, role).to.equal(can);
      expect(page.text.includes('/catalog/products/new'), role).to.equal(can);
      for (const path of forms)
        expect((await send(app, 'GET', path, { session })).status, `${role} ${path}`).to.equal(
          can ? 200 : 403,
        );
      if (!can) {
        for (const path of [
          '/catalog/products',
          `/catalog/offers/${offer}`,
          '/catalog/coupons',
          `/catalog/coupons/${tenant.coupons[0]?.code}/status`,
        ]) {
          const post = await send(app, 'POST', path, { session, form: { name: 'x', status: 'active' } });
          expect(post.status, `read-only POST ${path}`).to.equal(403);
        }
      }
    }
  });
});
