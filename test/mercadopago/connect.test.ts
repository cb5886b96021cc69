import { expect } from 'chai';
import { eq, sql } from 'drizzle-orm';
import { schema } from '../../src/shared/db/index.js';
import { seed, startTestApp } from '../helpers/app.js';
import { findAccount } from '../../src/gateways/accounts/repository.js';
import {
  connectMercadoPago,
  createMercadoPagoGateway,
  mercadoPagoWorld,
  oauthUrlOf,
  onService,
  P,
  type WireIntegration,
} from './helpers.js';

interface ErrorBody {
  error: { type: string; message: string; fields?: Record<string, string[]> };
}

describe('Mercado Pago: a company connects its own account (OAuth)', function () {
  this.timeout(60_000);
  const world = mercadoPagoWorld();

  const tokenRequests = () => world.mp.requests.filter((r) => r.path === '/oauth/token');

  it('hands out MP’s authorization address with a single-use state, the callback and a PKCE challenge', async () => {
    const tenant = await seed();
    await createMercadoPagoGateway(world.app, tenant);
    const url = await oauthUrlOf(world.app, tenant);
    expect(`${url.origin}${url.pathname}`).to.equal(`${world.mp.authUrl}/authorization`);
    const q = url.searchParams;
    expect(q.get('client_id')).to.equal(world.mp.clientId);
    expect(q.get('response_type')).to.equal('code');
    expect(q.get('platform_id')).to.equal('mp');
    expect(q.get('state')).to.match(/^[0-9A-Za-z]{16,}$/);
    expect(q.get('redirect_uri')).to.equal(`${world.app.ctx.config.urls.panel}/integrations/oauth/callback`);
    expect(q.get('code_challenge_method')).to.equal('S256');
    expect(q.get('code_challenge')).to.match(/^[A-Za-z0-9_-]{43}$/);
    // Asked again while it is fresh, the alert shows the same address.
    expect((await oauthUrlOf(world.app, tenant)).href).to.equal(url.href);
  });

  it('exchanges the code server-side and shows the connected account, never a token', async () => {
    const tenant = await seed();
    const seller = world.mp.createSeller();
    const integrationId = await createMercadoPagoGateway(world.app, tenant);
    const url = await oauthUrlOf(world.app, tenant);
    const before = tokenRequests().length;
    const redirect = await world.mp.authorize(url.href, seller);
    const done = await world.app.http.get(onService(redirect));
    expect(done.status, done.text).to.equal(200);
    expect(done.body).to.deep.equal({ pending: false });

    // One exchange, with the same redirect_uri and the PKCE verifier (the stand-in checks both).
    const exchanges = tokenRequests().slice(before);
    expect(exchanges).to.have.length(1);
    expect(exchanges[0]?.status).to.equal(200);

    const read = await world.app.http.get<WireIntegration>(`${P}/integrations/${integrationId}`, {
      auth: tenant.panel_token,
    });
    expect(read.body.config).to.have.all.keys('provider', 'account_id', 'public_key', 'connected_at');
    expect(read.body.config).to.include({
      provider: 'mercadopago',
      account_id: String(seller.userId),
      public_key: world.mp.publicKey(seller.userId),
    });
    expect(JSON.stringify(read.body)).not.to.match(/APP_USR-[0-9a-f-]*-[0-9]+$|TG-/);
    const alert = await world.app.http.get(`${P}/integrations/alerts`, { auth: tenant.panel_token });
    expect(alert.body).to.deep.equal({ pending: false });

    // The redirect replayed: the state was used up, nothing is exchanged again.
    const replay = await world.app.http.get<ErrorBody>(onService(redirect));
    expect(replay.status).to.equal(400);
    expect(replay.body.error.fields).to.have.property('state');
    expect(tokenRequests().length).to.equal(before + 1);
  });

  it('refuses a forged or expired state with a 4xx and asks MP for nothing', async () => {
    const tenant = await seed();
    const integrationId = await createMercadoPagoGateway(world.app, tenant);
    const url = await oauthUrlOf(world.app, tenant);
    const before = tokenRequests().length;

    const forged = await world.app.http.get<ErrorBody>(
      `${P}/integrations/oauth/callback?state=${'x'.repeat(32)}&code=TG-forged`,
    );
    expect(forged.status).to.equal(400);

    // The real state, past its expiry.
    await world.app.ctx.db
      .update(schema.gatewayAuthorizations)
      .set({ stateExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(schema.gatewayAuthorizations.integrationId, integrationId));
    const redirect = await world.mp.authorize(url.href, world.mp.createSeller());
    const expired = await world.app.http.get<ErrorBody>(onService(redirect));
    expect(expired.status).to.equal(400);
    expect(expired.body.error.fields).to.have.property('state');
    expect(tokenRequests().length).to.equal(before);

    // The alert hands out a fresh address (a new state) that works.
    const fresh = await oauthUrlOf(world.app, tenant);
    expect(fresh.searchParams.get('state')).not.to.equal(url.searchParams.get('state'));
  });

  it('sends the seller’s browser to the dashboard, and shows a page (not JSON) for a bad state', async () => {
    const tenant = await seed();
    await createMercadoPagoGateway(world.app, tenant);
    const redirect = await world.mp.authorize(
      (await oauthUrlOf(world.app, tenant)).href,
      world.mp.createSeller(),
    );
    const browser = { accept: 'text/html,application/xhtml+xml', 'accept-language': 'pt-BR' };
    const done = await fetch(`${world.app.url}${onService(redirect)}`, {
      headers: browser,
      redirect: 'manual',
    });
    expect(done.status).to.equal(303);
    expect(done.headers.get('location')).to.equal(
      `${world.app.ctx.config.urls.payments}/dashboard/integrations?done=gateway_connected`,
    );
    const again = await fetch(`${world.app.url}${onService(redirect)}`, {
      headers: browser,
      redirect: 'manual',
    });
    expect(again.status).to.equal(400);
    expect(again.headers.get('content-type')).to.match(/^text\/html/);
    expect(await again.text()).to.include('Autorização não concluída');
  });

  it('keeps no usable token in the database: a dump of every table holds neither token', async () => {
    const tenant = await seed();
    const { integrationId } = await connectMercadoPago(world, tenant);
    // What the service was given at the exchange, opened with the service's own key.
    const [row] = await world.app.ctx.db
      .select({ id: schema.gatewayAccounts.id })
      .from(schema.gatewayAccounts)
      .where(eq(schema.gatewayAccounts.integrationId, integrationId));
    const account = await findAccount(world.app.ctx.db, world.app.ctx.config.credentialsKey, row?.id ?? 0);
    if (!account) throw new Error('no account stored');
    const tokens = [account.accessToken, account.refreshToken];
    expect(tokens[0]).to.match(/^APP_USR-/);
    const tables = await world.app.ctx.db.execute<{ name: string }>(
      sql`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'`,
    );
    let dump = '';
    for (const { name } of tables.rows) {
      const rows = await world.app.ctx.db.execute(
        sql.raw(`SELECT row_to_json(t)::text AS r FROM "${name}" t`),
      );
      dump += rows.rows.map((r) => String((r as { r: string }).r)).join('\n');
    }
    expect(dump.length).to.be.greaterThan(1000);
    for (const token of tokens) expect(dump.includes(token), 'a token in the dump').to.equal(false);
    // …while the service can still use them: they are sealed, not lost.
    // Sealed values name their key (`default`: CREDENTIALS_ENCRYPTION_KEY's, docs/operations.md).
    expect(dump).to.match(/"access_token":"v2\.default\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+"/);
  });

  it('refuses provider mercadopago where the deployment has no MP application, naming config.provider', async () => {
    const plain = await startTestApp();
    try {
      const tenant = await seed();
      const res = await plain.http.post<ErrorBody>(`${P}/integrations/`, {
        auth: tenant.panel_token,
        body: { type: 'gateway', config: { provider: 'mercadopago' }, events: [] },
      });
      expect(res.status).to.equal(400);
      expect(res.body.error.fields).to.have.property('config.provider');
      const other = await plain.http.post<ErrorBody>(`${P}/integrations/`, {
        auth: tenant.panel_token,
        body: { type: 'gateway', config: { provider: 'stripe' }, events: [] },
      });
      expect(other.status).to.equal(400);
      expect(other.body.error.fields).to.have.property('config.provider');
    } finally {
      await plain.close();
    }
  });
});
