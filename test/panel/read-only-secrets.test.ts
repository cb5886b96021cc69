import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
import { insertUser } from '../../src/companies/repository.js';
import { createPanelToken } from '../../src/companies/service.js';
import { seed, sharedApp, type TestApp } from '../helpers/app.js';
import { P, webhook, type IntegrationBody } from './helpers.js';

/** A read-only key must not be able to sign webhooks or finish an OAuth. */
describe('what a read-only key sees of integrations', () => {
  let app: TestApp;
  let tenant: SeedResult;
  let member: string;
  const secret = 'whsec_c2VjcmV0LXRoYXQtc2lnbnMtd2ViaG9va3M=';

  before(async () => {
    app = await sharedApp();
    tenant = await seed();
    const user = await insertUser(app.ctx.db, {
      companyId: tenant.company.id,
      email: `member-${tenant.company.id}@example.com`,
      name: 'Member',
      role: 'member',
    });
    member = await createPanelToken(app.ctx.db, user.id);
    const created = await app.http.post(`${P}/integrations/`, {
      auth: tenant.panel_token,
      body: webhook({ config: { url: 'https://hooks.example.com/r', secret } }),
    });
    expect(created.status).to.equal(201);
    const gateway = await app.http.post(`${P}/integrations/`, {
      auth: tenant.panel_token,
      body: { type: 'gateway', config: {}, events: [] },
    });
    expect(gateway.status).to.equal(201);
  });

  const secretsIn = async (credential: string): Promise<string[]> => {
    const list = await app.http.get<IntegrationBody[]>(`${P}/integrations/`, { auth: credential });
    expect(list.status).to.equal(200);
    const one = list.body.find((i) => i.type === 'webhook');
    const single = await app.http.get<IntegrationBody>(`${P}/integrations/${one?.id ?? 0}`, {
      auth: credential,
    });
    return [one?.config.secret ?? '', single.body.config.secret ?? ''];
  };

  it('shows owners and members the whole signing secret, and a read-only key only its last 4 characters', async () => {
    expect(await secretsIn(tenant.panel_token)).to.deep.equal([secret, secret]);
    expect(await secretsIn(member)).to.deep.equal([secret, secret]);
    const masked = await secretsIn(tenant.keys.read_only);
    expect(masked).to.deep.equal([`whsec_…${secret.slice(-4)}`, `whsec_…${secret.slice(-4)}`]);
  });

  it('shows a pending gateway alert to a read-only key without its oauth_url (whose state completes the OAuth)', async () => {
    const owner = await app.http.get<Record<string, unknown>>(`${P}/integrations/alerts`, {
      auth: tenant.panel_token,
    });
    expect(owner.body).to.include({ pending: true, type: 'gateway' });
    expect(owner.body.oauth_url).to.match(/state=/);
    const readOnly = await app.http.get<Record<string, unknown>>(`${P}/integrations/alerts`, {
      auth: tenant.keys.read_only,
    });
    expect(readOnly.body).to.deep.equal({ pending: true, type: 'gateway' });
  });
});
