/**
 * The baseline: bare Express + pg, one INSERT or one primary-key SELECT per request on the same
 * database and table as the service. No auth, validation, rate limit or logging: the floor.
 */
import express from 'express';
import pg from 'pg';
import { randomBase62 } from '../src/shared/ids.js';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const companyId = Number(process.env.BENCH_COMPANY_ID);
const productId = Number(process.env.BENCH_PRODUCT_ID);
const offerId = Number(process.env.BENCH_OFFER_ID);
const offerCode = process.env.BENCH_OFFER_CODE ?? '';

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.use(express.json());

app.post('/links', async (_req, res) => {
  const { rows } = await pool.query(
    `INSERT INTO payment_links (id, company_id, livemode, type, offer_id, offer_code, product_id, short_code, expires_at)
     VALUES ($1, $2, false, 'offer', $3, $4, $5, $6, clock_timestamp() + interval '7 days') RETURNING *`,
    [`plink_${randomBase62(24)}`, companyId, offerId, offerCode, productId, randomBase62(8)],
  );
  res.status(201).json(rows[0]);
});

app.get('/links/:id', async (req, res) => {
  const { rows } = await pool.query('SELECT * FROM payment_links WHERE id = $1', [req.params.id]);
  if (rows.length === 0) {
    res.status(404).json({ error: 'not found' });
    return;
  }
  res.json(rows[0]);
});

const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(JSON.stringify({ port: address.port }));
});
process.on('SIGTERM', () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});
