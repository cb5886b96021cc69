import { expect } from 'chai';
import { sharedApp, seed, type TestApp } from '../helpers/app.js';
import type { SeedResult } from '../../src/cli/seed.js';
import { expectError, P, webhook, type IntegrationBody, type IntegrationProductBody } from './helpers.js';

interface ProductBody {
  id: number;
  code: string;
  name: string;
  status: string;
}

describe('panel integration product links and the product_ids cache', () => {
  let app: TestApp;

  before(async () => {
    app = await sharedApp();
  });

  /** A tenant with one webhook integration; products[0] and products[1] come from the seed. */
  async function setup(overrides: Record<string, unknown> = {}) {
    const t = await seed();
    const integration = (
      await app.http.post<IntegrationBody>(`${P}/integrations/`, {
        auth: t.panel_token,
        body: webhook(overrides),
      })
    ).body;
    const [a, b] = t.products as [SeedResult['products'][number], SeedResult['products'][number]];
    const auth = t.panel_token;
    const base = `${P}/integrations/${integration.id}`;
    const productIds = async (): Promise<number[]> =>
      (await app.http.get<IntegrationBody>(base, { auth })).body.product_ids;
    const link = (productId: number) =>
      app.http.post<IntegrationProductBody>(`${base}/products`, { auth, body: { product_id: productId } });
    return { t, auth, base, integration, a, b, productIds, link };
  }

  it('links a product (201 IntegrationProduct), lists it, shows it in products, and adds it to product_ids', async () => {
    const { auth, base, a, productIds, link } = await setup();
    const res = await link(a.id);
    expect(res.status).to.equal(201);
    expect(res.body).to.include({
      product: a.id,
      product_code: a.code,
      product_name: a.name,
      is_active: true,
    });
    expect(new Date(res.body.created_at).toISOString()).to.equal(res.body.created_at);
    const list = await app.http.get<IntegrationProductBody[]>(`${base}/products`, { auth });
    expect(list.body).to.deep.equal([res.body]);
    const detail = await app.http.get<IntegrationBody>(base, { auth });
    expect(detail.body.products).to.deep.equal([res.body]);
    expect(await productIds()).to.deep.equal([a.id]);
  });

  it('answers 409 when the product is already linked', async () => {
    const { a, link } = await setup();
    expect((await link(a.id)).status).to.equal(201);
    expectError(await link(a.id), 409, 'conflict');
  });

  it("refuses another company's product or an unknown one with 400 under product_id", async () => {
    const { link, productIds } = await setup();
    const other = await seed();
    expectError(await link(other.products[0]?.id ?? 0), 400, 'validation_error', 'product_id');
    expectError(await link(2_000_000_000), 400, 'validation_error', 'product_id');
    expectError(await link('abc' as unknown as number), 400, 'validation_error', 'product_id');
    expect(await productIds()).to.deep.equal([]);
  });

  it('PATCH of a link returns 200 IntegrationProduct and takes an inactive link out of product_ids', async () => {
    const { auth, base, a, b, link, productIds } = await setup();
    await link(a.id);
    await link(b.id);
    expect(await productIds()).to.deep.equal([a.id, b.id].sort((x, y) => x - y));
    const off = await app.http.patch<IntegrationProductBody>(`${base}/products/${a.id}`, {
      auth,
      body: { is_active: false },
    });
    expect(off.status).to.equal(200);
    expect(off.body).to.include({ product: a.id, is_active: false });
    expect(await productIds()).to.deep.equal([b.id]);
    const detail = await app.http.get<IntegrationBody>(base, { auth });
    expect(detail.body.products.map((p) => [p.product, p.is_active])).to.deep.include([a.id, false]);
    await app.http.patch(`${base}/products/${a.id}`, { auth, body: { is_active: true } });
    expect(await productIds()).to.deep.equal([a.id, b.id].sort((x, y) => x - y));
    expectError(
      await app.http.patch(`${base}/products/${a.id}`, { auth, body: {} }),
      400,
      'validation_error',
      'is_active',
    );
  });

  it('DELETE of a link answers 204 and removes the product from product_ids; a second DELETE is 404', async () => {
    const { auth, base, a, link, productIds } = await setup();
    await link(a.id);
    const res = await app.http.delete(`${base}/products/${a.id}`, { auth });
    expect(res.status).to.equal(204);
    expect(res.text).to.equal('');
    expect(await productIds()).to.deep.equal([]);
    expectError(await app.http.delete(`${base}/products/${a.id}`, { auth }), 404, 'not_found');
    expectError(
      await app.http.patch(`${base}/products/${a.id}`, { auth, body: { is_active: true } }),
      404,
      'not_found',
    );
  });

  it('send_to_all_products puts every active product in product_ids, and flipping it back restores the linked ones', async () => {
    const { auth, base, a, b, link, productIds } = await setup();
    await link(a.id);
    const on = await app.http.patch<IntegrationBody>(base, { auth, body: { send_to_all_products: true } });
    expect(on.body.product_ids).to.deep.equal([a.id, b.id].sort((x, y) => x - y));
    const off = await app.http.patch<IntegrationBody>(base, { auth, body: { send_to_all_products: false } });
    expect(off.body.product_ids).to.deep.equal([a.id]);
    expect(await productIds()).to.deep.equal([a.id]);
  });

  it('an integration created with send_to_all_products starts with every active product', async () => {
    const { t, a, b } = await setup();
    const res = await app.http.post<IntegrationBody>(`${P}/integrations/`, {
      auth: t.panel_token,
      body: webhook({ send_to_all_products: true }),
    });
    expect(res.body.product_ids).to.deep.equal([a.id, b.id].sort((x, y) => x - y));
  });

  it('follows product changes: created, deactivated, reactivated and removed products', async () => {
    const { auth, a, b, link, productIds, t } = await setup();
    const all = (
      await app.http.post<IntegrationBody>(`${P}/integrations/`, {
        auth,
        body: webhook({ send_to_all_products: true }),
      })
    ).body;
    const allIds = async (): Promise<number[]> =>
      (await app.http.get<IntegrationBody>(`${P}/integrations/${all.id}`, { auth })).body.product_ids;
    await link(a.id);

    const created = (
      await app.http.post<ProductBody>(`${P}/products`, { auth, body: { name: 'New e-book' } })
    ).body;
    expect(await allIds()).to.deep.equal([a.id, b.id, created.id].sort((x, y) => x - y));
    expect(await productIds()).to.deep.equal([a.id]);

    await app.http.patch(`${P}/products/${a.id}`, { auth, body: { status: 'inactive' } });
    expect(await productIds()).to.deep.equal([]);
    expect(await allIds()).to.deep.equal([b.id, created.id].sort((x, y) => x - y));

    await app.http.patch(`${P}/products/${a.id}`, { auth, body: { status: 'active' } });
    expect(await productIds()).to.deep.equal([a.id]);

    await link(created.id);
    expect(await productIds()).to.deep.equal([a.id, created.id].sort((x, y) => x - y));
    const removed = await app.http.delete(`${P}/products/${created.id}`, { auth });
    expect(removed.status).to.equal(204);
    expect(await productIds()).to.deep.equal([a.id]);
    expect(await allIds()).to.deep.equal([a.id, b.id].sort((x, y) => x - y));
    const links = await app.http.get<IntegrationProductBody[]>(`${P}/integrations/${all.id}/products`, {
      auth,
    });
    expect(links.body).to.deep.equal([]);
    expect(t.company.id).to.be.a('number');
  });

  it('links an inactive product without putting it in product_ids', async () => {
    const { auth, a, link, productIds } = await setup();
    await app.http.patch(`${P}/products/${a.id}`, { auth, body: { status: 'inactive' } });
    expect((await link(a.id)).status).to.equal(201);
    expect(await productIds()).to.deep.equal([]);
  });

  it('keeps product_ids right under concurrent link changes', async () => {
    const { auth, link, productIds } = await setup();
    const extra = await Promise.all(
      [1, 2, 3, 4].map(
        async (n) =>
          (await app.http.post<ProductBody>(`${P}/products`, { auth, body: { name: `P${n}` } })).body.id,
      ),
    );
    await Promise.all(extra.map((id) => link(id)));
    expect(await productIds()).to.deep.equal([...extra].sort((x, y) => x - y));
  });
});
