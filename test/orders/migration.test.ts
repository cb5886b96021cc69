import { expect } from 'chai';
import { databaseBefore, type MigrationDatabase } from '../helpers/migration-database.js';

const LIFECYCLE = '0501_order_lifecycle';
const SUBSCRIPTION_LIFECYCLE = '0703_subscription_lifecycle';

/** A company with a product and a monthly plan, as rows (the migrations' own tables). */
async function planRows(
  db: MigrationDatabase,
): Promise<{ companyId: string; productId: number; planId: string }> {
  const [company] = await db.query<{ id: string }>(
    `INSERT INTO companies (name) VALUES ('Old') RETURNING id`,
  );
  const [product] = await db.query<{ id: number }>(
    `INSERT INTO products (company_id, code, name) VALUES ($1, gen_random_uuid(), 'P') RETURNING id`,
    [company?.id],
  );
  const [plan] = await db.query<{ id: string }>(
    `INSERT INTO plans (company_id, product_id, code, name, price, billing_cycle)
     VALUES ($1, $2, 'pl_old', 'Plan', 10, 'monthly') RETURNING id`,
    [company?.id, product?.id],
  );
  if (!company || !product || !plan) throw new Error('fixture rows not inserted');
  return { companyId: company.id, productId: product.id, planId: plan.id };
}

/**
 * Migration 0501 on a database that has data from before it: a database of its own on the run's
 * server, migrated up to 0501, given rows, then migrated on.
 */
describe(`migration ${LIFECYCLE}`, function () {
  this.timeout(60_000);
  const database = databaseBefore(LIFECYCLE);

  it('turns expired orders into abandoned ones, stamps refunds and cancellations, and remembers earlier buyers as seen', async () => {
    const db = database();
    const before = await db.migrate();
    expect(before).not.to.include(LIFECYCLE);
    const q = db.query;
    const { companyId, productId, planId } = await planRows(db);
    const [canceled] = await q<{ id: string }>(
      `INSERT INTO subscriptions (company_id, livemode, plan_id, status, current_period_end, created_at)
       VALUES ($1, true, $2, 'canceled', now(), '2025-01-01T00:00:00Z') RETURNING id`,
      [companyId, planId],
    );
    const order = (status: string, email: string | null, livemode = true) =>
      q<{ code: string }>(
        `INSERT INTO orders (code, company_id, livemode, product_id, plan_id, status, amount, paid_at, customer, created_at)
         VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, 10, $6, $7, '2025-02-01T00:00:00Z') RETURNING code`,
        [
          companyId,
          livemode,
          productId,
          planId,
          status,
          status === 'paid' || status === 'refunded' ? '2025-02-01T00:01:00Z' : null,
          email === null ? null : JSON.stringify({ name: 'B', email, phone: null, document: null }),
        ],
      ).then((rows) => rows[0]?.code ?? '');
    const expired = await order('expired', 'Old.Buyer@example.com');
    const refunded = await order('refunded', 'old.buyer@example.com');
    const paid = await order('paid', 'old.buyer@example.com', false);
    await order('pending', null);

    expect(await db.migrate()).to.deep.equal([]);
    await db.addMigration();
    expect(await db.migrate()).to.deep.equal([LIFECYCLE]);

    const statuses = await q<{ code: string; status: string; refunded_at: Date | null }>(
      `SELECT code, status, refunded_at FROM orders`,
    );
    const of = (code: string) => statuses.find((r) => r.code === code);
    expect(of(expired)).to.include({ status: 'abandoned', refunded_at: null });
    expect(of(refunded)?.status).to.equal('refunded');
    expect(of(refunded)?.refunded_at?.toISOString()).to.equal('2025-02-01T00:01:00.000Z');
    expect(of(paid)?.refunded_at).to.equal(null);
    // `expired` is no order status any more; `abandoned` is.
    let refused: unknown;
    await order('expired', null).catch((err: unknown) => (refused = err));
    expect(String(refused)).to.match(/orders_status_check/);
    expect(await order('abandoned', null)).to.be.a('string');

    const [sub] = await q<{ canceled_at: Date }>(`SELECT canceled_at FROM subscriptions WHERE id = $1`, [
      canceled?.id,
    ]);
    expect(sub?.canceled_at.toISOString()).to.equal('2025-01-01T00:00:00.000Z');
    const leads = await q<{ livemode: boolean; email: string }>(
      `SELECT livemode, email FROM leads WHERE company_id = $1 ORDER BY livemode, email`,
      [companyId],
    );
    expect(leads).to.deep.equal([
      { livemode: false, email: 'old.buyer@example.com' },
      { livemode: true, email: 'old.buyer@example.com' },
    ]);
  });
});

describe(`migration ${SUBSCRIPTION_LIFECYCLE}`, function () {
  this.timeout(60_000);
  const database = databaseBefore(SUBSCRIPTION_LIFECYCLE);

  it('counts the period of every subscription from its billed orders and gives earlier cancellations the reason requested', async () => {
    const db = database();
    expect(await db.migrate()).not.to.include(SUBSCRIPTION_LIFECYCLE);
    const { companyId, productId, planId } = await planRows(db);
    const subscription = (status: string) =>
      db
        .query<{ id: string }>(
          `INSERT INTO subscriptions (company_id, livemode, plan_id, status, current_period_end, canceled_at)
           VALUES ($1, true, $2, $3, now() + interval '1 month', CASE WHEN $3 = 'canceled' THEN now() END) RETURNING id`,
          [companyId, planId, status],
        )
        .then((r) => r[0]?.id ?? '');
    const order = (subscriptionId: string, status: string) =>
      db.query(
        `INSERT INTO orders (code, company_id, livemode, subscription_id, product_id, plan_id, status, amount)
         VALUES (gen_random_uuid(), $1, true, $2, $3, $4, $5, 10)`,
        [companyId, subscriptionId, productId, planId, status],
      );
    const renewed = await subscription('active');
    for (const status of ['paid', 'paid', 'refunded', 'failed', 'pending']) await order(renewed, status);
    const canceled = await subscription('canceled');
    await order(canceled, 'paid');
    const orderless = await subscription('active');

    await db.addMigration();
    expect(await db.migrate()).to.deep.equal([SUBSCRIPTION_LIFECYCLE]);
    const rows = await db.query<{
      id: string;
      status: string;
      current_period: number;
      cancel_reason: string | null;
      cancel_at_period_end: boolean;
      failed_charges: number;
      next_retry_at: Date | null;
    }>(
      `SELECT id, status, current_period, cancel_reason, cancel_at_period_end, failed_charges, next_retry_at
         FROM subscriptions ORDER BY id`,
    );
    const base = { cancel_at_period_end: false, failed_charges: 0, next_retry_at: null };
    expect(rows).to.deep.equal([
      { id: renewed, status: 'active', current_period: 3, cancel_reason: null, ...base },
      { id: canceled, status: 'canceled', current_period: 1, cancel_reason: 'requested', ...base },
      { id: orderless, status: 'active', current_period: 1, cancel_reason: null, ...base },
    ]);
    // The new states are accepted, and a canceled subscription always says why.
    await db.query(`UPDATE subscriptions SET status = 'past_due' WHERE id = $1`, [renewed]);
    await order(renewed, 'charged_back');
    let refused: unknown;
    await db
      .query(`UPDATE subscriptions SET status = 'canceled' WHERE id = $1`, [orderless])
      .catch((err: unknown) => (refused = err));
    expect(String(refused)).to.match(/subscriptions_cancel_reason_check_status/);
  });
});
