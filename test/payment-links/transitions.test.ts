import { expect } from 'chai';
import { sql, TransactionRollbackError } from 'drizzle-orm';
import type { SeedResult } from '../../src/cli/seed.js';
import { findLinkById } from '../../src/payment-links/repository.js';
import { cancelLink, expireDueLinks, expireLink, markLinkPaid } from '../../src/payment-links/transitions.js';
import type { Tx } from '../../src/shared/db/index.js';
import { newUuid } from '../../src/shared/ids.js';
import { seed, sharedApp, type TestApp } from '../helpers/app.js';
import { activeOffer, backdateExpiry, createLink } from './helpers.js';

describe('link transitions (one conditional UPDATE each)', () => {
  let app: TestApp;
  let tenant: SeedResult;

  before(async () => {
    app = await sharedApp();
    tenant = await seed();
  });

  const newLink = (body: Record<string, unknown> = {}) =>
    createLink(app, tenant.keys.live, { offer_code: activeOffer(tenant), ...body });
  const inTx = <T>(fn: (tx: Tx) => Promise<T>): Promise<T> => app.ctx.db.transaction(fn);

  async function insertOrder(linkId: string): Promise<number> {
    const inserted = await app.ctx.db.execute<{ id: string }>(
      sql`INSERT INTO orders (code, company_id, livemode, payment_link_id, product_id, offer_id, status, amount, paid_at)
          SELECT ${newUuid()}, company_id, livemode, id, product_id, offer_id, 'paid', 10, clock_timestamp()
          FROM payment_links WHERE id = ${linkId} RETURNING id`,
    );
    return Number(inserted.rows[0]?.id);
  }

  it('markLinkPaid: a single-use link takes one payment only', async () => {
    const link = await newLink();
    const first = await inTx((tx) => markLinkPaid(tx, link.id, { paidAt: new Date(), orderId: null }));
    const second = await inTx((tx) => markLinkPaid(tx, link.id, { paidAt: new Date(), orderId: null }));
    expect(first?.status).to.equal('paid');
    expect(second).to.equal(undefined);
  });

  it('markLinkPaid: a reusable link stays paid, keeps its first paid_at and shows its latest order', async () => {
    const link = await newLink({ single_use: false });
    const firstOrder = await insertOrder(link.id);
    const secondOrder = await insertOrder(link.id);
    const firstAt = new Date(Date.now() - 60_000);
    await inTx((tx) => markLinkPaid(tx, link.id, { paidAt: firstAt, orderId: firstOrder }));
    const again = await inTx((tx) => markLinkPaid(tx, link.id, { paidAt: new Date(), orderId: secondOrder }));
    expect(again?.status).to.equal('paid');
    expect(again?.paidAt?.toISOString()).to.equal(firstAt.toISOString());
    expect(again?.latestOrderId).to.equal(secondOrder);
  });

  it('markLinkPaid refuses a canceled link', async () => {
    const link = await newLink();
    await inTx((tx) => cancelLink(tx, { companyId: tenant.company.id, livemode: true, linkId: link.id }));
    expect(await inTx((tx) => markLinkPaid(tx, link.id, { paidAt: new Date(), orderId: null }))).to.equal(
      undefined,
    );
  });

  it('expireLink does nothing before expires_at', async () => {
    const link = await newLink();
    expect(await inTx((tx) => expireLink(tx, link.id))).to.equal(undefined);
    expect((await findLinkById(app.ctx.db, link.id))?.link.status).to.equal('active');
  });

  it('expireLink moves an overdue active link to expired and sets expired_at', async () => {
    const link = await newLink();
    await backdateExpiry(app, link.id);
    const expired = await inTx((tx) => expireLink(tx, link.id));
    expect(expired?.status).to.equal('expired');
    expect(expired?.expiredAt).to.be.instanceOf(Date);
    expect(await inTx((tx) => expireLink(tx, link.id))).to.equal(undefined);
  });

  it('expireLink leaves a paid link paid', async () => {
    const link = await newLink();
    await inTx((tx) => markLinkPaid(tx, link.id, { paidAt: new Date(), orderId: null }));
    await backdateExpiry(app, link.id);
    expect(await inTx((tx) => expireLink(tx, link.id))).to.equal(undefined);
  });

  it('cancelLink only matches the link in its own company and mode', async () => {
    const link = await newLink();
    const other = await seed();
    expect(
      await inTx((tx) => cancelLink(tx, { companyId: other.company.id, livemode: true, linkId: link.id })),
    ).to.equal(undefined);
    expect(
      await inTx((tx) => cancelLink(tx, { companyId: tenant.company.id, livemode: false, linkId: link.id })),
    ).to.equal(undefined);
    expect(
      (await inTx((tx) => cancelLink(tx, { companyId: tenant.company.id, livemode: true, linkId: link.id })))
        ?.status,
    ).to.equal('canceled');
  });

  it('a transition rolled back with its transaction leaves no trace', async () => {
    const link = await newLink();
    const ended = await inTx(async (tx) => {
      const canceled = await cancelLink(tx, {
        companyId: tenant.company.id,
        livemode: true,
        linkId: link.id,
      });
      // Inside the transaction the transition took effect …
      expect(canceled?.status).to.equal('canceled');
      tx.rollback();
    }).then(
      () => 'committed',
      (err: unknown) => err,
    );
    // … and the transaction ended by the rollback asked for, not by any other error.
    expect(ended).to.be.instanceOf(TransactionRollbackError);
    expect((await findLinkById(app.ctx.db, link.id))?.link.status).to.equal('active');
  });

  it('expireDueLinks takes the due active links, not one a payment holds locked, nor one not yet due', async () => {
    const [due, held, later, paid] = [await newLink(), await newLink(), await newLink(), await newLink()];
    for (const link of [due, held, paid]) await backdateExpiry(app, link.id);
    await inTx((tx) => markLinkPaid(tx, paid.id, { paidAt: new Date(), orderId: null }));
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked: () => void = () => undefined;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    // A payment deciding on `held`: its row stays locked until it commits.
    const holder = inTx(async (tx) => {
      await tx.execute(sql`SELECT id FROM payment_links WHERE id = ${held.id} FOR UPDATE`);
      locked();
      await released;
    });
    await isLocked;
    let taken: string[] = [];
    await inTx(async (tx) => {
      taken = (await expireDueLinks(tx, 10_000)).map((row) => row.id);
      // Nothing else in the shared database is touched: the batch is rolled back once read.
      tx.rollback();
    }).catch((err: unknown) => {
      if (!(err instanceof TransactionRollbackError)) throw err;
    });
    release();
    await holder;
    expect(taken).to.include(due.id);
    expect(taken).to.not.include(held.id);
    expect(taken).to.not.include(later.id);
    expect(taken).to.not.include(paid.id);
  });

  it('an expiry racing a payment leaves exactly one winner', async () => {
    for (let round = 0; round < 10; round++) {
      const link = await newLink();
      await backdateExpiry(app, link.id);
      const [expired, paid] = await Promise.all([
        inTx((tx) => expireLink(tx, link.id)),
        inTx((tx) => markLinkPaid(tx, link.id, { paidAt: new Date(), orderId: null })),
      ]);
      expect(expired === undefined, `round ${round}`).to.not.equal(paid === undefined);
    }
  });
});
