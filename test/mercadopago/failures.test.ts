import type { Queue } from 'bullmq';
import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import type { SeedResult } from '../../src/cli/seed.js';
import { noticeJobId } from '../../src/orders/gateway-routes.js';
import { schema } from '../../src/shared/db/index.js';
import { seed } from '../helpers/app.js';
import { eventually } from '../events/helpers.js';
import {
  connectMercadoPago,
  mercadoPagoWorld,
  noteAccountSecrets,
  oauthUrlOf,
  offerLink,
  onService,
  P,
  pay,
  type MercadoPagoWorld,
} from './helpers.js';

const orderStatus = async (
  world: MercadoPagoWorld,
  tenant: SeedResult,
  code: string,
): Promise<string | undefined> => {
  const res = await world.app.http.get<{ status: string }>(`${P}/orders/${code}`, {
    auth: tenant.panel_token,
  });
  return res.status === 200 ? res.body.status : undefined;
};

const paymentsFor = (world: MercadoPagoWorld, userId: number, orderCode: string) =>
  world.mp.paymentsOf(userId).filter((p) => p.external_reference === orderCode);

describe('Mercado Pago: the pay step when MP fails, and tokens that expire', function () {
  this.timeout(60_000);
  const world = mercadoPagoWorld({ MERCADOPAGO_TIMEOUT_MS: '1500' });

  const pixForm = (link: { id: string }, attempt: string) => ({
    plink: link.id,
    payment_method: 'pix',
    attempt,
  });
  /** The writes the service made to MP since request `from` (MP's own notification reads aside). */
  const posts = (from: number): string[] =>
    world.mp.requests
      .slice(from)
      .filter((r) => r.method === 'POST')
      .map((r) => `${r.method} ${r.path} ${r.status}`);

  for (const [name, fault] of [
    ['a 500', { status: 500 as const }],
    ['a dropped connection', { kind: 'reset' as const }],
    ['an answer lost after MP made the payment', { kind: 'reset-after-create' as const }],
    ['an answer slower than the timeout', { kind: 'delay-after-create' as const, ms: 3000 }],
  ] as const) {
    it(`answers ${name} with a calm page, and a retry makes exactly one MP payment`, async () => {
      const tenant = await seed();
      const { seller } = await connectMercadoPago(world, tenant);
      const link = await offerLink(world.app, tenant);
      const attempt = crypto.randomUUID();
      world.mp.failNext({ method: 'POST', path: /^\/v1\/payments$/ }, fault);
      const failed = await pay(world.app, link.code, pixForm(link, attempt), { 'accept-language': 'pt-BR' });
      expect(failed.status).to.equal(503);
      expect(failed.page).to.include('Não conseguimos iniciar o pagamento agora: nada foi cobrado.');
      expect(failed.page).not.to.match(/Error|at [A-Za-z]+ \(/);
      expect(await orderStatus(world, tenant, attempt)).to.equal(undefined);

      const retried = await pay(world.app, link.code, pixForm(link, attempt));
      expect(retried.status, retried.page).to.equal(303);
      expect(retried.orderCode).to.equal(attempt);
      expect(await orderStatus(world, tenant, attempt)).to.equal('pending');
      expect(paymentsFor(world, seller.userId, attempt), 'MP payments of the order').to.have.length(1);
      // Posted once more (a double click, the back button): the same order, still one payment.
      const again = await pay(world.app, link.code, pixForm(link, attempt));
      expect(again.orderCode).to.equal(attempt);
      expect(paymentsFor(world, seller.userId, attempt)).to.have.length(1);
    });
  }

  it('refreshes an access token MP stopped accepting, once, and charges with the new one', async () => {
    const tenant = await seed();
    const { seller } = await connectMercadoPago(world, tenant);
    world.mp.expireAccessToken(seller.userId);
    const before = world.mp.requests.length;
    const link = await offerLink(world.app, tenant);
    const paid = await pay(world.app, link.code, pixForm(link, crypto.randomUUID()));
    expect(paid.status, paid.page).to.equal(303);
    const calls = posts(before);
    expect(calls).to.deep.equal(['POST /v1/payments 401', 'POST /oauth/token 200', 'POST /v1/payments 201']);
    const refresh = world.mp.requests.slice(before).find((r) => r.path === '/oauth/token');
    expect((refresh?.body as { grant_type: string }).grant_type).to.equal('refresh_token');
  });

  it('refreshes ahead of use a token within a tenth of its lifetime of expiring', async () => {
    const tenant = await seed();
    const { integrationId } = await connectMercadoPago(world, tenant);
    await world.app.ctx.db
      .update(schema.gatewayAccounts)
      .set({ tokenExpiresAt: new Date(Date.now() + 60_000) })
      .where(eq(schema.gatewayAccounts.integrationId, integrationId));
    const before = world.mp.requests.length;
    const link = await offerLink(world.app, tenant);
    await pay(world.app, link.code, pixForm(link, crypto.randomUUID()));
    expect(posts(before)).to.deep.equal(['POST /oauth/token 200', 'POST /v1/payments 201']);
    await noteAccountSecrets(world.app, integrationId);
    const [account] = await world.app.ctx.db
      .select()
      .from(schema.gatewayAccounts)
      .where(eq(schema.gatewayAccounts.integrationId, integrationId));
    expect(account?.tokenExpiresAt.getTime()).to.be.greaterThan(Date.now() + 86_400_000);
  });

  it('puts the gateway back to pending when MP refuses the refresh, and a new authorization reconnects it', async () => {
    const tenant = await seed();
    const { seller, integrationId } = await connectMercadoPago(world, tenant);
    world.mp.revokeGrant(seller.userId);
    const link = await offerLink(world.app, tenant, { single_use: false });
    const failed = await pay(world.app, link.code, pixForm(link, crypto.randomUUID()));
    expect(failed.status).to.equal(503);
    const url = await oauthUrlOf(world.app, tenant);
    const integration = await world.app.http.get<{ config: Record<string, string> }>(
      `${P}/integrations/${integrationId}`,
      { auth: tenant.panel_token },
    );
    expect(Object.keys(integration.body.config).sort()).to.deep.equal([
      'account_id',
      'connected_at',
      'provider',
      'public_key',
    ]);
    // Until it is reconnected, new charges go through the deployment's default gateway.
    const meanwhile = await pay(world.app, link.code, pixForm(link, crypto.randomUUID()));
    expect(meanwhile.status).to.equal(303);
    expect(paymentsFor(world, seller.userId, meanwhile.orderCode ?? '')).to.have.length(0);

    const done = await world.app.http.get(onService(await world.mp.authorize(url.href, seller)));
    expect(done.status, done.text).to.equal(200);
    await noteAccountSecrets(world.app, integrationId);
    const after = await pay(world.app, link.code, pixForm(link, crypto.randomUUID()));
    expect(after.status, after.page).to.equal(303);
    expect(paymentsFor(world, seller.userId, after.orderCode ?? '')).to.have.length(1);
  });

  it('retries the read of a notification MP answered with a 503, through the queue', async () => {
    const tenant = await seed();
    const { seller } = await connectMercadoPago(world, tenant);
    const link = await offerLink(world.app, tenant);
    const code = (await pay(world.app, link.code, pixForm(link, crypto.randomUUID()))).orderCode ?? '';
    const [payment] = paymentsFor(world, seller.userId, code);
    if (!payment) throw new Error('no MP payment');
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
    world.mp.failNext({ method: 'GET', path: new RegExp(`^/v1/payments/${payment.id}$`) }, { status: 503 });
    const { delivery } = await world.mp.approve(payment.id);
    expect(delivery?.status).to.equal(200);
    const jobId = noticeJobId(
      { provider: 'mercadopago', topic: 'payment', resourceId: String(payment.id), accountId: null },
      delivery?.requestId ?? '',
    );
    expect(await world.engine.workers.producers.waitForJob('gatewayNotices', jobId, 20_000)).to.equal(
      'completed',
    );
    const job = await world.engine.workers.producers.queue('gatewayNotices').getJob(jobId);
    expect(job?.attemptsMade).to.be.greaterThan(1);
    expect(await orderStatus(world, tenant, code)).to.equal('paid');
  });
});

describe('Mercado Pago: poisoned jobs of its queues', function () {
  this.timeout(60_000);
  const world = mercadoPagoWorld();

  it('fails a poisoned notice or reconciliation job for good, without retrying it, and runs the next', async () => {
    // Untyped, as a stray producer (an old release, a person in Bull Board) would add them.
    const cases: Array<['gatewayNotices' | 'gatewayReconciliation', Record<string, unknown>]> = [
      ['gatewayNotices', { provider: 'stripe', topic: 'payment', resourceId: '1', accountId: null }],
      ['gatewayNotices', { provider: 'mercadopago', topic: 'payment', resourceId: '../x', accountId: null }],
      [
        'gatewayNotices',
        { provider: 'mercadopago', topic: 'payment', resourceId: '1', accountId: 'APP_USR-token' },
      ],
      ['gatewayReconciliation', { orderCode: 'not-a-code' }],
    ];
    for (const [key, data] of cases) {
      const queue: Queue = world.engine.workers.producers.queue(key);
      const job = await queue.add(key, data, { jobId: `poisoned-${key}-${crypto.randomUUID()}` });
      const end = await world.engine.workers.producers.waitForJob(key, job.id ?? '', 15_000);
      expect(end).to.equal('failed');
      const failed = await queue.getJob(job.id ?? '');
      expect(failed?.failedReason).to.match(/invalid gateway(Notices|Reconciliation) payload/);
      expect(failed?.attemptsMade).to.equal(1);
    }
    // A good one after them still runs (a payment nobody knows: ignored, and done).
    const good = await world.engine.workers.producers
      .queue('gatewayNotices')
      .add(
        'gatewayNotices',
        { provider: 'mercadopago', topic: 'payment', resourceId: '42', accountId: '7' },
        { jobId: `good-${crypto.randomUUID()}` },
      );
    expect(await world.engine.workers.producers.waitForJob('gatewayNotices', good.id ?? '', 15_000)).to.equal(
      'completed',
    );
  });
});

describe('Mercado Pago: reconciliation, so a lost notification never leaves a paid order pending', function () {
  this.timeout(60_000);
  const world = mercadoPagoWorld({ MERCADOPAGO_RECONCILE_AFTER_SECONDS: '1' });

  it('finds a Pix paid while its notification was lost', async () => {
    const tenant = await seed();
    const { seller } = await connectMercadoPago(world, tenant);
    const link = await offerLink(world.app, tenant);
    const code = (await pay(world.app, link.code, { plink: link.id, payment_method: 'pix' })).orderCode ?? '';
    const [payment] = paymentsFor(world, seller.userId, code);
    if (!payment) throw new Error('no MP payment');
    await world.mp.approve(payment.id, { notify: false });
    await eventually(
      async () => ((await orderStatus(world, tenant, code)) === 'paid' ? true : undefined),
      20_000,
      'the reconciliation to pay the order',
    );
  });

  it('makes the order of a card MP approved while the answer to the pay step was lost', async () => {
    const tenant = await seed();
    const { seller } = await connectMercadoPago(world, tenant);
    const link = await offerLink(world.app, tenant);
    const attempt = crypto.randomUUID();
    world.mp.failNext({ method: 'POST', path: /^\/v1\/payments$/ }, { kind: 'reset-after-create' });
    const lost = await pay(world.app, link.code, {
      plink: link.id,
      payment_method: 'credit_card',
      card_token: world.mp.createCardToken(seller, { holder: 'APRO' }),
      card_payment_method_id: 'visa',
      attempt,
    });
    expect(lost.status).to.equal(503);
    expect(paymentsFor(world, seller.userId, attempt)[0]?.status).to.equal('approved');
    // The buyer never comes back; the read finds the payment by its external reference.
    await eventually(
      async () => ((await orderStatus(world, tenant, attempt)) === 'paid' ? true : undefined),
      20_000,
      'the reconciliation to make and pay the order',
    );
  });
});
