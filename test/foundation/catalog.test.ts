import { expect } from 'chai';
import { sharedApp, seed, type TestApp } from '../helpers/app.js';
import type { SeedResult } from '../../src/cli/seed.js';

interface ListBody<T> {
  object: string;
  data: T[];
}
interface OfferBody {
  object: string;
  code: string;
  status: string;
  price: string;
  product: { id: number; name: string };
  url: string;
  billing_cycle?: string;
}

describe('GET /v1/offers and GET /v1/plans', () => {
  let app: TestApp;
  let tenant: SeedResult;
  let other: SeedResult;

  before(async () => {
    app = await sharedApp();
    tenant = await seed();
    other = await seed();
  });

  it("lists only the key's company offers, active and inactive, with prices as two-decimal strings", async () => {
    const res = await app.http.get<ListBody<OfferBody>>('/v1/offers', { auth: tenant.keys.live });
    expect(res.status).to.equal(200);
    expect(res.body.object).to.equal('list');
    const codes = res.body.data.map((o) => o.code).sort();
    expect(codes).to.deep.equal(tenant.offers.map((o) => o.code).sort());
    const byCode = new Map(res.body.data.map((o) => [o.code, o]));
    for (const seeded of tenant.offers) {
      const offer = byCode.get(seeded.code);
      expect(offer?.price)
        .to.equal(seeded.price)
        .and.match(/^\d+\.\d{2}$/);
      expect(offer?.status).to.equal(seeded.status);
      expect(offer?.product.id).to.equal(seeded.product_id);
      expect(offer?.url).to.match(new RegExp(`/pay/${seeded.code}$`));
    }
  });

  it('never shows another company its offers or plans', async () => {
    const offers = await app.http.get<ListBody<OfferBody>>('/v1/offers', { auth: other.keys.test });
    const plans = await app.http.get<ListBody<OfferBody>>('/v1/plans', { auth: other.keys.test });
    const theirs = new Set([...offers.body.data, ...plans.body.data].map((o) => o.code));
    for (const item of [...tenant.offers, ...tenant.plans]) expect(theirs.has(item.code)).to.equal(false);
  });

  it('lists plans with billing_cycle and object "plan"', async () => {
    const res = await app.http.get<ListBody<OfferBody>>('/v1/plans', { auth: tenant.keys.test });
    expect(res.status).to.equal(200);
    expect(res.body.data.map((p) => p.code).sort()).to.deep.equal(tenant.plans.map((p) => p.code).sort());
    for (const plan of res.body.data) {
      expect(plan.object).to.equal('plan');
      expect(plan.billing_cycle).to.be.oneOf(['monthly', 'yearly']);
    }
  });
});
