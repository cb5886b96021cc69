import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { jobIds } from '../../queues/index.js';
import type { SeedResult } from '../../src/cli/seed.js';
import { seed } from '../helpers/app.js';
import { servedWebhookValidator } from '../helpers/webhook-validator.js';
import {
  activeOffer,
  activePlan,
  createLink,
  readStaticPix,
  signedCallback,
  type WireLink,
} from '../checkout/helpers.js';
import { createIntegration, engineAndReceiver, eventually, Receiver } from '../events/helpers.js';
import { checkout, deadlineOf, P, type PanelOrder } from './helpers.js';
import { BUYER_CPF, focusStandInFor, invoiceConfig } from '../invoices/helpers.js';

const SECRET = `whsec_${Buffer.from('every-kind-of-event-is-real-ok!').toString('base64')}`;

interface Delivered {
  id: string;
  type: string;
  livemode: boolean;
  test: boolean;
  data: {
    order?: {
      code: string;
      status: string;
      amount: string;
      installments: number | null;
      pix: { copy_paste: string; expires_at: string } | null;
      boleto: { digitable_line: string; barcode: string; due_date: string; url: string } | null;
    } | null;
    subscription?: { id: number; status: string; cancel_reason?: string | null } | null;
    integration?: { id: number; disabled_reason: string };
    lead?: Record<string, string | null>;
    access?: { order_code: string };
    purchase: { payment_link: { code: string } | null; tracking: { external_reference: string | null } };
  };
}

/**
 * Every kind `GET /integrations/events` lists, and `order.payment_declined`, is emitted by the real
 * path that makes it (checkout, gateway callback, abandonment job, panel refund, expiry job, simulate,
 * renewals, panel cancel, the circuit breaker), delivered signed, verified with the standardwebhooks package, and its body
 * matches the schema of its kind under `webhooks` in the served `/v1/openapi.json`. Each group of
 * kinds has its own case; the last case checks that together they covered every listed kind.
 */
describe('every event kind comes from a real path, signed and as documented', function () {
  this.timeout(60_000);
  let tenant: SeedResult;
  let kinds: string[] = [];
  const buyerEmail = (): string => `every-kind-${tenant.company.id}@example.com`;

  // A failed renewal's retry waits an hour (the renewal case runs its retry itself); two failed
  // attempts disable an integration. Invoices go to a Focus NFe stand-in, started before the engine.
  const env: Record<string, string> = {
    RENEWAL_RETRY_SCHEDULE: '3600',
    BREAKER_THRESHOLD: '2',
    FOCUSNFE_TIMEOUT_MS: '1000',
  };
  const invoicing = focusStandInFor(env);
  const { engine, receiver } = engineAndReceiver(env);
  before(async () => {
    tenant = await seed();
    const listed = await engine.app.http.get<Array<{ value: string }>>(`${P}/integrations/events`, {
      auth: tenant.panel_token,
    });
    kinds = [...listed.body.map((k) => k.value), 'order.payment_declined'];
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      secret: SECRET,
      events: kinds,
      sendToAllProducts: true,
    });
  });

  /** Every delivery so far, each verified as a Standard Webhooks receiver would (throws if forged). */
  const verified = (): Delivered[] =>
    receiver.requests.map(
      (r) => new Webhook(SECRET).verify(r.body, r.headers as Record<string, string>) as Delivered,
    );

  const deliveryOf = (type: string, match: (e: Delivered) => boolean): Promise<Delivered> =>
    eventually(async () => verified().find((e) => e.type === type && match(e)), 15_000, type);

  it('order and lead kinds: each through its own path, received as documented', async () => {
    const app = engine.app;
    expect(kinds).to.include.members([
      'order.paid',
      'order.refunded',
      'order.created',
      'order.expired',
      'order.failed',
      'order.abandoned',
      'lead.created',
      'order.payment_declined',
    ]);
    const offer = activeOffer(tenant);

    // lead.created and order.created: a new buyer submits the checkout of a live link with pix, which the
    // dev gateway, like a real one, leaves pending.
    const link = await createLink(app, tenant.keys.live, {
      offer_code: offer.code,
      external_reference: 'every-kind',
    });
    const email = buyerEmail();
    const first = await checkout(app, tenant, offer.code, link.id, {
      name: 'Lia Lead',
      email,
      phone: '+55 11 91234-5678',
      document: '529.982.247-25',
      payment_method: 'pix',
    });
    expect(first.page.status).to.equal(200);
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
    // order.created carries what the buyer pays with, so the seller can send the Pix code on.
    const pixCreated = await deliveryOf('order.created', (e) => e.data.order?.code === first.order.code);
    const pix = pixCreated.data.order?.pix;
    if (!pix) throw new Error('order.created of a Pix order has no pix instructions');
    expect(readStaticPix(pix.copy_paste).transactionAmount).to.equal(Number(first.order.amount));
    expect(pixCreated.data.order).to.include({ installments: null, boleto: null });
    expect(Date.parse(pix.expires_at) - Date.parse(first.order.created_at)).to.equal(1800 * 1000);

    const failedEvent = await deliveryOf('order.failed', (e) => e.data.order?.code === first.order.code);
    expect(failedEvent.data.order?.status).to.equal('failed');
    expect(
      (await app.http.get<WireLink>(`/v1/payment-links/${link.id}`, { auth: tenant.keys.live })).body.status,
    ).to.equal('active');

    // order.abandoned: the same buyer (no second lead) tries boleto and never pays. Its order.created
    // carries the boleto; three days after the due date the delayed job abandons the order (the
    // order's clock is moved past that deadline rather than waited for).
    const second = await checkout(app, tenant, offer.code, link.id, { email, payment_method: 'boleto' });
    expect(second.page.status).to.equal(200);
    const boletoCreated = await deliveryOf('order.created', (e) => e.data.order?.code === second.order.code);
    const boleto = boletoCreated.data.order?.boleto;
    if (!boleto) throw new Error('order.created of a boleto order has no boleto instructions');
    expect(boleto.url).to.equal(`${app.ctx.config.urls.checkout}/orders/${second.order.code}/boleto`);
    expect(boletoCreated.data.order).to.include({ installments: null, pix: null });
    const seconds = Math.ceil((deadlineOf(second.order).getTime() - Date.now()) / 1000) + 1;
    await app.ctx.pool.query(
      `UPDATE orders SET created_at = created_at - make_interval(secs => $2),
              abandon_at = abandon_at - make_interval(secs => $2) WHERE code = $1`,
      [second.order.code, seconds],
    );
    const abandonJob = await engine.workers.producers
      .queue('orderAbandonment')
      .getJob(jobIds.orderAbandonment(second.order.code));
    if (!abandonJob) throw new Error('no abandonment job for the boleto order');
    await abandonJob.promote();
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
  });

  it('subscription kinds and order.chargeback: a plan bought, a renewal failed and recovered, a chargeback', async () => {
    const app = engine.app;
    const plan = activePlan(tenant);
    const link = await createLink(app, tenant.keys.live, {
      plan_code: plan.code,
      external_reference: 'every-sub',
    });
    // subscription.created: the dev gateway confirms the card payment of the plan (the buyer of the
    // first case, so no second lead).
    const { order: first } = await checkout(app, tenant, plan.code, link.id, { email: buyerEmail() });
    expect(first.status).to.equal('paid');
    const subscriptionId = first.subscription_id;
    const ofSubscription = (e: Delivered): boolean => e.data.subscription?.id === subscriptionId;
    const created = await deliveryOf('subscription.created', ofSubscription);
    expect(created.data.purchase.tracking.external_reference).to.equal('every-sub');

    // subscription.past_due: the renewal, run now under the dev gateway, is declined (with order.failed).
    const renew = (outcome: string) =>
      app.http.post<{ status: string }>(`${P}/subscriptions/${subscriptionId}/renew`, {
        auth: tenant.panel_token,
        body: { outcome },
      });
    expect((await renew('failed')).body.status).to.equal('past_due');
    await deliveryOf('subscription.past_due', ofSubscription);
    await deliveryOf('order.failed', (e) => ofSubscription(e) && e.data.purchase.payment_link === null);
    // subscription.renewed: its retry is paid.
    expect((await renew('paid')).body.status).to.equal('active');
    await deliveryOf('subscription.renewed', ofSubscription);

    // order.chargeback: the gateway reports a chargeback of the first order; subscription.canceled
    // follows with the reason.
    const disputed = await signedCallback(app, { order_code: first.code, status: 'chargeback' });
    expect(disputed.status, disputed.text).to.equal(200);
    const chargeback = await deliveryOf('order.chargeback', (e) => e.data.order?.code === first.code);
    expect(chargeback.data.order?.status).to.equal('charged_back');
    const canceled = await deliveryOf('subscription.canceled', ofSubscription);
    expect(canceled.data.subscription).to.include({ status: 'canceled', cancel_reason: 'chargeback' });
  });

  it('integration kinds: another integration of the company fails until its breaker opens', async () => {
    const app = engine.app;
    const broken = await new Receiver().start();
    broken.reply = () => ({ status: 500, body: 'down' });
    try {
      // It fails its order.created twice (the first attempt and its retry): the threshold, 2.
      const brokenId = await createIntegration(app, tenant, {
        url: broken.url,
        events: ['order.created', 'integration.failing', 'integration.disabled'],
        sendToAllProducts: true,
      });
      const offer = activeOffer(tenant);
      const link = await createLink(app, tenant.keys.live, { offer_code: offer.code });
      // The buyer of the first case again, so no second lead.
      const { page } = await checkout(app, tenant, offer.code, link.id, {
        email: buyerEmail(),
        payment_method: 'pix',
      });
      expect(page.status).to.equal(200);
      const ofBroken = (e: Delivered): boolean => e.data.integration?.id === brokenId;
      const failing = await deliveryOf('integration.failing', ofBroken);
      expect(failing.data.integration?.disabled_reason).to.equal('');
      const disabled = await deliveryOf('integration.disabled', ofBroken);
      expect(disabled.data.integration?.disabled_reason).to.equal('auto_disabled');
      // Never to the integration they describe.
      expect(broken.requests.map((r) => (JSON.parse(r.body) as { type: string }).type)).to.deep.equal([
        'order.created',
        'order.created',
      ]);
    } finally {
      await broken.close();
    }
  });

  it('access and invoice kinds: a members area and an NFS-e follow a paid order and its refund; a refused note', async () => {
    const app = engine.app;
    const auth = tenant.panel_token;
    const area = await app.http.post(`${P}/integrations/`, {
      auth,
      body: { type: 'members_area', config: { provider: 'builtin' }, events: [], send_to_all_products: true },
    });
    expect(area.status, area.text).to.equal(201);
    const invoices = await app.http.post(`${P}/integrations/`, {
      auth,
      body: {
        type: 'invoice',
        events: [],
        send_to_all_products: true,
        config: invoiceConfig(invoicing.token),
      },
    });
    expect(invoices.status, invoices.text).to.equal(201);
    // The buyer of the first case again, so no second lead.
    const pay = async (): Promise<PanelOrder> => {
      const { order } = await checkout(app, tenant, activeOffer(tenant).code, null, {
        email: buyerEmail(),
        payment_method: 'credit_card',
        document: BUYER_CPF,
      });
      expect(order.status).to.equal('paid');
      return order;
    };
    // access.granted and invoice.issued: the payment of a product both integrations cover.
    const order = await pay();
    const ofOrder = (e: Delivered): boolean => e.data.order?.code === order.code;
    await deliveryOf('access.granted', (e) => e.data.access?.order_code === order.code);
    await deliveryOf('invoice.issued', ofOrder);
    // access.revoked and invoice.canceled: its refund in the panel.
    const refund = await app.http.post(`${P}/orders/${order.code}/refund`, { auth, body: {} });
    expect(refund.status, refund.text).to.equal(200);
    await deliveryOf('access.revoked', (e) => e.data.access?.order_code === order.code);
    await deliveryOf('invoice.canceled', ofOrder);
    // invoice.failed: the prefecture refuses the next one.
    invoicing.focus.verdict = () => [
      { codigo: 'E31', mensagem: 'Item incompatível com o CNAE', correcao: null },
    ];
    const refused = await pay();
    await deliveryOf('invoice.failed', (e) => e.data.order?.code === refused.code);
  });

  it('together the cases delivered every listed kind, each signed and matching its schema', async () => {
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
