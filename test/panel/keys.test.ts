import { expect } from 'chai';
import { sharedApp, seed, type TestApp } from '../helpers/app.js';
import type { SeedResult } from '../../src/cli/seed.js';
import { createPanelToken } from '../../src/companies/service.js';
import { insertUser } from '../../src/companies/repository.js';
import { expectError, P } from './helpers.js';

interface KeyBody {
  id: number;
  name: string;
  kind: string;
  test: boolean;
  prefix: string;
  last4: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  key?: string;
}

describe('panel API keys', () => {
  let app: TestApp;

  before(async () => {
    app = await sharedApp();
  });

  const create = (t: SeedResult, body: Record<string, unknown>) =>
    app.http.post<KeyBody>(`${P}/api-keys`, { auth: t.panel_token, body });
  const list = async (t: SeedResult) =>
    (await app.http.get<KeyBody[]>(`${P}/api-keys`, { auth: t.panel_token })).body;

  it('lists keys masked: prefix and last4, never the full value', async () => {
    const t = await seed();
    const res = await app.http.get<KeyBody[]>(`${P}/api-keys`, { auth: t.panel_token });
    expect(res.status).to.equal(200);
    expect(res.body).to.have.length(3);
    for (const key of res.body) {
      expect(key).to.not.have.property('key');
      expect(key.prefix).to.have.length(12);
      expect(key.last4).to.have.length(4);
    }
    const full = [t.keys.test, t.keys.live, t.keys.read_only];
    for (const value of full) expect(res.text).to.not.include(value);
    const test = res.body.find((k) => k.kind === 'payments' && k.test);
    expect(test?.prefix).to.equal(t.keys.test.slice(0, 12));
    expect(test?.last4).to.equal(t.keys.test.slice(-4));
  });

  it('creates a key (201) returning the full value once; the key works and later reads show it masked', async () => {
    const t = await seed();
    const res = await create(t, { name: 'Backend', kind: 'payments', test: true });
    expect(res.status).to.equal(201);
    expect(res.body).to.include({
      name: 'Backend',
      kind: 'payments',
      test: true,
      last_used_at: null,
      revoked_at: null,
    });
    const key = res.body.key ?? '';
    expect(key).to.match(/^vk_test_[0-9A-Za-z]{32,}$/);
    expect(res.body.prefix).to.equal(key.slice(0, 12));
    expect(res.body.last4).to.equal(key.slice(-4));
    expect((await app.http.get('/v1/offers', { auth: key })).status).to.equal(200);
    const listed = (await list(t)).find((k) => k.id === res.body.id);
    expect(listed).to.not.have.property('key');
  });

  it('creates read-only keys that work on the panel API for reads', async () => {
    const t = await seed();
    const res = await create(t, { name: 'Dashboard', kind: 'read_only', test: false });
    expect(res.status).to.equal(201);
    expect(res.body.key).to.match(/^vk_live_/);
    expect((await app.http.get(`${P}/integrations/`, { auth: res.body.key ?? '' })).status).to.equal(200);
  });

  it('validates the body: name, kind and test', async () => {
    const t = await seed();
    expectError(await create(t, { kind: 'payments' }), 400, 'validation_error', 'name');
    expectError(await create(t, { name: 'x', kind: 'admin' }), 400, 'validation_error', 'kind');
    expectError(
      await create(t, { name: 'x', kind: 'payments', test: 'maybe' }),
      400,
      'validation_error',
      'test',
    );
    expectError(await create(t, { name: 'x', kind: 'payments', extra: 1 }), 400, 'validation_error', 'extra');
  });

  it('allows 10 active keys per company across kinds, then 409 conflict; revoking frees a slot', async () => {
    const t = await seed(); // 3 keys already
    for (let i = 0; i < 7; i++) {
      const res = await create(t, {
        name: `k${i}`,
        kind: i % 2 ? 'payments' : 'read_only',
        test: i % 3 === 0,
      });
      expect(res.status, `key ${i + 4}`).to.equal(201);
    }
    expectError(await create(t, { name: 'eleventh', kind: 'payments', test: false }), 409, 'conflict');
    const victim = (await list(t)).find((k) => k.name === 'k0');
    expect((await app.http.delete(`${P}/api-keys/${victim?.id}`, { auth: t.panel_token })).status).to.equal(
      204,
    );
    expect((await create(t, { name: 'replacement', kind: 'payments', test: false })).status).to.equal(201);
  });

  it('revokes a key (204); it is refused from the very next request and listed with revoked_at', async () => {
    const t = await seed();
    const created = (await create(t, { name: 'temp', kind: 'payments', test: true })).body;
    const key = created.key ?? '';
    expect((await app.http.get('/v1/offers', { auth: key })).status).to.equal(200);
    const res = await app.http.delete(`${P}/api-keys/${created.id}`, { auth: t.panel_token });
    expect(res.status).to.equal(204);
    expect(res.text).to.equal('');
    expectError(await app.http.get('/v1/offers', { auth: key }), 401, 'authentication_error');
    const listed = (await list(t)).find((k) => k.id === created.id);
    expect(listed?.revoked_at).to.be.a('string');
  });

  it('lets only the owner create or revoke keys (member: 403)', async () => {
    const t = await seed();
    const member = await insertUser(app.ctx.db, {
      companyId: t.company.id,
      email: `member-${Date.now()}-${Math.random()}@example.com`,
      name: 'Member',
      role: 'member',
    });
    const auth = await createPanelToken(app.ctx.db, member.id);
    expect((await app.http.get(`${P}/api-keys`, { auth })).status).to.equal(200);
    expectError(
      await app.http.post(`${P}/api-keys`, { auth, body: { name: 'x', kind: 'payments' } }),
      403,
      'permission_error',
    );
    const victim = (await list(t))[0];
    expectError(await app.http.delete(`${P}/api-keys/${victim?.id}`, { auth }), 403, 'permission_error');
  });

  it("never lists or revokes another company's keys (404)", async () => {
    const t = await seed();
    const other = await seed();
    const theirs = (await list(other))[0];
    expectError(
      await app.http.delete(`${P}/api-keys/${theirs?.id}`, { auth: t.panel_token }),
      404,
      'not_found',
    );
    expect((await list(t)).map((k) => k.id)).to.not.include(theirs?.id);
    expect((await app.http.get('/v1/offers', { auth: other.keys.test })).status).to.equal(200);
  });
});
