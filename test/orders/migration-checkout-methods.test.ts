import { expect } from 'chai';
import { databaseBefore } from '../helpers/migration-database.js';

const CHECKOUT_METHODS = '0702_checkout_methods';

/**
 * Migration 0702 on a database with links and orders from before it: a database of its own on the
 * run's server, migrated up to 0702, given rows, then migrated on.
 */
describe(`migration ${CHECKOUT_METHODS}`, function () {
  this.timeout(60_000);
  const database = databaseBefore(CHECKOUT_METHODS);

  it('gives earlier links the default options and earlier orders no instructions or deadline of their own', async () => {
    const db = database();
    await db.migrate();
    const q = db.query;
    const [company] = await q<{ id: string }>(`INSERT INTO companies (name) VALUES ('Old') RETURNING id`);
    const [product] = await q<{ id: number }>(
      `INSERT INTO products (company_id, code, name) VALUES ($1, gen_random_uuid(), 'P') RETURNING id`,
      [company?.id],
    );
    const [offer] = await q<{ id: string }>(
      `INSERT INTO offers (company_id, product_id, code, name, price) VALUES ($1, $2, 'of_old', 'O', 10)
       RETURNING id`,
      [company?.id, product?.id],
    );
    await q(
      `INSERT INTO payment_links (id, company_id, livemode, type, offer_id, offer_code, product_id, short_code, expires_at)
       VALUES ('plink_old000000000000000000', $1, true, 'offer', $2, 'of_old', $3, 'oldshort', now() + interval '1 day')`,
      [company?.id, offer?.id, product?.id],
    );
    await q(
      `INSERT INTO orders (code, company_id, livemode, payment_link_id, product_id, offer_id, status, amount, payment_method)
       VALUES (gen_random_uuid(), $1, true, 'plink_old000000000000000000', $2, $3, 'pending', 10, 'pix')`,
      [company?.id, product?.id, offer?.id],
    );

    await db.addMigration();
    expect(await db.migrate()).to.deep.equal([CHECKOUT_METHODS]);

    const [link] = await q(
      `SELECT payment_methods, pix_expires_in_seconds, boleto_due_days, max_installments, success_url
         FROM payment_links WHERE id = 'plink_old000000000000000000'`,
    );
    expect(link).to.deep.equal({
      payment_methods: ['credit_card', 'pix', 'boleto'],
      pix_expires_in_seconds: 1800,
      boleto_due_days: 3,
      max_installments: 1,
      success_url: null,
    });
    // An order from before keeps the deadline it had: ORDER_ABANDON_AFTER_SECONDS after its checkout.
    const [order] = await q(
      `SELECT installments, pix_copy_paste, pix_expires_at, boleto_digitable_line, boleto_due_date, abandon_at
         FROM orders WHERE payment_link_id = 'plink_old000000000000000000'`,
    );
    expect(order).to.deep.equal({
      installments: null,
      pix_copy_paste: null,
      pix_expires_at: null,
      boleto_digitable_line: null,
      boleto_due_date: null,
      abandon_at: null,
    });
    // The bounds hold in the database too.
    for (const [column, value] of [
      ['pix_expires_in_seconds', 59],
      ['boleto_due_days', 31],
      ['max_installments', 0],
    ] as const) {
      const refused = await q(`UPDATE payment_links SET ${column} = $1`, [value]).catch(
        (err: unknown) => err,
      );
      expect(String(refused), column).to.match(/check/);
    }
    const empty = await q(`UPDATE payment_links SET payment_methods = '{}'`).catch((err: unknown) => err);
    expect(String(empty)).to.match(/payment_links_payment_methods_check/);
  });
});
