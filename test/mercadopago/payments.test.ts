import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { parsePix, hasError } from 'pix-utils';
import { validarBoleto } from '@mrmgomes/boleto-utils';
import type { SeedResult } from '../../src/cli/seed.js';
import { noticeJobId } from '../../src/orders/gateway-routes.js';
import { schema } from '../../src/shared/db/index.js';
import { nameUuid } from '../../src/shared/ids.js';
import { seed } from '../helpers/app.js';
import { createIntegration, eventually } from '../events/helpers.js';
import { payPath } from '../checkout/helpers.js';
import type { NotificationDelivery } from '../helpers/mercadopago/index.js';
import {
  BOLETO_PAYER,
  connectMercadoPago,
  mercadoPagoWorld,
  offerLink,
  P,
  pay,
  type MercadoPagoWorld,
} from './helpers.js';

interface Delivered {
  type: string;
  data: {
    order: { code: string; status: string; pix: { copy_paste: string } | null; boleto: unknown } | null;
  };
}

interface PanelOrder {
  code: string;
  status: string;
  payment_method: string;
  pix: { copy_paste: string; expires_at: string } | null;
  boleto: { digitable_line: string; barcode: string; due_date: string; url: string } | null;
}

/** A tenant connected to its own MP account, with a webhook receiver for its events. */
async function sellerTenant(world: MercadoPagoWorld) {
  const tenant = await seed();
  const connected = await connectMercadoPago(world, tenant);
  await createIntegration(world.app, tenant, {
    url: world.receiver.url,
    events: ['order.created', 'order.paid', 'order.failed', 'order.refunded', 'order.chargeback'],
    sendToAllProducts: true,
  });
  return { tenant, ...connected };
}

const orderOf = async (world: MercadoPagoWorld, tenant: SeedResult, code: string): Promise<PanelOrder> =>
  (await world.app.http.get<PanelOrder>(`${P}/orders/${code}`, { auth: tenant.panel_token })).body;

/** Every webhook body of `type` about order `code` the receiver got so far. */
const delivered = (world: MercadoPagoWorld, type: string, code: string): Delivered[] =>
  world.receiver.requests
    .map((r) => JSON.parse(r.body) as Delivered)
    .filter((b) => b.type === type && b.data.order?.code === code);

const deliveredOnce = (world: MercadoPagoWorld, type: string, code: string): Promise<Delivered> =>
  eventually(async () => delivered(world, type, code)[0], 15_000, `${type} of ${code}`);

/** The MP payment the stand-in made for an order (its external reference). */
function mpPaymentOf(world: MercadoPagoWorld, userId: number, orderCode: string) {
  const found = world.mp.paymentsOf(userId).filter((p) => p.external_reference === orderCode);
  expect(found, `MP payments of order ${orderCode}`).to.have.length(1);
  const [payment] = found;
  if (!payment) throw new Error('unreachable');
  return payment;
}

/** Waits for the service to finish the job of one notification MP sent. */
async function handled(
  world: MercadoPagoWorld,
  delivery: NotificationDelivery | null,
  topic = 'payment',
): Promise<void> {
  if (!delivery) throw new Error('no notification was sent');
  expect(delivery.status, delivery.error ?? '').to.equal(200);
  const id = new URL(delivery.url).searchParams.get('data.id') ?? '';
  const end = await world.engine.workers.producers.waitForJob(
    'gatewayNotices',
    noticeJobId(
      {
        provider: 'mercadopago',
        topic: topic === 'payment' ? 'payment' : 'chargebacks',
        resourceId: id,
        accountId: null,
      },
      delivery.requestId,
    ),
    15_000,
  );
  expect(end).to.equal('completed');
}

describe('Mercado Pago: Pix, boleto and card charged through each company’s own account', function () {
  this.timeout(60_000);
  const world = mercadoPagoWorld();

  it('serves a checkout that loads MercadoPago.js with the company’s public key, and allows only MP besides itself', async () => {
    const { tenant, seller } = await sellerTenant(world);
    const link = await offerLink(world.app, tenant);
    const res = await fetch(`${world.app.url}${payPath(world.app, `/${link.code}?plink=${link.id}`)}`);
    const page = await res.text();
    expect(res.status).to.equal(200);
    expect(page).to.include(`<script src="${world.mp.sdkUrl}" defer></script>`);
    expect(page).to.match(/<script src="[^"]*assets\/mercadopago-card\.[0-9a-f]{12}\.js" defer><\/script>/);
    expect(page).to.include(`data-mp-public-key="${world.mp.publicKey(seller.userId)}"`);
    expect(page).to.match(/<input type="hidden" name="attempt" value="[0-9a-f-]{36}"/);
    for (const id of [
      'mp-card-number',
      'mp-expiration',
      'mp-security-code',
      'zip_code',
      'street_name',
      'state',
    ])
      expect(page).to.include(`id="${id}"`);
    const csp = res.headers.get('content-security-policy') ?? '';
    const origin = new URL(world.mp.sdkUrl).origin;
    expect(csp).to.include(`script-src 'self' ${origin}`);
    expect(csp).to.include(`frame-src ${origin}`);
    expect(csp).to.include(`connect-src 'self' ${origin}`);
    expect(csp).not.to.include('unsafe');
    // A company without MP keeps the plain checkout and its strict policy.
    const plain = await seed();
    const other = await offerLink(world.app, plain);
    const plainRes = await fetch(`${world.app.url}${payPath(world.app, `/${other.code}?plink=${other.id}`)}`);
    const plainPage = await plainRes.text();
    expect(plainPage).not.to.include(world.mp.sdkUrl);
    expect(plainPage).not.to.include('id="zip_code"');
    expect(plainRes.headers.get('content-security-policy')).not.to.include(origin);
  });

  it('charges two companies each with its own token, with the fields MP’s reference names', async () => {
    const a = await sellerTenant(world);
    const b = await sellerTenant(world);
    const codes: string[] = [];
    for (const { tenant, seller } of [a, b]) {
      const link = await offerLink(world.app, tenant, { pix_expires_in_seconds: 3600 });
      const attempt = crypto.randomUUID();
      const paid = await pay(world.app, link.code, { plink: link.id, payment_method: 'pix', attempt });
      expect(paid.status, paid.page).to.equal(303);
      expect(paid.orderCode).to.equal(attempt);
      const orderCode = attempt;
      codes.push(orderCode);
      const create = world.mp.requests.find(
        (r) =>
          r.method === 'POST' && r.path === '/v1/payments' && r.headers['x-idempotency-key'] === orderCode,
      );
      expect(create?.userId, 'charged with the company’s own token').to.equal(seller.userId);
      const body = create?.body as Record<string, unknown>;
      expect(body).to.include({ payment_method_id: 'pix', external_reference: orderCode });
      expect(body.transaction_amount).to.be.a('number');
      expect(body.notification_url).to.equal(
        `${world.app.ctx.config.urls.checkout}/gateway/mercadopago/notifications?source_news=webhooks`,
      );
      expect(body.description).to.be.a('string').and.not.equal('');
      expect(body.payer).to.deep.include({
        email: 'maria@example.com',
        first_name: 'Maria',
        last_name: 'Souza',
      });
      expect(String(body.date_of_expiration)).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}-03:00$/);

      const payment = mpPaymentOf(world, seller.userId, orderCode);
      const qr = payment.point_of_interaction?.transaction_data?.qr_code ?? '';
      const order = await orderOf(world, tenant, orderCode);
      expect(order).to.include({ status: 'pending', payment_method: 'pix' });
      expect(order.pix?.copy_paste).to.equal(qr);
      expect(hasError(parsePix(qr))).to.equal(false);
      const created = await deliveredOnce(world, 'order.created', orderCode);
      expect(created.data.order?.pix?.copy_paste).to.equal(qr);
      const page = await world.app.http.get<string>(payPath(world.app, `/orders/${orderCode}`));
      expect(page.body).to.include(qr);
    }
    // Neither seller’s account holds the other’s payment.
    expect(world.mp.paymentsOf(a.seller.userId).map((p) => p.external_reference)).not.to.include(codes[1]);
    expect(world.mp.paymentsOf(b.seller.userId).map((p) => p.external_reference)).not.to.include(codes[0]);
  });

  it('asks for the CPF/CNPJ and address only for a boleto, and shows MP’s line, barcode and ticket', async () => {
    const { tenant, seller } = await sellerTenant(world);
    const link = await offerLink(world.app, tenant);
    const missing = await pay(
      world.app,
      link.code,
      { plink: link.id, payment_method: 'boleto' },
      { 'accept-language': 'pt-BR' },
    );
    expect(missing.status).to.equal(400);
    expect(missing.page).to.include('Para pagar com boleto, informe seu CPF ou CNPJ.');
    expect(missing.page).to.include('Para pagar com boleto, informe o CEP.');
    const english = await pay(
      world.app,
      link.code,
      { plink: link.id, payment_method: 'boleto', ...BOLETO_PAYER, zip_code: '0131', state: 'XX' },
      { 'accept-language': 'en' },
    );
    expect(english.status).to.equal(400);
    expect(english.page).to.include('Enter the CEP with 8 digits');
    expect(english.page).to.include('Choose the state (UF) from the list.');
    expect(
      world.mp.paymentsOf(seller.userId).filter((p) => p.payment_method_id === 'bolbradesco'),
    ).to.have.length(0);

    const ok = await pay(world.app, link.code, { plink: link.id, payment_method: 'boleto', ...BOLETO_PAYER });
    expect(ok.status, ok.page).to.equal(303);
    const code = ok.orderCode ?? '';
    const payment = mpPaymentOf(world, seller.userId, code);
    const request = world.mp.requests.find((r) => r.headers['x-idempotency-key'] === code);
    expect((request?.body as { payer: unknown }).payer).to.deep.include({
      identification: { type: 'CPF', number: '52998224725' },
      address: {
        zip_code: '01310100',
        street_name: 'Avenida Paulista',
        street_number: '1000',
        neighborhood: 'Bela Vista',
        city: 'São Paulo',
        federal_unit: 'SP',
      },
    });
    const order = await orderOf(world, tenant, code);
    expect(order.boleto?.digitable_line).to.equal(payment.transaction_details.digitable_line);
    expect(order.boleto?.barcode).to.equal(payment.transaction_details.barcode?.content);
    expect(order.boleto?.url).to.equal(payment.transaction_details.external_resource_url);
    expect(validarBoleto(order.boleto?.digitable_line ?? '').sucesso).to.equal(true);
  });

  it('pays an approved card at once, fails a declined one (the link stays payable), waits on one in process', async () => {
    const { tenant, seller } = await sellerTenant(world);
    const link = await offerLink(world.app, tenant, { single_use: false, max_installments: 3 });
    const card = (holder: string) => ({
      plink: link.id,
      payment_method: 'credit_card',
      installments: '3',
      card_token: world.mp.createCardToken(seller, { holder }),
      card_payment_method_id: 'visa',
    });

    const approved = await pay(world.app, link.code, card('APRO'));
    expect(approved.status, approved.page).to.equal(303);
    expect((await orderOf(world, tenant, approved.orderCode ?? '')).status).to.equal('paid');
    await deliveredOnce(world, 'order.paid', approved.orderCode ?? '');
    const sent = world.mp.requests.find((r) => r.headers['x-idempotency-key'] === approved.orderCode);
    expect(sent?.body).to.deep.include({ installments: 3, payment_method_id: 'visa' });
    expect(JSON.stringify(sent?.body)).not.to.match(/4235647728025682/);

    const declined = await pay(world.app, link.code, card('FUND'));
    expect(declined.status, declined.page).to.equal(303);
    expect((await orderOf(world, tenant, declined.orderCode ?? '')).status).to.equal('failed');
    await deliveredOnce(world, 'order.failed', declined.orderCode ?? '');
    const checkout = await world.app.http.get<string>(payPath(world.app, `/${link.code}?plink=${link.id}`));
    expect(checkout.status).to.equal(200);

    const waiting = await pay(world.app, link.code, card('CONT'));
    const code = waiting.orderCode ?? '';
    expect((await orderOf(world, tenant, code)).status).to.equal('pending');
    const payment = mpPaymentOf(world, seller.userId, code);
    await handled(world, (await world.mp.approve(payment.id)).delivery);
    expect((await orderOf(world, tenant, code)).status).to.equal('paid');
  });

  it('believes a notification only when signed, reads the payment back, and applies it once', async () => {
    const { tenant, seller } = await sellerTenant(world);
    const link = await offerLink(world.app, tenant);
    const { orderCode } = await pay(world.app, link.code, { plink: link.id, payment_method: 'pix' });
    const code = orderCode ?? '';
    const payment = mpPaymentOf(world, seller.userId, code);
    // MP's payment.created is read back by its own job: done first, so it neither takes the fault
    // armed below nor counts as a read of the notifications that follow.
    await world.mp.settled();
    await eventually(
      async () =>
        world.mp.requests.some((r) => r.method === 'GET' && r.path === `/v1/payments/${payment.id}`)
          ? true
          : undefined,
      15_000,
      'the read of payment.created',
    );
    const url = `${world.app.url}${payPath(world.app, `/gateway/mercadopago/notifications`)}?data.id=${payment.id}&type=payment`;
    const body = JSON.stringify({
      action: 'payment.updated',
      type: 'payment',
      data: { id: String(payment.id) },
      user_id: String(seller.userId),
    });
    const readsBefore = world.mp.requests.filter(
      (r) => r.method === 'GET' && r.path === `/v1/payments/${payment.id}`,
    ).length;
    for (const signature of [undefined, 'ts=1,v1=' + '0'.repeat(64), 'garbage']) {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-request-id': 'forged',
          ...(signature ? { 'x-signature': signature } : {}),
        },
        body,
      });
      expect(res.status).to.equal(401);
    }
    expect((await orderOf(world, tenant, code)).status).to.equal('pending');
    expect(
      world.mp.requests.filter((r) => r.method === 'GET' && r.path === `/v1/payments/${payment.id}`).length,
    ).to.equal(readsBefore);

    const approved = await world.mp.approve(payment.id);
    await handled(world, approved.delivery);
    expect((await orderOf(world, tenant, code)).status).to.equal('paid');
    await deliveredOnce(world, 'order.paid', code);
    // MP sends it again: the order is not paid twice.
    const again = await world.mp.redeliver(approved.delivery?.notificationId ?? 0);
    expect(again.status).to.equal(200);
    await world.mp.settled();
    expect(delivered(world, 'order.paid', code)).to.have.length(1);
  });

  it('refunds through MP once MP accepts; a refusal is a 409 with MP’s reason, no answer a 502', async () => {
    const { tenant, seller } = await sellerTenant(world);
    const link = await offerLink(world.app, tenant, { single_use: false });
    const card = () => ({
      plink: link.id,
      payment_method: 'credit_card',
      card_token: world.mp.createCardToken(seller, { holder: 'APRO' }),
      card_payment_method_id: 'visa',
    });
    const first = (await pay(world.app, link.code, card())).orderCode ?? '';
    const refund = (code: string) =>
      world.app.http.post<{ status: string; error?: { type: string; message: string } }>(
        `${P}/orders/${code}/refund`,
        {
          auth: tenant.panel_token,
        },
      );

    world.mp.failNext({ method: 'POST', path: /\/refunds$/ }, { kind: 'reset' });
    const unreachable = await refund(first);
    expect(unreachable.status).to.equal(502);
    expect(unreachable.body.error?.type).to.equal('api_error');
    expect((await orderOf(world, tenant, first)).status).to.equal('paid');

    const done = await refund(first);
    expect(done.status, JSON.stringify(done.body)).to.equal(200);
    expect(done.body.status).to.equal('refunded');
    const refunds = world.mp.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/refunds'));
    expect(new Set(refunds.map((r) => r.headers['x-idempotency-key']))).to.deep.equal(
      new Set([nameUuid(`refund-${first}`)]),
    );
    expect(world.mp.payment(mpPaymentOf(world, seller.userId, first).id)?.status).to.equal('refunded');
    await deliveredOnce(world, 'order.refunded', first);

    // Refunded on MP's side without the service hearing of it: MP refuses a second refund.
    const second = (await pay(world.app, link.code, card())).orderCode ?? '';
    await world.mp.refund(mpPaymentOf(world, seller.userId, second).id, { notify: false });
    const refused = await refund(second);
    expect(refused.status).to.equal(409);
    expect(refused.body.error?.message).to.match(/refused the refund/);
    expect((await orderOf(world, tenant, second)).status).to.equal('paid');
  });

  it('charges back an order when MP reports a chargeback on its payment', async () => {
    const { tenant, seller } = await sellerTenant(world);
    const link = await offerLink(world.app, tenant);
    const code =
      (
        await pay(world.app, link.code, {
          plink: link.id,
          payment_method: 'credit_card',
          card_token: world.mp.createCardToken(seller, { holder: 'APRO' }),
          card_payment_method_id: 'visa',
        })
      ).orderCode ?? '';
    const outcome = await world.mp.chargeback(mpPaymentOf(world, seller.userId, code).id);
    await handled(world, outcome.chargebackDelivery, 'chargebacks');
    expect((await orderOf(world, tenant, code)).status).to.equal('charged_back');
    await deliveredOnce(world, 'order.chargeback', code);
  });

  it('stops charging through MP once the gateway is deactivated, while its orders still settle', async () => {
    const { tenant, seller, integrationId } = await sellerTenant(world);
    const link = await offerLink(world.app, tenant, { single_use: false });
    const before =
      (await pay(world.app, link.code, { plink: link.id, payment_method: 'pix' })).orderCode ?? '';
    const off = await world.app.http.request('PATCH', `${P}/integrations/${integrationId}`, {
      auth: tenant.panel_token,
      body: { is_active: false },
    });
    expect(off.status, off.text).to.equal(200);
    const count = world.mp.paymentsOf(seller.userId).length;
    const after = await pay(world.app, link.code, { plink: link.id, payment_method: 'pix' });
    expect(after.status).to.equal(303);
    expect(world.mp.paymentsOf(seller.userId).length, 'no new MP payment').to.equal(count);
    const [charge] = await world.app.ctx.db
      .select()
      .from(schema.gatewayCharges)
      .where(eq(schema.gatewayCharges.orderCode, after.orderCode ?? ''));
    expect(charge?.provider).to.equal('dev');

    await handled(world, (await world.mp.approve(mpPaymentOf(world, seller.userId, before).id)).delivery);
    expect((await orderOf(world, tenant, before)).status).to.equal('paid');
  });
});
