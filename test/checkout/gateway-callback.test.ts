import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import type { SeedResult } from '../../src/cli/seed.js';
import { signGatewayBody } from '../../src/gateways/gateway-signature.js';
import { seed } from '../helpers/app.js';
import { createIntegration, eventually, Receiver, startEngine, type Engine } from '../events/helpers.js';
import {
  activeOffer,
  createLink,
  pathOf,
  payPath,
  postForm,
  signedCallback,
  type Envelope,
  type WireLink,
} from './helpers.js';
import { NO_CAMPAIGN } from '../tracking/helpers.js';

const SECRET = `whsec_${Buffer.from('checkout-secret-checkout-secret!').toString('base64')}`;
const CUSTOMER = {
  name: 'João Pagador',
  email: 'joao@example.com',
  phone: '5511912345678',
  document: '11.222.333/0001-81',
};

describe('Orders: pay step and signed gateway callback', function () {
  let engine: Engine;
  let receiver: Receiver;

  before(async () => {
    // Without the dev gateway the pay step leaves the order pending until the gateway calls back.
    engine = await startEngine({
      DEV_GATEWAY: 'false',
      GATEWAY_WEBHOOK_SECRET: 'test-gateway-secret-0123456789',
    });
    receiver = await new Receiver().start();
  });
  after(async () => {
    await receiver.close();
    await engine.close();
  });

  async function tenantWithHook(): Promise<SeedResult> {
    const tenant = await seed();
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      secret: SECRET,
      events: ['order.created', 'order.paid'],
      sendToAllProducts: true,
    });
    return tenant;
  }

  /** Opens the checkout of a link and submits its pay form; returns the pending order's code. */
  async function payPending(tenant: SeedResult, link: WireLink): Promise<string> {
    const page = await engine.app.http.get<string>(pathOf(engine.app, link.url));
    expect(page.status).to.equal(200);
    const res = await postForm(engine.app, payPath(engine.app, `/${activeOffer(tenant).code}/pay`), {
      plink: link.id,
      ...CUSTOMER,
      payment_method: 'pix',
    });
    // The pay step leads (303) to the order's own page, which shows it pending.
    expect(res.status, res.body).to.equal(200);
    expect(res.body).to.include('id="order-status" data-status="pending"');
    const code = /id="order-code">([0-9a-f-]{36})</.exec(res.body)?.[1];
    if (!code) throw new Error('no order code on the page');
    return code;
  }

  const eventsOf = (type: string, orderCode: string) =>
    engine.app.ctx.pool
      .query<{ payload: Envelope }>(
        `SELECT payload FROM events WHERE type = $1 AND payload->'data'->'order'->>'code' = $2`,
        [type, orderCode],
      )
      .then((r) => r.rows.map((row) => row.payload));

  function deliveredFor(type: string, orderCode: string): Envelope[] {
    return receiver.requests
      .map((r) => new Webhook(SECRET).verify(r.body, r.headers as Record<string, string>) as Envelope)
      .filter((e) => e.type === type && e.data.order?.code === orderCode);
  }

  it('marks order and link paid, emits exactly one order.paid with the link reference, and replays idempotently', async () => {
    const tenant = await tenantWithHook();
    const coupon = tenant.coupons[0]?.code ?? '';
    const link = await createLink(engine.app, tenant.keys.live, {
      offer_code: activeOffer(tenant).code,
      external_reference: 'crm-991',
      metadata: { campaign: 'launch' },
      coupon_code: coupon,
    });
    const orderCode = await payPending(tenant, link);
    const created = await eventually(
      async () => deliveredFor('order.created', orderCode)[0],
      10_000,
      'order.created',
    );
    expect(created.data.order).to.include({
      status: 'pending',
      amount: '267.30',
      payment_method: 'pix',
      paid_at: null,
    });
    const pendingLink = await engine.app.http.get<WireLink>(`/v1/payment-links/${link.id}`, {
      auth: tenant.keys.live,
    });
    expect(pendingLink.body).to.include({ status: 'active', order: null });

    const paidAt = '2026-01-02T03:04:05.000Z';
    const body = { order_code: orderCode, status: 'paid', payment_method: 'credit_card', paid_at: paidAt };
    const res = await signedCallback(engine.app, body);
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.include({ received: true, replayed: false });

    const read = await engine.app.http.get<WireLink>(`/v1/payment-links/${link.id}`, {
      auth: tenant.keys.live,
    });
    expect(read.body.status).to.equal('paid');
    expect(read.body.order).to.deep.equal({
      code: orderCode,
      status: 'paid',
      amount: '267.30',
      payment_method: 'credit_card',
      paid_at: paidAt,
    });

    const paid = await eventually(async () => deliveredFor('order.paid', orderCode)[0], 10_000, 'order.paid');
    expect(paid).to.include({ livemode: true, test: false, sandbox: false });
    // Without the dev gateway the checkout gave no Pix code: a gateway elsewhere took the payment.
    expect(paid.data.order).to.deep.equal({
      code: orderCode,
      status: 'paid',
      amount: '267.30',
      payment_method: 'credit_card',
      paid_at: paidAt,
      installments: null,
      pix: null,
      boleto: null,
    });
    expect(paid.data.purchase).to.deep.equal({
      tracking: { external_reference: 'crm-991', ...NO_CAMPAIGN },
      payment_link: { code: link.id, external_reference: 'crm-991', metadata: { campaign: 'launch' } },
    });
    expect(paid.data.customer).to.deep.equal({
      name: 'João Pagador',
      email: 'joao@example.com',
      phone: '+5511912345678',
      document: '11222333000181',
    });
    expect(paid.data.product).to.deep.equal({ id: activeOffer(tenant).product_id, name: 'Online course' });
    expect(paid.data.offer).to.include({ code: activeOffer(tenant).code });

    const replay = await signedCallback(engine.app, body);
    expect(replay.status).to.equal(200);
    expect(replay.body).to.deep.include({ received: true, replayed: true });
    expect(await eventsOf('order.paid', orderCode)).to.have.length(1);
    const again = await engine.app.http.get<WireLink>(`/v1/payment-links/${link.id}`, {
      auth: tenant.keys.live,
    });
    expect(again.body).to.deep.equal(read.body);
  });

  it('refuses a missing or wrong signature with 401 and changes nothing', async () => {
    const tenant = await tenantWithHook();
    const link = await createLink(engine.app, tenant.keys.live, { offer_code: activeOffer(tenant).code });
    const orderCode = await payPending(tenant, link);
    const body = { order_code: orderCode, status: 'paid', payment_method: 'pix' };

    const unsigned = await engine.app.http.post(payPath(engine.app, '/gateway/callback'), { body });
    expect(unsigned.status).to.equal(401);
    expect(unsigned.body).to.deep.include({
      error: { type: 'authentication_error', message: 'Missing or invalid X-Gateway-Signature' },
    });
    const wrong = await signedCallback(engine.app, body, 'another-secret-entirely-000');
    expect(wrong.status).to.equal(401);
    // A signature over a different body does not cover this one.
    const tampered = await engine.app.http.post(payPath(engine.app, '/gateway/callback'), {
      rawBody: JSON.stringify({ ...body, payment_method: 'boleto' }),
      headers: {
        'content-type': 'application/json',
        'x-gateway-signature': signGatewayBody('test-gateway-secret-0123456789', JSON.stringify(body)),
      },
    });
    expect(tampered.status).to.equal(401);

    const read = await engine.app.http.get<WireLink>(`/v1/payment-links/${link.id}`, {
      auth: tenant.keys.live,
    });
    expect(read.body).to.include({ status: 'active', order: null });
    expect(await eventsOf('order.paid', orderCode)).to.have.length(0);
    // The pending order holds the single-use link: a second attempt is refused while it is in flight.
    const second = await postForm(
      engine.app,
      payPath(engine.app, `/${activeOffer(tenant).code}/pay?lang=en`),
      {
        plink: link.id,
        ...CUSTOMER,
      },
    );
    expect(second.status).to.equal(409);
    expect(second.body).to.include('already in progress');
  });

  it('answers 404 for an unknown order and 400 naming a bad field', async () => {
    const unknown = await signedCallback(engine.app, {
      order_code: randomUUID(),
      status: 'paid',
      payment_method: 'pix',
    });
    expect(unknown.status).to.equal(404);
    expect(unknown.body).to.have.nested.property('error.type', 'not_found');
    const bad = await signedCallback(engine.app, {
      order_code: 'nope',
      status: 'disputed',
      payment_method: 'cash',
    });
    expect(bad.status).to.equal(400);
    expect(bad.body)
      .to.have.nested.property('error.fields')
      .that.has.keys('order_code', 'status', 'payment_method');
  });

  it('keeps a single_use=false link payable: each payment is an order and the link shows the latest', async () => {
    const tenant = await tenantWithHook();
    const link = await createLink(engine.app, tenant.keys.live, {
      offer_code: activeOffer(tenant).code,
      single_use: false,
    });
    const first = await payPending(tenant, link);
    expect(
      (await signedCallback(engine.app, { order_code: first, status: 'paid', payment_method: 'pix' })).status,
    ).to.equal(200);
    const afterFirst = await engine.app.http.get<WireLink>(`/v1/payment-links/${link.id}`, {
      auth: tenant.keys.live,
    });
    expect(afterFirst.body.status).to.equal('paid');

    const second = await payPending(tenant, link);
    expect(
      (await signedCallback(engine.app, { order_code: second, status: 'paid', payment_method: 'boleto' }))
        .status,
    ).to.equal(200);
    const afterSecond = await engine.app.http.get<WireLink>(`/v1/payment-links/${link.id}`, {
      auth: tenant.keys.live,
    });
    expect(afterSecond.body.status).to.equal('paid');
    expect(afterSecond.body.order).to.include({ code: second, payment_method: 'boleto', status: 'paid' });
    expect(afterSecond.body).to.have.property('paid_at', afterFirst.body.order?.paid_at);
    expect(await eventsOf('order.paid', first)).to.have.length(1);
    expect(await eventsOf('order.paid', second)).to.have.length(1);
  });
});
