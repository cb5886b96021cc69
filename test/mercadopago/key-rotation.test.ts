import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import pg from 'pg';
import { seedCompany, type SeedResult } from '../../src/cli/seed.js';
import { freePort } from '../../src/infra/free-port.js';
import { openValues } from '../../src/integrations/kinds/sealed.js';
import { credentialSealer, parseKeyRing, singleKeyRing } from '../../src/shared/credentials.js';
import { migrate } from '../../src/shared/db/migrate.js';
import { randomBase62 } from '../../src/shared/ids.js';
import { startEngine, type Engine } from '../events/helpers.js';
import { databaseOnServer, testEnvironment } from '../helpers/environment.js';
import { MercadoPagoStandIn, type Seller } from '../helpers/mercadopago/index.js';
import { noteSecret } from '../helpers/secrets.js';
import type { TestApp } from '../helpers/app.js';
import { connectMercadoPago, mercadoPagoEnv, offerLink, P, pay } from './helpers.js';

const run = promisify(execFile);
const newKey = (): string => randomBytes(32).toString('base64');

/**
 * Rotating CREDENTIALS_ENCRYPTION_KEY as docs/operations.md tells an operator: the new key put first in
 * CREDENTIALS_ENCRYPTION_KEYS, `cli credentials reseal` while the service runs, the old key removed.
 * A database of its own: the reseal reads every row of it.
 */
describe('Rotating the credentials key: rotate, reseal, remove the old key, every company still charges', function () {
  this.timeout(240_000);
  const OLD = newKey();
  const NEW = newKey();
  for (const key of [OLD, NEW]) noteSecret(key);
  let mp: MercadoPagoStandIn;
  let database: { url: string; drop(): Promise<void> };
  let engine: Engine | undefined;

  before(async () => {
    mp = await MercadoPagoStandIn.start();
    database = await databaseOnServer(
      testEnvironment().databaseUrl,
      `plinks_keys_${randomBase62(8).toLowerCase()}`,
    );
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    await migrate(pool);
    await pool.end();
  });
  after(async () => {
    await engine?.close();
    await mp?.close();
    await database?.drop();
  });

  /** The service (web and workers) started again with `keys`, as a deployment restarts with new settings. */
  async function restart(keys: Record<string, string>): Promise<TestApp> {
    await engine?.close();
    const port = await freePort();
    engine = await startEngine({
      ...mercadoPagoEnv(mp),
      DATABASE_URL: database.url,
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      MERCADOPAGO_RECONCILE_AFTER_SECONDS: '3600',
      ...keys,
    });
    return engine.app;
  }

  /** A Pix through the company's own MP account: the order made, with the company's token. */
  async function charges(app: TestApp, tenant: SeedResult, seller: Seller): Promise<void> {
    const link = await offerLink(app, tenant);
    const paid = await pay(app, link.code, { plink: link.id, payment_method: 'pix' });
    expect(paid.status, paid.page).to.equal(303);
    const sent = mp.requests.find(
      (r) => r.path === '/v1/payments' && r.headers['x-idempotency-key'] === paid.orderCode,
    );
    expect(sent?.userId, 'charged with the company’s own token').to.equal(seller.userId);
  }

  /** The key id of every sealed value in the database: tokens, custom headers. */
  async function sealedUnder(app: TestApp): Promise<string[]> {
    const { rows } = await app.ctx.pool.query<{ value: string }>(
      `SELECT access_token AS value FROM gateway_accounts UNION ALL SELECT refresh_token FROM gateway_accounts
       UNION ALL SELECT value FROM integrations, jsonb_each_text(headers)`,
    );
    return rows.map((r) => r.value.split('.').slice(0, 2).join('.'));
  }

  function reseal(ring: string): Promise<{ stdout: string; stderr: string }> {
    return run(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'credentials', 'reseal', '--batch', '2'],
      {
        env: {
          ...process.env,
          DATABASE_URL: database.url,
          CREDENTIALS_ENCRYPTION_KEYS: ring,
          LOG_LEVEL: 'warn',
        },
        timeout: 60_000,
      },
    );
  }

  it('keeps every company charging through the rotation, and the old key is no longer needed after the reseal', async () => {
    // Before: the single CREDENTIALS_ENCRYPTION_KEY, a ring of one whose id is `default`.
    let app = await restart({ CREDENTIALS_ENCRYPTION_KEY: OLD });
    const companies: Array<{ tenant: SeedResult; seller: Seller }> = [];
    for (let i = 0; i < 3; i++) {
      const tenant = await seedCompany(app.ctx.db, {});
      companies.push({ tenant, ...(await connectMercadoPago({ app, mp }, tenant)) });
    }
    const [first] = companies;
    if (!first) throw new Error('unreachable');
    const hook = await app.http.post<{ id: number }>(`${P}/integrations/`, {
      auth: first.tenant.panel_token,
      body: {
        type: 'webhook',
        config: { url: 'http://127.0.0.1:9/hook', headers: { 'X-Partner-Token': 'partner-secret-1' } },
        events: ['order.paid'],
      },
    });
    expect(hook.status, hook.text).to.equal(201);
    noteSecret('partner-secret-1');
    expect(new Set(await sealedUnder(app))).to.deep.equal(new Set(['v2.default']));

    // Rotate: the new key first. The old one keeps opening its values (named `old` now: a value opens
    // with whichever key of the ring sealed it); a company connecting now is sealed under the new key.
    const rotated = `new:${NEW},old:${OLD}`;
    app = await restart({ CREDENTIALS_ENCRYPTION_KEYS: rotated });
    for (const { tenant, seller } of companies) await charges(app, tenant, seller);
    const late = await seedCompany(app.ctx.db, {});
    companies.push({ tenant: late, ...(await connectMercadoPago({ app, mp }, late)) });
    const mixed = await sealedUnder(app);
    expect(mixed.filter((id) => id === 'v2.new')).to.have.length(2);
    expect(mixed.filter((id) => id === 'v2.default')).to.have.length(7);
    // Without the old key, those values would not open: the reseal is what makes removing it safe.
    const newOnly = credentialSealer(parseKeyRing(`new:${NEW}`));
    const { rows } = await app.ctx.pool.query<{ id: number; access_token: string }>(
      'SELECT id, access_token FROM gateway_accounts ORDER BY id LIMIT 1',
    );
    expect(() =>
      newOnly.open(rows[0]?.access_token ?? '', `gateway_account:${rows[0]?.id}:access_token`),
    ).to.throw(/did not open/);

    // Reseal while the service runs, two rows at a time, saying how far it got.
    const { stdout } = await reseal(rotated);
    expect(stdout).to.include('Resealing stored credentials under key "new", 2 rows at a time');
    expect(stdout).to.include('gateway_accounts: 2 checked, 2 resealed, 0 unreadable');
    expect(stdout).to.include('gateway_accounts: 4 checked, 3 resealed, 0 unreadable');
    expect(stdout).to.include('integrations: 1 checked, 1 resealed, 0 unreadable');
    expect(stdout).to.include('Done: every credential is sealed under key "new"; older keys may be removed.');
    expect(new Set(await sealedUnder(app))).to.deep.equal(new Set(['v2.new']));
    for (const { tenant, seller } of companies) await charges(app, tenant, seller);

    // Remove the old key: every company still charges, the custom header still opens.
    app = await restart({ CREDENTIALS_ENCRYPTION_KEYS: `new:${NEW}` });
    for (const { tenant, seller } of companies) await charges(app, tenant, seller);
    const header = await app.ctx.pool.query<{ headers: Record<string, string> }>(
      'SELECT headers FROM integrations WHERE id = $1',
      [hook.body.id],
    );
    expect(
      openValues(app.ctx.config.credentialsKey, hook.body.id, 'headers', header.rows[0]?.headers ?? null),
    ).to.deep.equal({
      'X-Partner-Token': 'partner-secret-1',
    });
    // A second reseal finds nothing to do.
    expect((await reseal(`new:${NEW}`)).stdout).to.include(
      'gateway_accounts: 4 checked, 0 resealed, 0 unreadable',
    );
  });

  it('opens a value sealed before the ring (v1, no key id) with the key that sealed it', () => {
    const key = randomBytes(32);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from('gateway_account:7:access_token'));
    const body = Buffer.concat([cipher.update('APP_USR-legacy', 'utf8'), cipher.final()]);
    const v1 = ['v1', ...[iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url'))].join('.');
    const ring = { keys: [{ id: 'new', key: randomBytes(32) }, ...singleKeyRing(key).keys] };
    const sealer = credentialSealer(ring);
    expect(sealer.open(v1, 'gateway_account:7:access_token')).to.equal('APP_USR-legacy');
    expect(sealer.isCurrent(v1)).to.equal(false);
    expect(() => sealer.open(v1, 'gateway_account:8:access_token')).to.throw(/did not open/);
  });

  it('refuses a ring that is not comma-separated id:base64key pairs, naming the variable', () => {
    for (const ring of ['nokey', `a:${newKey()},a:${newKey()}`, 'a:c2hvcnQ=', `bad id:${newKey()}`])
      expect(() => testEnvironment().config({ CREDENTIALS_ENCRYPTION_KEYS: ring }), ring).to.throw(
        /CREDENTIALS_ENCRYPTION_KEYS/,
      );
    const ring = testEnvironment().config({
      CREDENTIALS_ENCRYPTION_KEYS: `b:${newKey()},a:${newKey()}`,
    }).credentialsKey;
    expect(ring?.keys.map((k) => k.id)).to.deep.equal(['b', 'a']);
  });
});
