import { expect } from 'chai';
import { sql } from 'drizzle-orm';
import { sharedApp, seed, type TestApp } from '../helpers/app.js';
import type { SeedResult } from '../../src/cli/seed.js';
import { createPanelToken, setCompanyActive } from '../../src/companies/service.js';
import { insertUser } from '../../src/companies/repository.js';
import { createKey, revokeKey } from '../../src/keys/service.js';
import { expectError, P, webhook } from './helpers.js';

describe('panel API authentication', () => {
  let app: TestApp;
  let tenant: SeedResult;

  before(async () => {
    app = await sharedApp();
    tenant = await seed();
  });

  const list = (auth?: string, headers?: Record<string, string>) =>
    app.http.get(`${P}/integrations/`, { ...(auth ? { auth } : {}), ...(headers ? { headers } : {}) });

  it('accepts the owner panel token on reads and writes', async () => {
    expect((await list(tenant.panel_token)).status).to.equal(200);
    expect(
      (await app.http.post(`${P}/integrations/`, { auth: tenant.panel_token, body: webhook() })).status,
    ).to.equal(201);
  });

  it('accepts a member panel token for integrations', async () => {
    const member = await insertUser(app.ctx.db, {
      companyId: tenant.company.id,
      email: `member-${Date.now()}-${Math.random()}@example.com`,
      name: 'Member',
      role: 'member',
    });
    const token = await createPanelToken(app.ctx.db, member.id);
    expect((await list(token)).status).to.equal(200);
    expect((await app.http.post(`${P}/integrations/`, { auth: token, body: webhook() })).status).to.equal(
      201,
    );
  });

  it('answers 401 authentication_error without a header, with another scheme, or with an unknown token', async () => {
    expectError(await list(), 401, 'authentication_error');
    expectError(
      await list(undefined, { authorization: `Basic ${tenant.panel_token}` }),
      401,
      'authentication_error',
    );
    expectError(await list('garbage'), 401, 'authentication_error');
    expectError(await list(`pt_${'a'.repeat(40)}`), 401, 'authentication_error');
  });

  it('answers 401 for a revoked panel token', async () => {
    const owner = await seed();
    await app.ctx.db.execute(
      sql`UPDATE panel_tokens SET revoked_at = now() WHERE user_id IN (SELECT id FROM users WHERE company_id = ${owner.company.id})`,
    );
    expectError(await list(owner.panel_token), 401, 'authentication_error');
  });

  it('refuses payments keys, test and live, with 403 permission_error', async () => {
    expectError(await list(tenant.keys.test), 403, 'permission_error');
    expectError(await list(tenant.keys.live), 403, 'permission_error');
  });

  it('lets a read-only key read but refuses every write with 403', async () => {
    const auth = tenant.keys.read_only;
    expect((await list(auth)).status).to.equal(200);
    expect((await app.http.get(`${P}/integrations/events`, { auth })).status).to.equal(200);
    expect((await app.http.get(`${P}/products`, { auth })).status).to.equal(200);
    expect((await app.http.get(`${P}/api-keys`, { auth })).status).to.equal(200);
    expectError(
      await app.http.post(`${P}/integrations/`, { auth, body: webhook() }),
      403,
      'permission_error',
    );
    expectError(await app.http.patch(`${P}/integrations/1`, { auth, body: {} }), 403, 'permission_error');
    expectError(await app.http.delete(`${P}/integrations/1`, { auth }), 403, 'permission_error');
    expectError(await app.http.post(`${P}/products`, { auth, body: { name: 'x' } }), 403, 'permission_error');
    expectError(
      await app.http.post(`${P}/api-keys`, { auth, body: { name: 'x', kind: 'payments' } }),
      403,
      'permission_error',
    );
  });

  it('refuses a revoked read-only key with 401 from the next request', async () => {
    const key = await createKey(app.ctx.db, {
      companyId: tenant.company.id,
      name: 'ro',
      kind: 'read_only',
      test: false,
    });
    expect((await list(key.value)).status).to.equal(200);
    await revokeKey(app.ctx, tenant.company.id, key.row.id);
    expectError(await list(key.value), 401, 'authentication_error');
  });

  it('answers 402 for an inactive company, to panel tokens and read-only keys alike, and recovers on reactivation', async () => {
    const inactive = await seed({ inactive: true });
    expectError(await list(inactive.panel_token), 402, 'permission_error');
    expectError(await list(inactive.keys.read_only), 402, 'permission_error');
    expectError(
      await app.http.post(`${P}/integrations/`, { auth: inactive.panel_token, body: webhook() }),
      402,
      'permission_error',
    );
    expectError(await app.http.get(`${P}/api-keys`, { auth: inactive.panel_token }), 402, 'permission_error');
    await setCompanyActive(app.ctx.db, inactive.company.id, true);
    expect((await list(inactive.panel_token)).status).to.equal(200);
  });

  it('documents 401, 402, 403 and 500 on every authenticated panel operation', async () => {
    const doc = (await app.http.get(`${P}/openapi.json`)).body as {
      paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>;
    };
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (op.security?.length === 0) continue;
        expect(op.responses, `${method} ${path}`).to.include.keys('401', '402', '403', '500');
      }
    }
  });

  it('serves the panel OpenAPI document without credentials, with the panel paths', async () => {
    const res = await app.http.get<{ paths: Record<string, unknown> }>(`${P}/openapi.json`);
    expect(res.status).to.equal(200);
    expect(res.body.paths).to.include.keys(
      '/integrations/',
      '/integrations/{id}',
      '/integrations/events',
      '/integrations/alerts',
      '/integrations/{id}/products',
      '/integrations/{id}/products/{product_id}',
      '/api-keys',
      '/api-keys/{id}',
      '/products',
      '/offers',
      '/plans',
      '/coupons',
    );
  });
});
