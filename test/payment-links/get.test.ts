import { expect } from 'chai';
import { sql } from 'drizzle-orm';
import type { SeedResult } from '../../src/cli/seed.js';
import { newUuid } from '../../src/shared/ids.js';
import { markLinkPaid } from '../../src/payment-links/transitions.js';
import { seed, sharedApp, type TestApp } from '../helpers/app.js';
import {
  activeOffer,
  backdateExpiry,
  createLink,
  storedStatus,
  type ErrorBody,
  type LinkBody,
} from './helpers.js';

describe('GET /v1/payment-links/{id}', () => {
  let app: TestApp;
  let tenant: SeedResult;
  let other: SeedResult;

  before(async () => {
    app = await sharedApp();
    tenant = await seed();
    other = await seed();
  });

  const get = (id: string, key = tenant.keys.test) =>
    app.http.get<LinkBody & ErrorBody>(`/v1/payment-links/${id}`, { auth: key });

  it('returns the link as created', async () => {
    const link = await createLink(app, tenant.keys.test, {
      offer_code: activeOffer(tenant),
      external_reference: 'abc',
    });
    const res = await get(link.id);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(link);
  });

  it("answers 404 not_found for another company's link", async () => {
    const theirs = await createLink(app, other.keys.test, { offer_code: activeOffer(other) });
    const res = await get(theirs.id);
    expect(res.status).to.equal(404);
    expect(res.body.error.type).to.equal('not_found');
  });

  it('answers 404 for a live link read with a test key, and for a test link read with a live key', async () => {
    const live = await createLink(app, tenant.keys.live, { offer_code: activeOffer(tenant) });
    const test = await createLink(app, tenant.keys.test, { offer_code: activeOffer(tenant) });
    const liveWithTestKey = await get(live.id, tenant.keys.test);
    expect(liveWithTestKey.status).to.equal(404);
    // Like Stripe: the message says the link exists in the other mode, so the caller knows why.
    expect(liveWithTestKey.body.error.message).to.match(/exists in live mode, but a test key was used/);
    const testWithLiveKey = await get(test.id, tenant.keys.live);
    expect(testWithLiveKey.status).to.equal(404);
    expect(testWithLiveKey.body.error.message).to.match(/exists in test mode, but a live key was used/);
    expect((await get(live.id, tenant.keys.live)).status).to.equal(200);
  });

  it("never hints at another company's link in the other mode", async () => {
    const theirs = await createLink(app, other.keys.live, { offer_code: activeOffer(other) });
    const res = await get(theirs.id, tenant.keys.test);
    expect(res.status).to.equal(404);
    expect(res.body.error.message).to.not.match(/mode/);
  });

  it('answers 404 for an unknown id', async () => {
    const res = await get('plink_000000000000000000000000');
    expect(res.status).to.equal(404);
    expect(res.body.error.type).to.equal('not_found');
  });

  it('answers 404 for an id that cannot be a link id (U+0000, slashes encoded, too long)', async () => {
    for (const id of ['%00', 'plink_%00', '%2Fetc', 'x'.repeat(65)]) {
      const res = await get(id);
      expect(res.status, id).to.equal(404);
    }
  });

  it('shows expired, never active, for a link past expires_at, and stores the transition', async () => {
    const link = await createLink(app, tenant.keys.test, { offer_code: activeOffer(tenant) });
    await backdateExpiry(app, link.id);
    const res = await get(link.id);
    expect(res.body.status).to.equal('expired');
    expect(await storedStatus(app, link.id)).to.equal('expired');
    const again = await get(link.id);
    expect(again.body).to.deep.equal(res.body);
  });

  it('shows a paid link with its order, amount as a two-decimal string', async () => {
    const link = await createLink(app, tenant.keys.live, { offer_code: activeOffer(tenant) });
    const paidAt = new Date();
    const orderCode = newUuid();
    await app.ctx.db.transaction(async (tx) => {
      const inserted = await tx.execute<{ id: string }>(
        sql`INSERT INTO orders (code, company_id, livemode, payment_link_id, product_id, offer_id, status, amount, payment_method, paid_at)
            SELECT ${orderCode}, company_id, livemode, id, product_id, offer_id, 'paid', 297, 'pix', ${paidAt}
            FROM payment_links WHERE id = ${link.id}
            RETURNING id`,
      );
      await markLinkPaid(tx, link.id, { paidAt, orderId: Number(inserted.rows[0]?.id) });
    });
    const res = await get(link.id, tenant.keys.live);
    expect(res.body.status).to.equal('paid');
    expect(res.body.paid_at).to.equal(paidAt.toISOString());
    expect(res.body.order).to.deep.equal({
      code: orderCode,
      status: 'paid',
      amount: '297.00',
      payment_method: 'pix',
      paid_at: paidAt.toISOString(),
    });
  });
});
