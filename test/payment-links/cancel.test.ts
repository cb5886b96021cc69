import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
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

describe('POST /v1/payment-links/{id}/cancel', () => {
  let app: TestApp;
  let tenant: SeedResult;

  before(async () => {
    app = await sharedApp();
    tenant = await seed();
  });

  const cancel = (id: string, key = tenant.keys.test) =>
    app.http.post<LinkBody & ErrorBody>(`/v1/payment-links/${id}/cancel`, { auth: key });
  const newLink = (key = tenant.keys.test) => createLink(app, key, { offer_code: activeOffer(tenant) });
  const pay = (id: string) =>
    app.ctx.db.transaction((tx) => markLinkPaid(tx, id, { paidAt: new Date(), orderId: null }));

  it('cancels an active link: 200, status canceled, canceled_at set', async () => {
    const link = await newLink();
    const before = Date.now();
    const res = await cancel(link.id);
    expect(res.status).to.equal(200);
    expect(res.body.status).to.equal('canceled');
    expect(Date.parse(res.body.canceled_at ?? '')).to.be.within(before - 1000, Date.now() + 1000);
    expect(res.body.paid_at).to.equal(null);
    expect(await storedStatus(app, link.id)).to.equal('canceled');
  });

  it('answers 200 with the link unchanged when it is already canceled', async () => {
    const link = await newLink();
    const first = await cancel(link.id);
    const second = await cancel(link.id);
    expect(second.status).to.equal(200);
    expect(second.body).to.deep.equal(first.body);
  });

  it('answers 409 conflict for a paid link and leaves it paid', async () => {
    const link = await newLink();
    await pay(link.id);
    const res = await cancel(link.id);
    expect(res.status).to.equal(409);
    expect(res.body.error.type).to.equal('conflict');
    expect(await storedStatus(app, link.id)).to.equal('paid');
  });

  it('answers 409 conflict for an expired link', async () => {
    const link = await newLink();
    await backdateExpiry(app, link.id);
    await app.http.get(`/v1/payment-links/${link.id}`, { auth: tenant.keys.test });
    const res = await cancel(link.id);
    expect(res.status).to.equal(409);
    expect(await storedStatus(app, link.id)).to.equal('expired');
  });

  it('answers 409 for a link past expires_at that nobody has read yet, and records it as expired', async () => {
    const link = await newLink();
    await backdateExpiry(app, link.id);
    const res = await cancel(link.id);
    expect(res.status).to.equal(409);
    expect(await storedStatus(app, link.id)).to.equal('expired');
  });

  it('answers 404 for a link of another company or of the other mode', async () => {
    const other = await seed();
    const theirs = await createLink(app, other.keys.test, { offer_code: activeOffer(other) });
    const live = await newLink(tenant.keys.live);
    expect((await cancel(theirs.id)).status).to.equal(404);
    expect((await cancel(live.id, tenant.keys.test)).status).to.equal(404);
    expect(await storedStatus(app, theirs.id)).to.equal('active');
    expect(await storedStatus(app, live.id)).to.equal('active');
  });

  it('answers 404 for an id that cannot be a link id', async () => {
    expect((await cancel('plink_%00')).status).to.equal(404);
  });

  it('leaves exactly one winner when a cancel races a payment', async () => {
    for (let round = 0; round < 10; round++) {
      const link = await newLink();
      const [canceled, paid] = await Promise.all([cancel(link.id), pay(link.id)]);
      const cancelWon = canceled.status === 200;
      const payWon = paid !== undefined;
      expect(cancelWon, `round ${round}`).to.not.equal(payWon);
      expect(await storedStatus(app, link.id)).to.equal(cancelWon ? 'canceled' : 'paid');
      if (!cancelWon) expect(canceled.status).to.equal(409);
    }
  });
});
