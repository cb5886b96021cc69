/**
 * The rules of Mercado Pago's own reference the adapter keeps (decisions, "Mercado Pago as
 * documented"): each test fails against the adapter that broke the rule.
 */
import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
import { boletoNumbers } from '../../src/gateways/boleto.js';
import { boletoNumbersOf } from '../../src/gateways/mercadopago/gateway.js';
import { noticeJobId } from '../../src/orders/gateway-routes.js';
import { seed } from '../helpers/app.js';
import { payPath } from '../checkout/helpers.js';
import type { LoggedRequest, NotificationDelivery } from '../helpers/mercadopago/index.js';
import { requestProblems } from '../helpers/mercadopago/requests.js';
import {
  BOLETO_PAYER,
  connectMercadoPago,
  mercadoPagoWorld,
  noteAccountSecrets,
  offerLink,
  P,
  pay,
  type MercadoPagoWorld,
} from './helpers.js';

interface PanelOrder {
  code: string;
  status: string;
  pix: { copy_paste: string; expires_at: string } | null;
  boleto: { digitable_line: string; barcode: string; due_date: string; url: string } | null;
}

const orderOf = async (world: MercadoPagoWorld, tenant: SeedResult, code: string): Promise<PanelOrder> => {
  const res = await world.app.http.get<PanelOrder>(`${P}/orders/${code}`, { auth: tenant.panel_token });
  expect(res.status, res.text).to.equal(200);
  return res.body;
};

/** The POST /v1/payments the service made for an order (its idempotency key), answered 201. */
function createdFor(world: MercadoPagoWorld, orderCode: string): LoggedRequest {
  const found = world.mp.requests.filter(
    (r) => r.method === 'POST' && r.path === '/v1/payments' && r.headers['x-idempotency-key'] === orderCode,
  );
  const last = found.at(-1);
  if (!last) throw new Error(`no POST /v1/payments for ${orderCode}`);
  expect(last.status, JSON.stringify(last.body)).to.equal(201);
  return last;
}

describe('Mercado Pago as documented: the requests MP accepts', function () {
  this.timeout(60_000);
  const world = mercadoPagoWorld();

  describe('Pix', () => {
    for (const seconds of [60, 1800, 1860, 7200]) {
      it(`tells MP a Pix deadline 30 min–30 days after sending, for a link's ${seconds} s, and keeps it as the order's`, async () => {
        const tenant = await seed();
        await connectMercadoPago(world, tenant);
        const link = await offerLink(world.app, tenant, { pix_expires_in_seconds: seconds });
        const paid = await pay(world.app, link.code, { plink: link.id, payment_method: 'pix' });
        expect(paid.status, paid.page).to.equal(303);
        const sent = createdFor(world, paid.orderCode ?? '');
        const told = String((sent.body as { date_of_expiration: unknown }).date_of_expiration);
        expect(told).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}-03:00$/);
        const ahead = (Date.parse(told) - sent.at.getTime()) / 1000;
        const wanted = Math.max(seconds, 1860);
        expect(ahead).to.be.within(wanted - 2, wanted + 2);
        const order = await orderOf(world, tenant, paid.orderCode ?? '');
        expect(order.pix?.expires_at).to.equal(new Date(told).toISOString());
      });
    }
  });

  describe('boleto', () => {
    it('reads the barcode where MP’s SDKs type it (transaction_details.barcode.content)', async () => {
      const tenant = await seed();
      const { seller } = await connectMercadoPago(world, tenant);
      const link = await offerLink(world.app, tenant);
      const paid = await pay(world.app, link.code, {
        plink: link.id,
        payment_method: 'boleto',
        ...BOLETO_PAYER,
      });
      expect(paid.status, paid.page).to.equal(303);
      const [payment] = world.mp
        .paymentsOf(seller.userId)
        .filter((p) => p.external_reference === paid.orderCode);
      expect(payment).to.not.have.property('barcode');
      const order = await orderOf(world, tenant, paid.orderCode ?? '');
      expect(order.status).to.equal('pending');
      expect(order.boleto?.barcode).to.equal(payment?.transaction_details.barcode?.content);
      expect(order.boleto?.digitable_line).to.equal(payment?.transaction_details.digitable_line);
    });

    it('asks a boleto payer for the first and last name, so MP gets last_name; other methods take one word', async () => {
      const tenant = await seed();
      const { seller } = await connectMercadoPago(world, tenant);
      const link = await offerLink(world.app, tenant, { single_use: false });
      const boleto = { plink: link.id, payment_method: 'boleto', ...BOLETO_PAYER };
      const oneWord = await pay(
        world.app,
        link.code,
        { ...boleto, name: 'Maria' },
        { 'accept-language': 'pt-BR' },
      );
      expect(oneWord.status).to.equal(400);
      expect(oneWord.page).to.include('Para pagar com boleto, informe nome e sobrenome.');
      const english = await pay(
        world.app,
        link.code,
        { ...boleto, name: '  Maria  ' },
        { 'accept-language': 'en' },
      );
      expect(english.page).to.include('To pay by boleto, enter your first and last name.');
      expect(world.mp.paymentsOf(seller.userId)).to.have.length(0);

      const full = await pay(world.app, link.code, { ...boleto, name: 'Maria da Silva' });
      expect(full.status, full.page).to.equal(303);
      expect((createdFor(world, full.orderCode ?? '').body as { payer: unknown }).payer).to.deep.include({
        first_name: 'Maria',
        last_name: 'da Silva',
      });
      const pix = await pay(world.app, link.code, { plink: link.id, payment_method: 'pix', name: 'Maria' });
      expect(pix.status, pix.page).to.equal(303);
    });
  });
});

describe('Mercado Pago as documented: attempts at the pay step', function () {
  this.timeout(60_000);
  const world = mercadoPagoWorld({ MERCADOPAGO_TIMEOUT_MS: '1500' });

  const keysOf = (orderCodes: string[]) =>
    world.mp.requests
      .filter((r) => r.method === 'POST' && r.path === '/v1/payments')
      .map((r) => r.headers['x-idempotency-key'] ?? '')
      .filter((key) => orderCodes.includes(key));

  it('resumes the same attempt (order and idempotency key) when the buyer reopens the link after MP was down', async () => {
    const tenant = await seed();
    const { seller } = await connectMercadoPago(world, tenant);
    const link = await offerLink(world.app, tenant);
    const first = crypto.randomUUID();
    world.mp.failNext({ method: 'POST', path: /^\/v1\/payments$/ }, { status: 500 });
    const down = await pay(world.app, link.code, { plink: link.id, payment_method: 'pix', attempt: first });
    expect(down.status, down.page).to.equal(503);

    // Reopened through the link: a new page, with its own attempt.
    const page = await world.app.http.get<string>(payPath(world.app, `/${link.code}?plink=${link.id}`));
    const second = /name="attempt" value="([0-9a-f-]{36})"/.exec(page.body)?.[1] ?? '';
    expect(second).to.not.equal('').and.not.equal(first);
    const resumed = await pay(world.app, link.code, {
      plink: link.id,
      payment_method: 'pix',
      attempt: second,
    });
    expect(resumed.status, resumed.page).to.equal(303);
    expect(resumed.orderCode).to.equal(first);
    expect(keysOf([first, second])).to.deep.equal([first, first]);
    expect(world.mp.paymentsOf(seller.userId).map((p) => p.external_reference)).to.deep.equal([first]);
  });

  it('still holds a single-use link for an unanswered attempt of another method', async () => {
    const tenant = await seed();
    await connectMercadoPago(world, tenant);
    const link = await offerLink(world.app, tenant);
    world.mp.failNext({ method: 'POST', path: /^\/v1\/payments$/ }, { kind: 'reset' });
    const down = await pay(world.app, link.code, { plink: link.id, payment_method: 'pix' });
    expect(down.status, down.page).to.equal(503);
    const other = await pay(world.app, link.code, {
      plink: link.id,
      payment_method: 'boleto',
      ...BOLETO_PAYER,
    });
    expect(other.status).to.equal(409);
  });

  it('makes a new attempt (a new idempotency key) of a form MP refused, once corrected', async () => {
    const tenant = await seed();
    const { seller } = await connectMercadoPago(world, tenant);
    const link = await offerLink(world.app, tenant);
    const attempt = crypto.randomUUID();
    const form = (cardToken: string) => ({
      plink: link.id,
      payment_method: 'credit_card',
      card_token: cardToken,
      card_payment_method_id: 'visa',
      attempt,
    });
    // A token of another MP account: MP refuses it (400, cause 3003).
    const refused = await pay(world.app, link.code, form(world.mp.createCardToken(world.mp.createSeller())));
    expect(refused.status).to.equal(400);
    const posts = world.mp.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payments');
    expect(posts.at(-1)?.status).to.equal(400);

    const corrected = await pay(
      world.app,
      link.code,
      form(world.mp.createCardToken(seller, { holder: 'APRO' })),
    );
    expect(corrected.status, corrected.page).to.equal(303);
    const after = world.mp.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payments').slice(-2);
    expect(after.map((r) => r.status)).to.deep.equal([400, 201]);
    expect(after[1]?.headers['x-idempotency-key']).to.not.equal(after[0]?.headers['x-idempotency-key']);
    expect(after[1]?.replayed).to.equal(false);
    expect(after[1]?.headers['x-idempotency-key']).to.equal(corrected.orderCode);
    const [payment] = world.mp.paymentsOf(seller.userId);
    expect(payment?.status).to.equal('approved');
  });
});

describe('Mercado Pago as documented: notifications', function () {
  this.timeout(60_000);
  const world = mercadoPagoWorld();

  /** Waits for the service to finish the job of one webhook MP sent. */
  async function handled(delivery: NotificationDelivery | null): Promise<void> {
    if (!delivery) throw new Error('no notification was sent');
    expect(delivery.status, delivery.error ?? '').to.equal(200);
    const query = new URL(delivery.url).searchParams;
    const topic = query.get('type') === 'payment' ? ('payment' as const) : ('chargebacks' as const);
    const notice = {
      provider: 'mercadopago' as const,
      topic,
      resourceId: query.get('data.id') ?? '',
      accountId: null,
    };
    const end = await world.engine.workers.producers.waitForJob(
      'gatewayNotices',
      noticeJobId(notice, delivery.requestId),
      15_000,
    );
    expect(end).to.equal('completed');
  }

  it('asks MP for webhooks only (source_news=webhooks), so no unsigned IPN call is sent and refused', async () => {
    const tenant = await seed();
    const { seller } = await connectMercadoPago(world, tenant);
    const link = await offerLink(world.app, tenant);
    const paid = await pay(world.app, link.code, { plink: link.id, payment_method: 'pix' });
    expect(paid.status, paid.page).to.equal(303);
    const told = String(
      (createdFor(world, paid.orderCode ?? '').body as { notification_url: unknown }).notification_url,
    );
    expect(new URL(told).searchParams.get('source_news')).to.equal('webhooks');
    const [payment] = world.mp.paymentsOf(seller.userId);
    await handled((await world.mp.approve(payment?.id ?? 0)).delivery);
    await world.mp.settled();
    const ours = world.mp.notifications.filter((n) => n.userId === seller.userId);
    expect(ours.map((n) => n.kind)).to.deep.equal(['webhook', 'webhook']);
    expect(ours.flatMap((n) => n.deliveries.map((d) => d.status))).to.deep.equal([200, 200]);
    expect((await orderOf(world, tenant, paid.orderCode ?? '')).status).to.equal('paid');
  });

  for (const topic of ['topic_chargebacks_wh', 'chargebacks'] as const) {
    it(`charges back the order on MP’s ${topic} topic, reading the chargeback’s payments as objects`, async () => {
      const tenant = await seed();
      const { seller } = await connectMercadoPago(world, tenant);
      const link = await offerLink(world.app, tenant);
      const paid = await pay(world.app, link.code, {
        plink: link.id,
        payment_method: 'credit_card',
        card_token: world.mp.createCardToken(seller, { holder: 'APRO' }),
        card_payment_method_id: 'visa',
      });
      const [payment] = world.mp.paymentsOf(seller.userId);
      const outcome = await world.mp.chargeback(payment?.id ?? 0, { topic });
      expect(new URL(outcome.chargebackDelivery?.url ?? 'http://x').searchParams.get('type')).to.equal(topic);
      expect(outcome.chargeback.payments).to.deep.equal([{ id: payment?.id }]);
      await handled(outcome.chargebackDelivery);
      expect((await orderOf(world, tenant, paid.orderCode ?? '')).status).to.equal('charged_back');
    });
  }
});

describe('Mercado Pago as documented: refreshing a company’s tokens', function () {
  this.timeout(60_000);
  const world = mercadoPagoWorld();

  interface Integration {
    config: Record<string, string>;
  }
  const configOf = async (tenant: SeedResult, id: number): Promise<Record<string, string>> =>
    (await world.app.http.get<Integration>(`${P}/integrations/${id}`, { auth: tenant.panel_token })).body
      .config;
  const stillConnected = async (tenant: SeedResult): Promise<void> => {
    const alert = await world.app.http.get(`${P}/integrations/alerts`, { auth: tenant.panel_token });
    expect(alert.body).to.deep.equal({ pending: false });
  };
  const tokenCalls = (from: number) =>
    world.mp.requests
      .slice(from)
      .filter((r) => r.path === '/oauth/token')
      .map((r) => r.status);

  it('keeps the stored account and public key when a refresh answers the tokens alone', async () => {
    const tenant = await seed();
    const { seller, integrationId } = await connectMercadoPago(world, tenant);
    const before = await configOf(tenant, integrationId);
    world.mp.expireAccessToken(seller.userId);
    const from = world.mp.requests.length;
    const link = await offerLink(world.app, tenant, { single_use: false });
    const paid = await pay(world.app, link.code, { plink: link.id, payment_method: 'pix' });
    expect(paid.status, paid.page).to.equal(303);
    expect(tokenCalls(from)).to.deep.equal([200]);
    await noteAccountSecrets(world.app, integrationId);
    expect(await configOf(tenant, integrationId)).to.deep.equal(before);
    await stillConnected(tenant);
    const again = await pay(world.app, link.code, { plink: link.id, payment_method: 'pix' });
    expect(again.status, again.page).to.equal(303);
    expect(tokenCalls(from), 'the refreshed token is used').to.deep.equal([200]);
  });

  for (const [name, fault] of [
    ['a 408', { status: 408 as const }],
    ['a 429', { status: 429 as const }],
    ['a 503', { status: 503 as const }],
    ['no answer', { kind: 'reset' as const }],
  ] as const) {
    it(`keeps the grant when a refresh gets ${name} (MP unavailable), and the next try refreshes`, async () => {
      const tenant = await seed();
      const { seller, integrationId } = await connectMercadoPago(world, tenant);
      world.mp.expireAccessToken(seller.userId);
      world.mp.failNext({ method: 'POST', path: /^\/oauth\/token$/ }, fault);
      const link = await offerLink(world.app, tenant);
      const attempt = crypto.randomUUID();
      const form = { plink: link.id, payment_method: 'pix', attempt };
      const failed = await pay(world.app, link.code, form);
      expect(failed.status).to.equal(503);
      await stillConnected(tenant);
      expect(await configOf(tenant, integrationId)).to.have.property('account_id', String(seller.userId));
      const retried = await pay(world.app, link.code, form);
      expect(retried.status, retried.page).to.equal(303);
      expect(retried.orderCode).to.equal(attempt);
      await noteAccountSecrets(world.app, integrationId);
    });
  }
});

describe('Mercado Pago as documented: a boleto MP made is never refused for its numbers', () => {
  const made = boletoNumbers('237', 19_750, '2026-12-10', '1234567890123456789012345');

  it('takes line and barcode as MP gave them', () => {
    expect(boletoNumbersOf({ digitableLine: made.digitableLine, barcode: made.barcode })).to.deep.equal(made);
  });

  it('derives the barcode from the 47-digit line (punctuated as MP prints it) when none came', () => {
    const printed = `${made.digitableLine.slice(0, 5)}.${made.digitableLine.slice(5, 10)} ${made.digitableLine.slice(10)}`;
    expect(boletoNumbersOf({ digitableLine: printed, barcode: null })).to.deep.equal(made);
    expect(boletoNumbersOf({ digitableLine: made.digitableLine, barcode: '123' })).to.deep.equal(made);
  });

  it('derives the line from the barcode, and gives none without either', () => {
    expect(boletoNumbersOf({ digitableLine: null, barcode: made.barcode })).to.deep.equal(made);
    expect(boletoNumbersOf({ digitableLine: null, barcode: null })).to.equal(null);
  });
});

describe('Mercado Pago stand-in: requests checked against MP’s reference', () => {
  const key = '0b7c3a52-64e5-4c1f-9d55-6a1c6cf1d2a0';
  const pix = {
    transaction_amount: 197.5,
    description: 'Curso',
    external_reference: key,
    notification_url: 'https://pay.example.com/gateway/mercadopago/notifications?source_news=webhooks',
    payer: { email: 'maria@example.com', first_name: 'Maria', last_name: 'Souza' },
    metadata: { order_code: key },
    payment_method_id: 'pix',
    date_of_expiration: '2026-12-07T12:31:00.000-03:00',
  };
  const boleto = {
    ...pix,
    payment_method_id: 'bolbradesco',
    payer: {
      ...pix.payer,
      identification: { type: 'CPF', number: '52998224725' },
      address: {
        zip_code: '01310100',
        street_name: 'Avenida Paulista',
        street_number: '1000',
        neighborhood: 'Bela Vista',
        city: 'São Paulo',
        federal_unit: 'SP',
      },
    },
  };
  const problem = (body: unknown, idempotencyKey: string | undefined = key) =>
    requestProblems
      .createPayment(body, idempotencyKey)
      ?.body.cause.map((c) => c.description)
      .join('; ') ?? null;

  it('takes the payments the adapter sends, with or without a numeric application_fee', () => {
    expect(problem(pix)).to.equal(null);
    expect(problem(boleto)).to.equal(null);
    expect(problem({ ...pix, application_fee: 9.85 })).to.equal(null);
    expect(problem({ ...pix, application_fee: 0 })).to.equal(null);
  });

  it('refuses what the reference does not name or type otherwise, in MP’s error shape', () => {
    const refused = requestProblems.createPayment({ ...pix, surprise: 1 }, key);
    expect(refused?.status).to.equal(400);
    expect(refused?.body).to.include({ error: 'bad_request', status: 400 });
    expect(refused?.body.cause[0]).to.include({ code: 1 });
    expect(problem({ ...pix, surprise: 1 })).to.match(/surprise/);
    expect(problem({ ...pix, application_fee: '9.85' })).to.match(/application_fee/);
    expect(problem({ ...pix, transaction_amount: 10.005 })).to.match(/transaction_amount/);
    expect(problem({ ...pix, external_reference: 'x'.repeat(257) })).to.match(/external_reference/);
    expect(problem({ ...pix, date_of_expiration: '2026-12-07 12:31' })).to.match(/date_of_expiration/);
    expect(problem({ ...pix, payer: { first_name: 'Maria' } })).to.match(/payer.email/);
    expect(problem({ ...pix, installments: 1 })).to.match(/installments/);
    expect(problem(pix, 'refund-123')).to.match(/X-Idempotency-Key/);
  });

  it('asks a boleto for the payer’s last name, document and address; a card for its token', () => {
    expect(problem({ ...boleto, payer: { ...boleto.payer, last_name: undefined } })).to.match(/last_name/);
    expect(problem({ ...boleto, payer: { ...boleto.payer, address: undefined } })).to.match(/address/);
    expect(
      problem({
        ...boleto,
        payer: { ...boleto.payer, identification: { type: 'CPF', number: '529.982.247-25' } },
      }),
    ).to.match(/identification.number/);
    const card = { ...pix, payment_method_id: 'visa', date_of_expiration: undefined, installments: 1 };
    expect(problem(card)).to.match(/token/);
    expect(problem({ ...card, token: 'ab'.repeat(16), issuer_id: '24' })).to.equal(null);
  });

  it('checks refunds, searches and the token endpoint too', () => {
    expect(requestProblems.createRefund({}, key)).to.equal(null);
    expect(requestProblems.createRefund({ amount: 'all' }, key)?.status).to.equal(400);
    expect(
      requestProblems.searchPayments({
        external_reference: key,
        sort: 'date_created',
        criteria: 'desc',
        limit: '10',
      }),
    ).to.equal(null);
    expect(requestProblems.searchPayments({ external_reference: key })?.status).to.equal(400);
    const client = { client_id: '1234567890', client_secret: 'secret' };
    expect(
      requestProblems.oauthToken({ ...client, grant_type: 'refresh_token', refresh_token: 'TG-1' }),
    ).to.equal(null);
    expect(
      requestProblems.oauthToken({
        ...client,
        grant_type: 'refresh_token',
        refresh_token: 'TG-1',
        code: 'TG-2',
      })?.status,
    ).to.equal(400);
  });
});
