import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import type { SeedResult } from '../../src/cli/seed.js';
import { seed } from '../helpers/app.js';
import { createIntegration, Receiver, startEngine, type Engine } from './helpers.js';
import { NO_CAMPAIGN } from '../tracking/helpers.js';

const SECRET = `whsec_${Buffer.from('simulate-secret-simulate-secret!').toString('base64')}`;

interface Simulated {
  id: string;
  status: string;
  paid_at: string | null;
  order: unknown;
  simulation: {
    event: string;
    webhooks: Array<{ integration_id: number; destination: string; success: boolean; status: number }>;
  };
}

describe('POST /v1/payment-links/{id}/simulate', function () {
  let engine: Engine;
  let ok: Receiver;
  let failing: Receiver;

  before(async () => {
    engine = await startEngine();
    ok = await new Receiver().start();
    failing = await new Receiver().start();
    failing.reply = () => ({ status: 500, body: 'down' });
  });
  after(async () => {
    await Promise.all([ok.close(), failing.close()]);
    await engine.close();
  });

  async function newLink(tenant: SeedResult, externalReference = 'sim-ref-1'): Promise<string> {
    const offer = tenant.offers.find((o) => o.status === 'active');
    const res = await engine.app.http.post<{ id: string }>('/v1/payment-links', {
      auth: tenant.keys.test,
      body: { offer_code: offer?.code, external_reference: externalReference, metadata: { source: 'test' } },
    });
    expect(res.status).to.equal(201);
    return res.body.id;
  }

  const simulate = (tenant: SeedResult, linkId: string, body: unknown, key = tenant.keys.test) =>
    engine.app.http.post<Simulated>(`/v1/payment-links/${linkId}/simulate`, { auth: key, body });

  it('paid: marks the link paid without an order and reports the signed test delivery', async () => {
    const tenant = await seed();
    const hook = await createIntegration(engine.app, tenant, {
      url: ok.url,
      secret: SECRET,
      events: ['order.paid'],
      sendToAllProducts: true,
    });
    // Members-area integrations never receive test events, even when subscribed (invoice integrations
    // take no events, and never see a test sale: test/invoices/issue.test.ts).
    await createIntegration(engine.app, tenant, {
      type: 'members_area',
      events: ['order.paid'],
      sendToAllProducts: true,
    });
    const linkId = await newLink(tenant);
    const before = ok.requests.length;

    const res = await simulate(tenant, linkId, { outcome: 'paid' });

    expect(res.status).to.equal(200);
    expect(res.body).to.include({ id: linkId, status: 'paid', order: null });
    expect(res.body.paid_at).to.be.a('string');
    expect(res.body.simulation).to.deep.equal({
      event: 'order.paid',
      events: ['order.paid'],
      webhooks: [
        { event: 'order.paid', integration_id: hook, destination: ok.url, success: true, status: 200 },
      ],
    });
    expect(ok.requests.length).to.equal(before + 1);
    const request = ok.requests[before];
    if (!request) throw new Error('no request');
    const payload = new Webhook(SECRET).verify(request.body, request.headers as Record<string, string>) as {
      type: string;
      test: boolean;
      sandbox: boolean;
      livemode: boolean;
      data: { order: Record<string, unknown>; purchase: { tracking: unknown; payment_link: unknown } };
    };
    expect(payload).to.include({ type: 'order.paid', test: true, sandbox: true, livemode: false });
    expect(payload.data.order).to.include({ status: 'paid', test: true, sandbox: true });
    expect(payload.data.purchase).to.deep.equal({
      tracking: { external_reference: 'sim-ref-1', ...NO_CAMPAIGN },
      payment_link: { code: linkId, external_reference: 'sim-ref-1', metadata: { source: 'test' } },
    });
  });

  it('failed: leaves the link active, sends order.payment_declined to order.failed subscribers, reports failures', async () => {
    const tenant = await seed();
    const good = await createIntegration(engine.app, tenant, {
      url: ok.url,
      secret: SECRET,
      events: ['order.failed'],
      sendToAllProducts: true,
    });
    const bad = await createIntegration(engine.app, tenant, {
      url: failing.url,
      secret: SECRET,
      events: ['order.payment_declined'],
      sendToAllProducts: true,
    });
    const linkId = await newLink(tenant);

    const res = await simulate(tenant, linkId, { outcome: 'failed' });

    expect(res.status).to.equal(200);
    expect(res.body.status).to.equal('active');
    expect(res.body.simulation.event).to.equal('order.payment_declined');
    expect(res.body.simulation.webhooks).to.deep.equal([
      {
        event: 'order.payment_declined',
        integration_id: good,
        destination: ok.url,
        success: true,
        status: 200,
      },
      {
        event: 'order.payment_declined',
        integration_id: bad,
        destination: failing.url,
        success: false,
        status: 500,
      },
    ]);
  });

  it('expired: expires the link and reports no webhooks when nobody subscribed', async () => {
    const tenant = await seed();
    await createIntegration(engine.app, tenant, {
      url: ok.url,
      events: ['order.paid'],
      sendToAllProducts: true,
    });
    const linkId = await newLink(tenant);
    const res = await simulate(tenant, linkId, { outcome: 'expired' });
    expect(res.status).to.equal(200);
    expect(res.body.status).to.equal('expired');
    expect(res.body.simulation).to.deep.equal({
      event: 'order.expired',
      events: ['order.expired'],
      webhooks: [],
    });
  });

  it('serves 15 simulate calls waiting at once without a listener per call (no MaxListenersExceededWarning)', async () => {
    const tenant = await seed();
    await createIntegration(engine.app, tenant, {
      url: ok.url,
      events: ['order.paid'],
      sendToAllProducts: true,
    });
    const links = await Promise.all(Array.from({ length: 15 }, (_, i) => newLink(tenant, `sim-many-${i}`)));
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => {
      if (warning.name === 'MaxListenersExceededWarning') warnings.push(warning.message);
    };
    process.on('warning', onWarning);
    // Every reply takes 300 ms, so all 15 requests wait on the simulate queue together.
    ok.reply = () => ({ status: 200, body: 'ok', delayMs: 300 });
    try {
      const answers = await Promise.all(links.map((id) => simulate(tenant, id, { outcome: 'paid' })));
      expect(answers.map((a) => a.status)).to.deep.equal(links.map(() => 200));
      expect(answers.every((a) => a.body.simulation.webhooks[0]?.success)).to.equal(true);
      // A warning is emitted on the next tick after the listener that crosses the limit.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
      ok.reply = () => ({ status: 200, body: 'ok' });
    }
    expect(warnings).to.deep.equal([]);
  });

  it('refuses a live key with 403 permission_error', async () => {
    const tenant = await seed();
    const linkId = await newLink(tenant);
    const res = await simulate(tenant, linkId, { outcome: 'paid' }, tenant.keys.live);
    expect(res.status).to.equal(403);
    expect((res.body as unknown as { error: { type: string } }).error.type).to.equal('permission_error');
  });

  it('requires a valid outcome (400 under outcome)', async () => {
    const tenant = await seed();
    const linkId = await newLink(tenant);
    for (const body of [{}, { outcome: 'refunded' }]) {
      const res = await simulate(tenant, linkId, body);
      expect(res.status).to.equal(400);
      expect(
        (res.body as unknown as { error: { fields: Record<string, unknown> } }).error.fields,
      ).to.have.property('outcome');
    }
  });

  it('refuses a link that is not active with 409, and an unknown link with 404', async () => {
    const tenant = await seed();
    const linkId = await newLink(tenant);
    expect((await simulate(tenant, linkId, { outcome: 'paid' })).status).to.equal(200);
    const again = await simulate(tenant, linkId, { outcome: 'failed' });
    expect(again.status).to.equal(409);
    expect((await simulate(tenant, 'plink_000000000000000000000000', { outcome: 'paid' })).status).to.equal(
      404,
    );
  });
});
