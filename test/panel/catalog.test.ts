import { expect } from 'chai';
import { sql } from 'drizzle-orm';
import { sharedApp, seed, type TestApp } from '../helpers/app.js';
import { expectError, P } from './helpers.js';

interface ProductBody {
  object: string;
  id: number;
  code: string;
  name: string;
  status: string;
}
interface PricedBody {
  object: string;
  code: string;
  name: string;
  status: string;
  price: string;
  product: { id: number; name: string };
  url: string;
  guarantee_days: number;
  billing_cycle?: string;
}
interface CouponBody {
  code: string;
  percent_off: string | null;
  amount_off: string | null;
  status: string;
}

describe('panel catalog: products, offers, plans, coupons', () => {
  let app: TestApp;

  before(async () => {
    app = await sharedApp();
  });

  describe('products', () => {
    it('lists, creates (201, UUID code), renames and deactivates products', async () => {
      const t = await seed();
      const auth = t.panel_token;
      const list = await app.http.get<ProductBody[]>(`${P}/products`, { auth });
      expect(list.status).to.equal(200);
      expect(list.body.map((p) => p.id)).to.deep.equal(t.products.map((p) => p.id));
      const created = await app.http.post<ProductBody>(`${P}/products`, { auth, body: { name: 'Workshop' } });
      expect(created.status).to.equal(201);
      expect(created.body).to.include({ object: 'product', name: 'Workshop', status: 'active' });
      expect(created.body.code).to.match(/^[0-9a-f-]{36}$/);
      const renamed = await app.http.patch<ProductBody>(`${P}/products/${created.body.id}`, {
        auth,
        body: { name: 'Live workshop' },
      });
      expect(renamed.body).to.include({ name: 'Live workshop', status: 'active' });
      const off = await app.http.patch<ProductBody>(`${P}/products/${created.body.id}`, {
        auth,
        body: { status: 'inactive' },
      });
      expect(off.body.status).to.equal('inactive');
    });

    it('validates product bodies', async () => {
      const t = await seed();
      const auth = t.panel_token;
      expectError(await app.http.post(`${P}/products`, { auth, body: {} }), 400, 'validation_error', 'name');
      expectError(
        await app.http.post(`${P}/products`, { auth, body: { name: '  ' } }),
        400,
        'validation_error',
        'name',
      );
      expectError(
        await app.http.patch(`${P}/products/${t.products[0]?.id}`, { auth, body: { status: 'gone' } }),
        400,
        'validation_error',
        'status',
      );
    });

    it('removes a product that never sold (204) and refuses one with payment links (409)', async () => {
      const t = await seed();
      const auth = t.panel_token;
      const fresh = (await app.http.post<ProductBody>(`${P}/products`, { auth, body: { name: 'Temp' } }))
        .body;
      await app.http.post(`${P}/offers`, {
        auth,
        body: { product_id: fresh.id, name: 'Temp offer', price: '10' },
      });
      expect((await app.http.delete(`${P}/products/${fresh.id}`, { auth })).status).to.equal(204);
      expectError(await app.http.delete(`${P}/products/${fresh.id}`, { auth }), 404, 'not_found');
      const offers = await app.http.get<PricedBody[]>(`${P}/offers`, { auth });
      expect(offers.body.map((o) => o.name)).to.not.include('Temp offer');

      const sold = t.products[0];
      const offer = t.offers[0];
      await app.ctx.db.execute(sql`
        INSERT INTO payment_links (id, company_id, livemode, type, offer_id, offer_code, product_id, short_code, expires_at)
        SELECT ${`plink_test${Date.now()}${Math.floor(Math.random() * 1e6)}`}, ${t.company.id}, false, 'offer', id, code, product_id,
               ${`s${Math.floor(Math.random() * 1e9)}`}, now() + interval '1 day'
          FROM offers WHERE code = ${offer?.code ?? ''}`);
      expectError(await app.http.delete(`${P}/products/${sold?.id}`, { auth }), 409, 'conflict');
    });
  });

  describe('offers and plans', () => {
    it('creates an offer (201) with a normalised price and its checkout url, then reprices and deactivates it', async () => {
      const t = await seed();
      const auth = t.panel_token;
      const product = t.products[0];
      const res = await app.http.post<PricedBody>(`${P}/offers`, {
        auth,
        body: { product_id: product?.id, name: 'Black Friday', price: 99.9 },
      });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({
        object: 'offer',
        name: 'Black Friday',
        price: '99.90',
        status: 'active',
      });
      expect(res.body.product).to.deep.equal({ id: product?.id, name: product?.name });
      expect(res.body.url).to.match(new RegExp(`/pay/${res.body.code}$`));
      const patched = await app.http.patch<PricedBody>(`${P}/offers/${res.body.code}`, {
        auth,
        body: { price: '79.5', status: 'inactive' },
      });
      expect(patched.status).to.equal(200);
      expect(patched.body).to.include({ price: '79.50', status: 'inactive' });
      // The payments API sees the same offer as inactive, so it accepts no new links.
      const viaPayments = await app.http.get<{ data: PricedBody[] }>('/v1/offers', { auth: t.keys.test });
      expect(viaPayments.body.data.find((o) => o.code === res.body.code)?.status).to.equal('inactive');
    });

    it('creates and deactivates a plan with its billing cycle', async () => {
      const t = await seed();
      const auth = t.panel_token;
      const res = await app.http.post<PricedBody>(`${P}/plans`, {
        auth,
        body: {
          product_id: t.products[1]?.id,
          name: 'Quarterly',
          price: '79.00',
          billing_cycle: 'quarterly',
        },
      });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({ object: 'plan', billing_cycle: 'quarterly', price: '79.00' });
      const off = await app.http.patch<PricedBody>(`${P}/plans/${res.body.code}`, {
        auth,
        body: { status: 'inactive' },
      });
      expect(off.body.status).to.equal('inactive');
      const list = await app.http.get<PricedBody[]>(`${P}/plans`, { auth });
      expect(list.body.map((p) => p.code)).to.include(res.body.code);
    });

    it('keeps a guarantee period of 7 to 30 days on offers and plans (7 unless told), shown to the payments API too', async () => {
      const t = await seed();
      const auth = t.panel_token;
      const product_id = t.products[0]?.id;
      const offer = await app.http.post<PricedBody>(`${P}/offers`, {
        auth,
        body: { product_id, name: 'Course', price: '97.00' },
      });
      expect(offer.body.guarantee_days).to.equal(7);
      const plan = await app.http.post<PricedBody>(`${P}/plans`, {
        auth,
        body: { product_id, name: 'Club', price: '29.00', billing_cycle: 'monthly', guarantee_days: 30 },
      });
      expect(plan.status).to.equal(201);
      expect(plan.body.guarantee_days).to.equal(30);
      const longer = await app.http.patch<PricedBody>(`${P}/offers/${offer.body.code}`, {
        auth,
        body: { guarantee_days: 14 },
      });
      expect(longer.body).to.include({ guarantee_days: 14, price: '97.00' });
      for (const days of [6, 31, 7.5, '10']) {
        const refused = await app.http.post(`${P}/offers`, {
          auth,
          body: { product_id, name: 'Too short', price: '1.00', guarantee_days: days },
        });
        expectError(refused, 400, 'validation_error', 'guarantee_days');
        const patch = await app.http.patch(`${P}/plans/${plan.body.code}`, {
          auth,
          body: { guarantee_days: days },
        });
        expectError(patch, 400, 'validation_error', 'guarantee_days');
      }
      const viaPayments = await app.http.get<{ data: PricedBody[] }>('/v1/offers', { auth: t.keys.test });
      expect(viaPayments.body.data.find((o) => o.code === offer.body.code)?.guarantee_days).to.equal(14);
    });

    it('validates offers and plans: price format, product of the company and active, billing cycle', async () => {
      const t = await seed();
      const other = await seed();
      const auth = t.panel_token;
      const product_id = t.products[0]?.id;
      const post = (path: string, body: Record<string, unknown>) =>
        app.http.post(`${P}${path}`, { auth, body });
      expectError(
        await post('/offers', { product_id, name: 'x', price: '1.999' }),
        400,
        'validation_error',
        'price',
      );
      expectError(
        await post('/offers', { product_id, name: 'x', price: '-1' }),
        400,
        'validation_error',
        'price',
      );
      expectError(
        await post('/offers', { product_id, name: 'x', price: 'ten' }),
        400,
        'validation_error',
        'price',
      );
      expectError(
        await post('/offers', { product_id: other.products[0]?.id, name: 'x', price: '1' }),
        400,
        'validation_error',
        'product_id',
      );
      await app.http.patch(`${P}/products/${product_id}`, { auth, body: { status: 'inactive' } });
      expectError(
        await post('/offers', { product_id, name: 'x', price: '1' }),
        400,
        'validation_error',
        'product_id',
      );
      expectError(
        await post('/plans', {
          product_id: t.products[1]?.id,
          name: 'x',
          price: '1',
          billing_cycle: 'daily',
        }),
        400,
        'validation_error',
        'billing_cycle',
      );
      expectError(
        await app.http.patch(`${P}/offers/of_missing`, { auth, body: { status: 'inactive' } }),
        404,
        'not_found',
      );
      expectError(
        await app.http.patch(`${P}/plans/pl_missing`, { auth, body: { status: 'inactive' } }),
        404,
        'not_found',
      );
    });
  });

  describe('coupons', () => {
    it('creates percent and amount coupons, lists and deactivates them; a duplicate code is 409', async () => {
      const t = await seed();
      const auth = t.panel_token;
      const pct = await app.http.post<CouponBody>(`${P}/coupons`, {
        auth,
        body: { code: 'SAVE15', percent_off: 15 },
      });
      expect(pct.status).to.equal(201);
      expect(pct.body).to.include({
        code: 'SAVE15',
        percent_off: '15.00',
        amount_off: null,
        status: 'active',
      });
      const amt = await app.http.post<CouponBody>(`${P}/coupons`, {
        auth,
        body: { code: 'MINUS10', amount_off: '10' },
      });
      expect(amt.body).to.include({ amount_off: '10.00', percent_off: null });
      expectError(
        await app.http.post(`${P}/coupons`, { auth, body: { code: 'SAVE15', percent_off: 5 } }),
        409,
        'conflict',
      );
      const off = await app.http.patch<CouponBody>(`${P}/coupons/SAVE15`, {
        auth,
        body: { status: 'inactive' },
      });
      expect(off.body.status).to.equal('inactive');
      const list = await app.http.get<CouponBody[]>(`${P}/coupons`, { auth });
      expect(list.body.map((c) => c.code)).to.include.members(['SAVE15', 'MINUS10', t.coupons[0]?.code]);
    });

    it('requires exactly one of percent_off and amount_off, within range', async () => {
      const t = await seed();
      const auth = t.panel_token;
      const post = (body: Record<string, unknown>) => app.http.post(`${P}/coupons`, { auth, body });
      expectError(await post({ code: 'A' }), 400, 'validation_error', 'percent_off');
      expectError(
        await post({ code: 'B', percent_off: 5, amount_off: 5 }),
        400,
        'validation_error',
        'amount_off',
      );
      expectError(await post({ code: 'C', percent_off: 150 }), 400, 'validation_error', 'percent_off');
      expectError(await post({ code: 'D', percent_off: 0 }), 400, 'validation_error', 'percent_off');
      expectError(await post({ code: 'E', amount_off: '0' }), 400, 'validation_error', 'amount_off');
      expectError(await post({ code: 'bad code!', amount_off: '1' }), 400, 'validation_error', 'code');
    });
  });

  describe('tenant isolation', () => {
    it("never lists or changes another company's catalog", async () => {
      const t = await seed();
      const other = await seed();
      const auth = t.panel_token;
      expectError(
        await app.http.patch(`${P}/products/${other.products[0]?.id}`, { auth, body: { name: 'mine' } }),
        404,
        'not_found',
      );
      expectError(
        await app.http.delete(`${P}/products/${other.products[0]?.id}`, { auth }),
        404,
        'not_found',
      );
      expectError(
        await app.http.patch(`${P}/offers/${other.offers[0]?.code}`, { auth, body: { status: 'inactive' } }),
        404,
        'not_found',
      );
      expectError(
        await app.http.patch(`${P}/plans/${other.plans[0]?.code}`, { auth, body: { status: 'inactive' } }),
        404,
        'not_found',
      );
      expectError(
        await app.http.patch(`${P}/coupons/${other.coupons[0]?.code}`, {
          auth,
          body: { status: 'inactive' },
        }),
        404,
        'not_found',
      );
      const seen = async (
        path: string,
        pick: (x: Record<string, unknown>) => unknown,
      ): Promise<Set<unknown>> =>
        new Set((await app.http.get<Array<Record<string, unknown>>>(`${P}${path}`, { auth })).body.map(pick));
      const leaked = (shown: Set<unknown>, theirs: unknown[]): unknown[] =>
        theirs.filter((x) => shown.has(x));
      expect(
        leaked(
          await seen('/products', (p) => p.id),
          other.products.map((p) => p.id),
        ),
      ).to.deep.equal([]);
      expect(
        leaked(
          await seen('/offers', (o) => o.code),
          other.offers.map((o) => o.code),
        ),
      ).to.deep.equal([]);
      expect(
        leaked(
          await seen('/plans', (o) => o.code),
          other.plans.map((o) => o.code),
        ),
      ).to.deep.equal([]);
      expect(
        leaked(
          await seen('/coupons', (o) => o.code),
          other.coupons.map((c) => c.code),
        ),
      ).to.deep.equal([]);
      // The refused changes left the other company's catalog as it was.
      const theirOffers = await app.http.get<PricedBody[]>(`${P}/offers`, { auth: other.panel_token });
      expect(theirOffers.body.map((o) => o.status).sort()).to.deep.equal(
        other.offers.map((o) => o.status).sort(),
      );
    });
  });
});
