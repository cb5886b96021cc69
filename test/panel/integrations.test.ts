import { expect } from 'chai';
import { sql } from 'drizzle-orm';
import { sharedApp, seed, startTestApp, type TestApp } from '../helpers/app.js';
import type { SeedResult } from '../../src/cli/seed.js';
import { expectError, P, webhook, type ErrorBody, type IntegrationBody } from './helpers.js';

describe('panel integrations API', () => {
  let app: TestApp;
  let tenant: SeedResult;

  before(async () => {
    app = await sharedApp();
    tenant = await seed();
  });

  const create = (t: SeedResult, body: Record<string, unknown>) =>
    app.http.post<IntegrationBody>(`${P}/integrations/`, { auth: t.panel_token, body });

  describe('create and read', () => {
    it('creates a webhook with the 2.8 fields, defaults, ISO timestamps and a generated whsec_ secret', async () => {
      const res = await create(tenant, webhook({ events: ['order.paid', 'lead.created'] }));
      expect(res.status).to.equal(201);
      const body = res.body;
      expect(body).to.include({
        type: 'webhook',
        is_active: true,
        send_to_all_products: false,
        failure_count: 0,
        last_failure_at: null,
        disabled_reason: '',
      });
      expect(body.events).to.deep.equal(['order.paid', 'lead.created']);
      expect(body.products).to.deep.equal([]);
      expect(body.product_ids).to.deep.equal([]);
      expect(body.config.url).to.equal('https://hooks.example.com/receiver');
      expect(body.config.secret).to.match(/^whsec_[A-Za-z0-9+/]+=*$/);
      expect(new Date(body.created_at).toISOString()).to.equal(body.created_at);
      const got = await app.http.get<IntegrationBody>(`${P}/integrations/${body.id}`, {
        auth: tenant.panel_token,
      });
      expect(got.status).to.equal(200);
      expect(got.body).to.deep.equal(body);
    });

    it('keeps a secret the caller provides', async () => {
      const res = await create(
        tenant,
        webhook({ config: { url: 'https://x.example.com/h', secret: 'my-own-secret' } }),
      );
      expect(res.status).to.equal(201);
      expect(res.body.config.secret).to.equal('my-own-secret');
    });

    // `invoice` has a config of its own (test/invoices/panel.test.ts).
    it('accepts every webhook-kind type and the managed types with free-form string config', async () => {
      for (const type of ['automation_webhook', 'notification_topic', 'database_webhook']) {
        const res = await create(tenant, webhook({ type }));
        expect(res.status, type).to.equal(201);
      }
      for (const [type, config] of [
        ['members_area', { provider: 'builtin' }],
      ] as const) {
        const res = await create(tenant, { type, config, events: ['order.paid'] });
        expect(res.status, type).to.equal(201);
        expect(res.body.config).to.deep.equal(config);
      }
    });

    it('accepts order.payment_declined in events although the panel list does not show it', async () => {
      const res = await create(tenant, webhook({ events: ['order.payment_declined'] }));
      expect(res.status).to.equal(201);
    });

    it('lists the company integrations and filters by type', async () => {
      const own = await seed();
      await create(own, webhook());
      await create(own, { type: 'members_area', config: {}, events: [] });
      const all = await app.http.get<IntegrationBody[]>(`${P}/integrations/`, { auth: own.panel_token });
      expect(all.status).to.equal(200);
      expect(all.body.map((i) => i.type)).to.deep.equal(['webhook', 'members_area']);
      const pixels = await app.http.get<IntegrationBody[]>(`${P}/integrations/?type=members_area`, {
        auth: own.panel_token,
      });
      expect(pixels.body.map((i) => i.type)).to.deep.equal(['members_area']);
      const none = await app.http.get<IntegrationBody[]>(`${P}/integrations/?type=gateway`, {
        auth: own.panel_token,
      });
      expect(none.body).to.deep.equal([]);
    });

    it('refuses an unknown type filter with 400 under type', async () => {
      expectError(
        await app.http.get(`${P}/integrations/?type=fax`, { auth: tenant.panel_token }),
        400,
        'validation_error',
        'type',
      );
    });
  });

  describe('validation', () => {
    it('refuses an unknown type, a missing config, unknown events and unknown fields with 400 naming the field', async () => {
      expectError(await create(tenant, webhook({ type: 'carrier_pigeon' })), 400, 'validation_error', 'type');
      expectError(await create(tenant, { type: 'webhook', events: [] }), 400, 'validation_error', 'config');
      expectError(
        await create(tenant, webhook({ events: ['order.paid', 'order.teleported'] })),
        400,
        'validation_error',
        'events',
      );
      expectError(await create(tenant, webhook({ colour: 'blue' })), 400, 'validation_error', 'colour');
      expectError(await create(tenant, webhook({ events: 'order.paid' })), 400, 'validation_error', 'events');
    });

    it('refuses a webhook config without url, with extra keys or non-string values under config.<key>', async () => {
      expectError(await create(tenant, webhook({ config: {} })), 400, 'validation_error', 'config.url');
      expectError(
        await create(tenant, webhook({ config: { url: 'https://a.example.com', token: 'x' } })),
        400,
        'validation_error',
        'config.token',
      );
      expectError(
        await create(tenant, { type: 'members_area', config: { id: 5 }, events: [] }),
        400,
        'validation_error',
        'config.id',
      );
      expectError(
        await create(tenant, webhook({ config: { url: 'ftp://a.example.com' } })),
        400,
        'validation_error',
        'config.url',
      );
    });

    it('takes rate_limit_per_second from 1 to 1000 or null, on create and PATCH, and refuses anything else under its name', async () => {
      const created = await create(tenant, webhook({ rate_limit_per_second: 25 }));
      expect(created.status).to.equal(201);
      expect(created.body.rate_limit_per_second).to.equal(25);
      expect((await create(tenant, webhook())).body.rate_limit_per_second).to.equal(null);
      for (const bad of [0, 1001, 2.5, '5', true]) {
        expectError(
          await create(tenant, webhook({ rate_limit_per_second: bad })),
          400,
          'validation_error',
          'rate_limit_per_second',
        );
      }
      const id = created.body.id;
      const patch = (t: SeedResult | string, body: Record<string, unknown>) =>
        app.http.patch<IntegrationBody>(`${P}/integrations/${id}`, {
          auth: typeof t === 'string' ? t : t.panel_token,
          body,
        });
      const raised = await patch(tenant, { rate_limit_per_second: 1000 });
      expect(raised.status).to.equal(200);
      expect(raised.body.rate_limit_per_second).to.equal(1000);
      const lifted = await patch(tenant, { rate_limit_per_second: null });
      expect(lifted.body.rate_limit_per_second).to.equal(null);
      expectError(
        await patch(tenant, { rate_limit_per_second: -1 }),
        400,
        'validation_error',
        'rate_limit_per_second',
      );
      // Read-only keys see it and cannot change it.
      const seen = await app.http.get<IntegrationBody>(`${P}/integrations/${id}`, {
        auth: tenant.keys.read_only,
      });
      expect(seen.body.rate_limit_per_second).to.equal(null);
      expect((await patch(tenant.keys.read_only, { rate_limit_per_second: 5 })).status).to.equal(403);
    });

    it('refuses private and plain-http webhook targets when private targets are not allowed', async () => {
      const strict = await startTestApp({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'false' });
      try {
        const post = (url: string) =>
          strict.http.post(`${P}/integrations/`, {
            auth: tenant.panel_token,
            body: webhook({ config: { url } }),
          });
        expectError(await post('https://127.0.0.1/hook'), 400, 'validation_error', 'config.url');
        expectError(
          await post('https://169.254.169.254/latest/meta-data'),
          400,
          'validation_error',
          'config.url',
        );
        expectError(await post('https://[::1]/hook'), 400, 'validation_error', 'config.url');
        expectError(await post('https://localhost/hook'), 400, 'validation_error', 'config.url');
        expectError(await post('http://93.184.216.34/hook'), 400, 'validation_error', 'config.url');
        expect((await post('https://93.184.216.34/hook')).status).to.equal(201);
      } finally {
        await strict.close();
      }
    });

    it('never writes anything for a refused request', async () => {
      const own = await seed();
      await create(own, webhook({ events: ['nope'] }));
      await create(own, webhook({ config: {} }));
      const list = await app.http.get<IntegrationBody[]>(`${P}/integrations/`, { auth: own.panel_token });
      expect(list.body).to.deep.equal([]);
    });

    it('refuses a non-numeric or out-of-range id with 400 rather than a server error', async () => {
      expectError(
        await app.http.get(`${P}/integrations/abc`, { auth: tenant.panel_token }),
        400,
        'validation_error',
        'id',
      );
      expectError(
        await app.http.get(`${P}/integrations/99999999999`, { auth: tenant.panel_token }),
        400,
        'validation_error',
        'id',
      );
    });
  });

  describe('update and delete', () => {
    it('PATCH changes only the fields sent, keeps the secret when config omits it, and refreshes updated_at', async () => {
      const created = (await create(tenant, webhook())).body;
      const res = await app.http.patch<IntegrationBody>(`${P}/integrations/${created.id}`, {
        auth: tenant.panel_token,
        body: { events: ['order.refunded'], config: { url: 'https://other.example.com/h' } },
      });
      expect(res.status).to.equal(200);
      expect(res.body.events).to.deep.equal(['order.refunded']);
      expect(res.body.config).to.deep.equal({
        url: 'https://other.example.com/h',
        secret: created.config.secret,
      });
      expect(res.body.type).to.equal('webhook');
      expect(res.body.is_active).to.equal(true);
      expect(Date.parse(res.body.updated_at)).to.be.at.least(Date.parse(created.updated_at));
    });

    it('PATCH validates like create: bad config for the type, unknown events, and a type change whose config does not fit', async () => {
      const created = (await create(tenant, { type: 'members_area', config: { provider: 'builtin' }, events: [] }))
        .body;
      const url = `${P}/integrations/${created.id}`;
      expectError(
        await app.http.patch(url, { auth: tenant.panel_token, body: { events: ['x.y'] } }),
        400,
        'validation_error',
        'events',
      );
      expectError(
        await app.http.patch(url, { auth: tenant.panel_token, body: { type: 'webhook' } }),
        400,
        'validation_error',
        'config.url',
      );
      const switched = await app.http.patch<IntegrationBody>(url, {
        auth: tenant.panel_token,
        body: { type: 'webhook', config: { url: 'https://h.example.com' } },
      });
      expect(switched.status).to.equal(200);
      expect(switched.body.config.secret).to.match(/^whsec_/);
    });

    it('PATCH is_active true re-enables an auto-disabled integration: disabled_reason "" and failure_count 0', async () => {
      const created = (await create(tenant, webhook())).body;
      await app.ctx.db.execute(
        sql`UPDATE integrations SET is_active = false, disabled_reason = 'auto_disabled', failure_count = 10, last_failure_at = now() WHERE id = ${created.id}`,
      );
      const disabled = await app.http.get<IntegrationBody>(`${P}/integrations/${created.id}`, {
        auth: tenant.panel_token,
      });
      expect(disabled.body).to.include({
        is_active: false,
        disabled_reason: 'auto_disabled',
        failure_count: 10,
      });
      expect(disabled.body.last_failure_at).to.be.a('string');
      const res = await app.http.patch<IntegrationBody>(`${P}/integrations/${created.id}`, {
        auth: tenant.panel_token,
        body: { is_active: true },
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ is_active: true, disabled_reason: '', failure_count: 0 });
    });

    it('PATCH is_active true on an active integration keeps its running failure count', async () => {
      const created = (await create(tenant, webhook())).body;
      await app.ctx.db.execute(sql`UPDATE integrations SET failure_count = 3 WHERE id = ${created.id}`);
      const res = await app.http.patch<IntegrationBody>(`${P}/integrations/${created.id}`, {
        auth: tenant.panel_token,
        body: { is_active: true },
      });
      expect(res.body).to.include({ is_active: true, failure_count: 3, disabled_reason: '' });
    });

    it('DELETE answers 204 without a body, and the integration is gone', async () => {
      const created = (await create(tenant, webhook())).body;
      const res = await app.http.delete(`${P}/integrations/${created.id}`, { auth: tenant.panel_token });
      expect(res.status).to.equal(204);
      expect(res.text).to.equal('');
      expectError(
        await app.http.get(`${P}/integrations/${created.id}`, { auth: tenant.panel_token }),
        404,
        'not_found',
      );
      expectError(
        await app.http.delete(`${P}/integrations/${created.id}`, { auth: tenant.panel_token }),
        404,
        'not_found',
      );
    });
  });

  describe('one active gateway per company', () => {
    it('starts a gateway with OAuth pending and refuses a second active one with 409', async () => {
      const own = await seed();
      const first = await create(own, { type: 'gateway', config: {}, events: ['order.paid'] });
      expect(first.status).to.equal(201);
      expectError(await create(own, { type: 'gateway', config: {}, events: [] }), 409, 'conflict');
      const inactive = await create(own, { type: 'gateway', config: {}, events: [], is_active: false });
      expect(inactive.status).to.equal(201);
      expectError(
        await app.http.patch(`${P}/integrations/${inactive.body.id}`, {
          auth: own.panel_token,
          body: { is_active: true },
        }),
        409,
        'conflict',
      );
      const pixel = (await create(own, { type: 'members_area', config: {}, events: [] })).body;
      expectError(
        await app.http.patch(`${P}/integrations/${pixel.id}`, {
          auth: own.panel_token,
          body: { type: 'gateway' },
        }),
        409,
        'conflict',
      );
      await app.http.patch(`${P}/integrations/${first.body.id}`, {
        auth: own.panel_token,
        body: { is_active: false },
      });
      const now = await app.http.patch(`${P}/integrations/${inactive.body.id}`, {
        auth: own.panel_token,
        body: { is_active: true },
      });
      expect(now.status).to.equal(200);
    });

    it('lets exactly one of two concurrent gateway creations win (201 and 409)', async () => {
      const own = await seed();
      const results = await Promise.all([
        create(own, { type: 'gateway', config: {}, events: [] }),
        create(own, { type: 'gateway', config: {}, events: [] }),
      ]);
      expect(results.map((r) => r.status).sort()).to.deep.equal([201, 409]);
      const list = await app.http.get<IntegrationBody[]>(`${P}/integrations/?type=gateway`, {
        auth: own.panel_token,
      });
      expect(list.body).to.have.length(1);
    });

    it('lets two companies each have their active gateway', async () => {
      const a = await seed();
      const b = await seed();
      expect((await create(a, { type: 'gateway', config: {}, events: [] })).status).to.equal(201);
      expect((await create(b, { type: 'gateway', config: {}, events: [] })).status).to.equal(201);
    });
  });

  describe('event types and alerts', () => {
    const eventTypes = async () => {
      const res = await app.http.get<Array<{ value: string; label: string }>>(`${P}/integrations/events`, {
        auth: tenant.panel_token,
      });
      expect(res.status).to.equal(200);
      return res.body;
    };

    it('lists the seven original panel event kinds first, with their labels, without order.payment_declined', async () => {
      const types = await eventTypes();
      expect(types.slice(0, 7)).to.deep.equal([
        { value: 'order.paid', label: 'paid order' },
        { value: 'order.refunded', label: 'refunded order' },
        { value: 'order.created', label: 'created order' },
        { value: 'order.expired', label: 'expired order' },
        { value: 'order.failed', label: 'failed order' },
        { value: 'order.abandoned', label: 'abandoned cart' },
        { value: 'lead.created', label: 'lead created' },
      ]);
      expect(types.map((t) => t.value)).not.to.include('order.payment_declined');
    });

    it('lists the chargeback and subscription kinds with their labels', async () => {
      expect(await eventTypes()).to.deep.include.members([
        { value: 'order.chargeback', label: 'order chargeback' },
        { value: 'subscription.created', label: 'subscription created' },
        { value: 'subscription.renewed', label: 'subscription renewed' },
        { value: 'subscription.past_due', label: 'subscription past due' },
        { value: 'subscription.canceled', label: 'subscription canceled' },
      ]);
    });

    it('lists the operational kinds last, with their labels', async () => {
      expect((await eventTypes()).slice(-2)).to.deep.equal([
        { value: 'integration.failing', label: 'integration failing' },
        { value: 'integration.disabled', label: 'integration disabled' },
      ]);
    });

    it('alerts while a gateway awaits OAuth and clears once the callback completes it', async () => {
      const own = await seed();
      const alerts = () =>
        app.http.get<Record<string, unknown>>(`${P}/integrations/alerts`, { auth: own.panel_token });
      expect((await alerts()).body).to.deep.equal({ pending: false });
      await create(own, { type: 'gateway', config: {}, events: [] });
      const pending = (await alerts()).body;
      expect(pending).to.include({ pending: true, type: 'gateway' });
      const oauthUrl = new URL(String(pending.oauth_url));
      const state = oauthUrl.searchParams.get('state') ?? '';
      expect(state).to.have.length.greaterThan(20);

      // The stand-in consent page sends the browser back to the callback, which needs no panel token.
      const consent = await fetch(`${app.url}${oauthUrl.pathname}${oauthUrl.search}`, { redirect: 'manual' });
      expect(consent.status).to.equal(302);
      const callback = new URL(consent.headers.get('location') ?? '');
      expect(callback.pathname).to.equal(`${P}/integrations/oauth/callback`);
      const done = await app.http.get(`${callback.pathname}${callback.search}`);
      expect(done.status).to.equal(200);
      expect(done.body).to.deep.equal({ pending: false });
      expect((await alerts()).body).to.deep.equal({ pending: false });

      const replay = await app.http.get<ErrorBody>(`${callback.pathname}${callback.search}`);
      expectError(replay, 400, 'validation_error', 'state');
    });

    it("does not show another company's pending gateway in the alert", async () => {
      const a = await seed();
      const b = await seed();
      await create(a, { type: 'gateway', config: {}, events: [] });
      const alert = await app.http.get(`${P}/integrations/alerts`, { auth: b.panel_token });
      expect(alert.body).to.deep.equal({ pending: false });
    });

    it('refuses an OAuth callback with an unknown state or without a code', async () => {
      expectError(
        await app.http.get(`${P}/integrations/oauth/callback?state=nope&code=x`),
        400,
        'validation_error',
        'state',
      );
      expectError(
        await app.http.get(`${P}/integrations/oauth/callback?state=nope`),
        400,
        'validation_error',
        'code',
      );
    });
  });

  describe('tenant isolation', () => {
    it("answers 404 for another company's integration on every route, and never lists it", async () => {
      const other = await seed();
      const theirs = (await create(other, webhook())).body;
      const base = `${P}/integrations/${theirs.id}`;
      const auth = tenant.panel_token;
      expectError(await app.http.get(base, { auth }), 404, 'not_found');
      expectError(await app.http.patch(base, { auth, body: { is_active: false } }), 404, 'not_found');
      expectError(await app.http.delete(base, { auth }), 404, 'not_found');
      expectError(await app.http.get(`${base}/products`, { auth }), 404, 'not_found');
      expectError(
        await app.http.post(`${base}/products`, { auth, body: { product_id: tenant.products[0]?.id } }),
        404,
        'not_found',
      );
      expectError(
        await app.http.patch(`${base}/products/${other.products[0]?.id}`, {
          auth,
          body: { is_active: false },
        }),
        404,
        'not_found',
      );
      expectError(
        await app.http.delete(`${base}/products/${other.products[0]?.id}`, { auth }),
        404,
        'not_found',
      );
      const list = await app.http.get<IntegrationBody[]>(`${P}/integrations/`, { auth });
      expect(list.body.map((i) => i.id)).to.not.include(theirs.id);
      const still = await app.http.get<IntegrationBody>(base, { auth: other.panel_token });
      expect(still.body.is_active).to.equal(true);
    });
  });
});
