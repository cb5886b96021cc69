/**
 * `npx tsx bench/dashboard-home.ts [database-url]`: how long the dashboard home's sums take for a
 * company with a million orders. Creates a scratch database on the PostgreSQL given (default
 * postgres://postgres@127.0.0.1:5432), applies the migrations, writes one company's 1,000,000 orders
 * over 365 days with SQL (methods and statuses mixed as a shop's are), vacuums, then times
 * `salesSummary` (the home's statements, sent together) 50 times after 5 warm-up runs, live mode.
 * The scratch database is dropped at the end, whatever happens.
 */
import pg from 'pg';
import { seedCompany } from '../src/cli/seed.js';
import { salesSummary } from '../src/orders/sales.js';
import { createDatabase } from '../src/shared/db/index.js';
import { migrate } from '../src/shared/db/migrate.js';

const server = process.argv[2] ?? 'postgres://postgres@127.0.0.1:5432';
const name = `plinks_home_bench_${process.pid}`;
const ORDERS = 1_000_000;
const RUNS = 50;

const admin = new pg.Client({ connectionString: `${server}/postgres` });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
const database = createDatabase(`${server}/${name}`, 4);
try {
  await migrate(database.pool);
  const tenant = await seedCompany(database.db);
  const product = tenant.products[0]?.id;
  const started = performance.now();
  // A year of orders, newest today: a third card, a third Pix, a third boleto; about 60% paid, of
  // which some refunded or charged back; the rest pending, failed or abandoned.
  await database.pool.query(
    `INSERT INTO orders (code, company_id, livemode, product_id, status, amount, payment_method, created_at, paid_at)
     SELECT gen_random_uuid(), $1, i % 20 <> 0, $2,
            (ARRAY['paid','paid','paid','paid','paid','refunded','charged_back','pending','failed','abandoned'])[1 + i % 10],
            (10 + (i::bigint * 7919) % 990)::numeric(12,2),
            (ARRAY['credit_card','pix','boleto'])[1 + (i / 10) % 3],
            now() - make_interval(secs => (i::double precision / $3) * 365 * 86400),
            CASE WHEN i % 10 < 7 THEN now() - make_interval(secs => (i::double precision / $3) * 365 * 86400) + interval '5 minutes' END
       FROM generate_series(1, $3) AS i`,
    [tenant.company.id, product, ORDERS],
  );
  await database.pool.query('VACUUM ANALYZE orders');
  const loaded = performance.now() - started;
  for (let i = 0; i < 5; i++) await salesSummary(database.db, tenant.company.id, true);
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await salesSummary(database.db, tenant.company.id, true);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const at = (q: number): string =>
    (times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0).toFixed(1);
  const summary = await salesSummary(database.db, tenant.company.id, true);
  const plans: string[] = [];
  for (const statement of [
    `SELECT count(*), count(*) FILTER (WHERE paid_at IS NOT NULL) FROM orders WHERE company_id = $1 AND livemode AND created_at >= now() - interval '30 days'`,
    `SELECT payment_method, sum(amount) FROM orders WHERE company_id = $1 AND livemode AND paid_at >= now() - interval '30 days' AND paid_at IS NOT NULL GROUP BY 1`,
  ]) {
    const plan = await database.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ANALYZE ${statement}`, [
      tenant.company.id,
    ]);
    plans.push(plan.rows.map((r) => r['QUERY PLAN']).join('\n'));
  }
  console.log(
    JSON.stringify(
      {
        orders: ORDERS,
        loadSeconds: Math.round(loaded / 1000),
        windowOrdersCreated: summary.createdOrders,
        windowOrdersPaid: summary.paidOrders,
        homeMs: { median: at(0.5), p95: at(0.95), max: at(1) },
      },
      null,
      2,
    ),
  );
  console.log(plans.join('\n\n'));
} finally {
  await database.close();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.end();
}
