import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import type { SeedResult } from '../../src/cli/seed.js';
import { seed } from '../helpers/app.js';
import { servedWebhookValidator } from '../helpers/webhook-validator.js';
import { activeOffer, createLink, signedCallback, type WireLink } from '../checkout/helpers.js';
import { createIntegration, eventually, Receiver, startEngine, type Engine } from '../events/helpers.js';
import { checkout, P, type PanelOrder } from './helpers.js';

const SECRET = `whsec_${Buffer.from('every-kind-of-event-is-real-ok!').toString('base64')}`;

interface Delivered {
  id: string;
  type: string;
  livemode: boolean;
  test: boolean;
  data: {
    order?: { code: string; status: string } | null;
    lead?: Record<string, string | null>;
    purchase: { payment_link: { code: string } | null; tracking: { external_reference: string | null } };
  };
}

/**
 * Issue 11 "done when": every kind `GET /integrations/events` lists, and `order.payment_declined`, is
 * emitted by the real path that makes it (checkout, gateway callback, abandonment job, panel refund,
 * expiry job, simulate), delivered signed, verified with the standardwebhooks package, and its body
 * matches the schema of its kind under `webhooks` in the served `/v1/openapi.json`.
 */
describe('every event kind comes from a real path, signed and as documented', function () {
  this.timeout(60_000);
  let engine: Engine;
  let receiver: Receiver;
  let tenant: SeedResult;

  before(async () => {
    // Orders left pending are abandoned 3 s after the checkout.
    engine = await startEngine({ ORDER_ABANDON_AFTER_SECONDS: '3' });
    receiver = await new Receiver().start();
    tenant = await seed();
  });
  after(async () => {
    await receiver.close();
    await engine.close();
  });

  /** Every delivery so far, each verified as a Standard Webhooks receiver would (throws if forged). */
  const verified = (): Delivered[] =>
    receiver.requests.map(
      (r) => new Webhook(SECRET).verify(r.body, r.headers as Record<string, string>) as Delivered,
    );

  const deliveryOf = (type: string, match: (e: Delivered) => boolean): Promise<Delivered> =>
    eventually(async () => verified().find((e) => e.type === type && match(e)), 15_000, type);

  it('drives each kind through its own path and receives each as documented', async () => {
    const app = engine.app;
    const listed = await app.http.get<Array<{ value: string }>>(`${P}/integrations/events`, {
      auth: tenant.panel_token,
    });
    const kinds = [...listed.body.map((k) => k.value), 'order.payment_declined'];
    expect(kinds).to.have.length(8);
    await createIntegration(app, tenant, {
      url: receiver.url,
      secret: SECRET,
      events: kinds,
      sendToAllProducts: true,
    });
    const offer = activeOffer(tenant);

    // lead.created and order.created: a new buyer submits the checkout of a live link with pix, which the
    // dev gateway, like a real one, leaves pending.
    const link = await createLink(app, tenant.keys.live, {
      offer_code: offer.code,
      external_reference: 'every-kind',
    });
    const email = `every-kind-${tenant.company.id}@example.com`;
    const first = await checkout(app, tenant, offer.code, link.id, {
      name: 'Lia Lead',
      email,
      phone: '+55 11 91234-5678',
      document: '529.982.247-25',
      payment_method: 'pix',
    });
    expect(first.page.status).to.equal(202);
    expect(first.order.status).to.equal('pending');
    // order.failed: the gateway reports the pix payment failed (before the order's deadline); the link
    // stays payable.
    const failed = await signedCallback(app, { order_code: first.order.code, status: 'failed' });
    expect(failed.status, failed.text).to.equal(200);
    const lead = await deliveryOf('lead.created', (e) => e.data.lead?.email === email);
    expect(lead.data.lead).to.deep.equal({
      name: 'Lia Lead',
      email,
      phone: '+5511912345678',
      document: '52998224725',
    });
    expect(lead.data.purchase.payment_link?.code).to.equal(link.id);
    await deliveryOf('order.created', (e) => e.data.order?.code === first.order.code);

    const failedEvent = await deliveryOf('order.failed', (e) => e.data.order?.code === first.order.code);
    expect(failedEvent.data.order?.status).to.equal('failed');
    expect(
      (await app.http.get<WireLink>(`/v1/payment-links/${link.id}`, { auth: tenant.keys.live })).body.status,
    ).to.equal('active');

    // order.abandoned: the same buyer (no second lead) tries boleto and never pays; the delayed job at
    // the order's deadline abandons it.
    const second = await checkout(app, tenant, offer.code, link.id, { email, payment_method: 'boleto' });
    expect(second.page.status).to.equal(202);
    await deliveryOf('order.abandoned', (e) => e.data.order?.code === second.order.code);

    // order.paid: the gateway confirms the abandoned order late; it is paid all the same.
    const paid = await signedCallback(app, {
      order_code: second.order.code,
      status: 'paid',
      payment_method: 'boleto',
    });
    expect(paid.status, paid.text).to.equal(200);
    const paidEvent = await deliveryOf('order.paid', (e) => e.data.order?.code === second.order.code);
    expect(paidEvent.data.purchase.tracking.external_reference).to.equal('every-kind');

    // order.refunded: a refund in the panel; the link keeps its status.
    const refund = await app.http.post<PanelOrder>(`${P}/orders/${second.order.code}/refund`, {
      auth: tenant.panel_token,
    });
    expect(refund.status, refund.text).to.equal(200);
    const refunded = await deliveryOf('order.refunded', (e) => e.data.order?.code === second.order.code);
    expect(refunded.data.order?.status).to.equal('refunded');
    expect(
      (await app.http.get<WireLink>(`/v1/payment-links/${link.id}`, { auth: tenant.keys.live })).body.status,
    ).to.equal('paid');

    // order.expired: a link left unpaid past expires_at, expired by its delayed job.
    const expiring = await createLink(app, tenant.keys.live, {
      offer_code: offer.code,
      expires_at: new Date(Date.now() + 1500).toISOString(),
    });
    await deliveryOf('order.expired', (e) => e.data.purchase.payment_link?.code === expiring.id);

    // order.payment_declined: simulate `failed` on a test link.
    const testLink = await createLink(app, tenant.keys.test, { offer_code: offer.code });
    const simulated = await app.http.post(`/v1/payment-links/${testLink.id}/simulate`, {
      auth: tenant.keys.test,
      body: { outcome: 'failed' },
    });
    expect(simulated.status).to.equal(200);
    await deliveryOf('order.payment_declined', (e) => e.data.purchase.payment_link?.code === testLink.id);

    // Every kind arrived signed, and every body matches its kind's schema (the receiver checks each one
    // as it arrives; checked here again for the record).
    const validator = await servedWebhookValidator();
    const byKind = new Map<string, number>();
    for (const request of receiver.requests) {
      const event = new Webhook(SECRET).verify(
        request.body,
        request.headers as Record<string, string>,
      ) as Delivered;
      expect(validator.problem(request.body), event.type).to.equal(undefined);
      expect(request.headers['webhook-id']).to.equal(event.id);
      byKind.set(event.type, (byKind.get(event.type) ?? 0) + 1);
    }
    expect([...byKind.keys()].sort()).to.deep.equal([...kinds].sort());
    // One lead for one buyer, however many times they submit.
    expect(byKind.get('lead.created')).to.equal(1);
  });
});
