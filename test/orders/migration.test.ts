import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { migrate, migrationsDir } from '../../src/shared/db/migrate.js';
import { randomBase62 } from '../../src/shared/ids.js';
import { testEnvironment } from '../helpers/environment.js';

const LIFECYCLE = '0501_order_lifecycle';

/**
 * Migration 0501 on a database that has data from before it: a database of its own on the run's
 * server, migrated up to 0501, given rows, then migrated on.
 */
describe(`migration ${LIFECYCLE}`, function () {
  this.timeout(60_000);
  const name = `plinks_mig_${randomBase62(8).toLowerCase()}`;
  let dir: string;
  let pool: pg.Pool;

  /** One statement on the run's server, on a connection of its own (closed at once). */
  async function onServer(statement: string): Promise<void> {
    const admin = new pg.Client({ connectionString: testEnvironment().databaseUrl });
    admin.on('error', () => undefined);
    await admin.connect();
    try {
      await admin.query(statement);
    } finally {
      await admin.end();
    }
  }

  before(async () => {
    await onServer(`CREATE DATABASE "${name}"`);
    const url = new URL(testEnvironment().databaseUrl);
    url.pathname = `/${name}`;
    pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
    pool.on('error', () => undefined);
    dir = await mkdtemp(path.join(os.tmpdir(), 'plinks-migrations-'));
    for (const file of await readdir(migrationsDir())) {
      if (file.endsWith('.sql') && file < LIFECYCLE)
        await copyFile(path.join(migrationsDir(), file), path.join(dir, file));
    }
  });
  after(async () => {
    await pool.end();
    await onServer(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await rm(dir, { recursive: true, force: true });
  });

  it('turns expired orders into abandoned ones, stamps refunds and cancellations, and remembers earlier buyers as seen', async () => {
    const before = await migrate(pool, dir);
    expect(before).not.to.include(LIFECYCLE);
    const q = async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> =>
      (await pool.query<R>(text, values)).rows;
    const [company] = await q<{ id: string }>(`INSERT INTO companies (name) VALUES ('Old') RETURNING id`);
    const [product] = await q<{ id: number }>(
      `INSERT INTO products (company_id, code, name) VALUES ($1, gen_random_uuid(), 'P') RETURNING id`,
      [company?.id],
    );
    const [plan] = await q<{ id: string }>(
      `INSERT INTO plans (company_id, product_id, code, name, price, billing_cycle)
       VALUES ($1, $2, 'pl_old', 'Plan', 10, 'monthly') RETURNING id`,
      [company?.id, product?.id],
    );
    const [canceled] = await q<{ id: string }>(
      `INSERT INTO subscriptions (company_id, livemode, plan_id, status, current_period_end, created_at)
       VALUES ($1, true, $2, 'canceled', now(), '2025-01-01T00:00:00Z') RETURNING id`,
      [company?.id, plan?.id],
    );
    const order = (status: string, email: string | null, livemode = true) =>
      q<{ code: string }>(
        `INSERT INTO orders (code, company_id, livemode, product_id, plan_id, status, amount, paid_at, customer, created_at)
         VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, 10, $6, $7, '2025-02-01T00:00:00Z') RETURNING code`,
        [
          company?.id,
          livemode,
          product?.id,
          plan?.id,
          status,
          status === 'paid' || status === 'refunded' ? '2025-02-01T00:01:00Z' : null,
          email === null ? null : JSON.stringify({ name: 'B', email, phone: null, document: null }),
        ],
      ).then((rows) => rows[0]?.code ?? '');
    const expired = await order('expired', 'Old.Buyer@example.com');
    const refunded = await order('refunded', 'old.buyer@example.com');
    const paid = await order('paid', 'old.buyer@example.com', false);
    await order('pending', null);

    expect(await migrate(pool, dir)).to.deep.equal([]);
    await copyFile(path.join(migrationsDir(), `${LIFECYCLE}.sql`), path.join(dir, `${LIFECYCLE}.sql`));
    expect(await migrate(pool, dir)).to.deep.equal([LIFECYCLE]);

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
      [company?.id],
    );
    expect(leads).to.deep.equal([
      { livemode: false, email: 'old.buyer@example.com' },
      { livemode: true, email: 'old.buyer@example.com' },
    ]);
  });
});
