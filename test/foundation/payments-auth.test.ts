import { expect } from 'chai';
import { sql } from 'drizzle-orm';
import { sharedApp, seed, type TestApp } from '../helpers/app.js';
import type { SeedResult } from '../../src/cli/seed.js';
import { revokeKey } from '../../src/keys/service.js';
import { createKey } from '../../src/keys/service.js';
import { setCompanyActive } from '../../src/companies/service.js';
import { eventually } from '../events/helpers.js';

describe('payments API authentication', () => {
  let app: TestApp;
  let tenant: SeedResult;

  before(async () => {
    app = await sharedApp();
    tenant = await seed();
  });

  const expectError = (
    res: { status: number; body: Record<string, unknown> },
    status: number,
    type: string,
  ): void => {
    expect(res.status).to.equal(status);
    expect(res.body).to.have.nested.property('error.type', type);
    expect(res.body).to.have.nested.property('error.message').that.is.a('string').and.not.empty;
  };

  it('refuses a request without an Authorization header with 401 authentication_error', async () => {
    expectError(await app.http.get('/v1/offers'), 401, 'authentication_error');
  });

  it('refuses a non-Bearer scheme with 401', async () => {
    expectError(
      await app.http.get('/v1/offers', { headers: { authorization: `Basic ${tenant.keys.test}` } }),
      401,
      'authentication_error',
    );
  });

  it('refuses a malformed key with 401', async () => {
    expectError(await app.http.get('/v1/offers', { auth: 'not-a-key' }), 401, 'authentication_error');
  });

  it('refuses an unknown key of the right shape with 401', async () => {
    expectError(
      await app.http.get('/v1/offers', { auth: `vk_test_${'a'.repeat(40)}` }),
      401,
      'authentication_error',
    );
  });

  it('refuses a revoked key from the very next request', async () => {
    const key = await createKey(app.ctx.db, {
      companyId: tenant.company.id,
      name: 'to revoke',
      kind: 'payments',
      test: true,
    });
    expect((await app.http.get('/v1/offers', { auth: key.value })).status).to.equal(200);
    await revokeKey(app.ctx, tenant.company.id, key.row.id);
    expectError(await app.http.get('/v1/offers', { auth: key.value }), 401, 'authentication_error');
  });

  it('refuses a read-only key with 403 permission_error', async () => {
    expectError(await app.http.get('/v1/offers', { auth: tenant.keys.read_only }), 403, 'permission_error');
  });

  it('refuses a panel token with 401', async () => {
    expectError(await app.http.get('/v1/offers', { auth: tenant.panel_token }), 401, 'authentication_error');
  });

  it('refuses keys of an inactive company with 403 permission_error', async () => {
    const inactive = await seed({ inactive: true });
    expectError(await app.http.get('/v1/offers', { auth: inactive.keys.test }), 403, 'permission_error');
    expectError(await app.http.get('/v1/offers', { auth: inactive.keys.live }), 403, 'permission_error');
  });

  it('accepts the key again once the company is reactivated', async () => {
    const other = await seed({ inactive: true });
    await setCompanyActive(app.ctx.db, other.company.id, true);
    expect((await app.http.get('/v1/offers', { auth: other.keys.live })).status).to.equal(200);
  });

  it('accepts both test and live payments keys', async () => {
    expect((await app.http.get('/v1/offers', { auth: tenant.keys.test })).status).to.equal(200);
    expect((await app.http.get('/v1/offers', { auth: tenant.keys.live })).status).to.equal(200);
  });

  it('records the last use of a key (throttled to once a minute: test/unit/last-used.test.ts)', async () => {
    const fresh = await seed();
    const lastUsed = async (): Promise<Date | undefined> => {
      const result = await app.ctx.db.execute<{ last_used_at: string | null }>(
        sql`SELECT last_used_at FROM api_keys WHERE company_id = ${fresh.company.id} AND test AND kind = 'payments'`,
      );
      const value = result.rows[0]?.last_used_at;
      return value ? new Date(value) : undefined;
    };
    expect(await lastUsed()).to.equal(undefined);
    expect((await app.http.get('/v1/offers', { auth: fresh.keys.test })).status).to.equal(200);
    // Written off the request path: it lands just after the answer.
    expect(await eventually(lastUsed, 10_000, 'last_used_at')).to.be.instanceOf(Date);
  });
});
