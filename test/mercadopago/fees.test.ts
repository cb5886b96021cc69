import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
import { setCompanyPlatformFee } from '../../src/companies/service.js';
import { noticeJobId } from '../../src/orders/gateway-routes.js';
import { readable, send, signIn } from '../dashboard/helpers.js';
import { eq } from 'drizzle-orm';
import { schema } from '../../src/shared/db/index.js';
import { createLink } from '../checkout/helpers.js';
import { eventually } from '../helpers/eventually.js';
import { seed } from '../helpers/app.js';
import type { NotificationDelivery } from '../helpers/mercadopago/index.js';
import { connectMercadoPago, mercadoPagoWorld, offerLink, P, pay, type MercadoPagoWorld } from './helpers.js';

interface FeeOrder {
  code: string;
  status: string;
  amount: string;
  fees: { platform: string; gateway: string };
  net_amount: string;
}

const cents = (reais: string | number): number => Math.round(Number(reais) * 100);
const reais = (value: number): string => (value / 100).toFixed(2);

/** The deployment's default: 2.5 % plus R$ 0.40 on each MP payment. */
const DEFAULT = { percent: 2.5, fixed: 0.4 };

describe('Mercado Pago: a platform fee on each payment, and the fees each order records', function () {
  this.timeout(90_000);
  const world = mercadoPagoWorld({
    PLATFORM_FEE_PERCENT: String(DEFAULT.percent),
    PLATFORM_FEE_FIXED: String(DEFAULT.fixed),
    // The renewal sweep runs often, so a renewal made due below is charged within moments.
    RENEWAL_SWEEP_MS: '300',
    RENEWAL_RETRY_SCHEDULE: '3600',
  });

  const orderOf = async (tenant: SeedResult, code: string): Promise<FeeOrder> => {
    const res = await world.app.http.get<FeeOrder>(`${P}/orders/${code}`, { auth: tenant.panel_token });
    expect(res.status, res.text).to.equal(200);
    return res.body;
  };

  const createBody = (code: string): Record<string, unknown> => {
    const sent = world.mp.requests.find(
      (r) => r.method === 'POST' && r.path === '/v1/payments' && r.headers['x-idempotency-key'] === code,
    );
    expect(sent, `MP was asked for order ${code}`).to.not.equal(undefined);
    return sent?.body as Record<string, unknown>;
  };

  /** Waits for the service to finish the job of the notification MP sent. */
  async function handled(world: MercadoPagoWorld, delivery: NotificationDelivery | null): Promise<void> {
    expect(delivery?.status, delivery?.error ?? 'no notification').to.equal(200);
    const id = new URL(delivery?.url ?? '').searchParams.get('data.id') ?? '';
    const job = noticeJobId(
      { provider: 'mercadopago', topic: 'payment', resourceId: id, accountId: null },
      delivery?.requestId ?? '',
    );
    expect(await world.engine.workers.producers.waitForJob('gatewayNotices', job, 15_000)).to.equal(
      'completed',
    );
  }

  /** A Pix paid by the buyer: the order before and after MP approved it, with what MP was sent and listed. */
  async function paidPix(tenant: SeedResult, userId: number) {
    const link = await offerLink(world.app, tenant);
    const { orderCode } = await pay(world.app, link.code, { plink: link.id, payment_method: 'pix' });
    const code = orderCode ?? '';
    const pending = await orderOf(tenant, code);
    const body = createBody(code);
    const [payment] = world.mp.paymentsOf(userId).filter((p) => p.external_reference === code);
    if (!payment) throw new Error(`no MP payment for ${code}`);
    const approved = await world.mp.approve(payment.id);
    await handled(world, approved.delivery);
    const mpFee = approved.payment.fee_details.find((f) => f.type === 'mercadopago_fee')?.amount ?? NaN;
    return { pending, paid: await orderOf(tenant, code), body, mpFee, approved: approved.payment };
  }

  it('sends a company’s own fee as application_fee; the order shows it, MP’s fee once approved, and the net', async () => {
    const tenant = await seed();
    const { seller } = await connectMercadoPago(world, tenant);
    await setCompanyPlatformFee(world.app.ctx.db, tenant.company.id, { percent: '10.00', fixed: '1.00' });
    const { pending, paid, body, mpFee, approved } = await paidPix(tenant, seller.userId);

    const fee = Math.round(cents(pending.amount) * 0.1) + 100;
    expect(body.application_fee).to.equal(fee / 100);
    expect(pending).to.deep.include({
      status: 'pending',
      fees: { platform: reais(fee), gateway: '0.00' },
      net_amount: reais(cents(pending.amount) - fee),
    });
    // MP lists its fees once approved: its own, and the application's as it was sent.
    expect(approved.fee_details).to.deep.include({
      type: 'application_fee',
      amount: fee / 100,
      fee_payer: 'collector',
    });
    expect(mpFee).to.be.greaterThan(0);
    expect(paid).to.deep.include({
      status: 'paid',
      fees: { platform: reais(fee), gateway: reais(cents(mpFee)) },
      net_amount: reais(cents(paid.amount) - fee - cents(mpFee)),
    });
    expect(cents(paid.net_amount)).to.equal(cents(approved.transaction_details.net_received_amount));

    // The dashboard's order page shows the same three figures.
    const session = await signIn(world.app, tenant.panel_token);
    const page = await send(world.app, 'GET', `/orders/${paid.code}?lang=en`, { session });
    expect(page.status).to.equal(200);
    const text = readable(page.text);
    expect(text).to.include(`Platform fee R$${reais(fee)}`);
    expect(text).to.include(`Payment processor fee R$${reais(cents(mpFee))}`);
    expect(text).to.include(`Net amount R$${paid.net_amount}`);
  });

  it('takes the deployment’s PLATFORM_FEE_* from a company without its own, on a card approved at once', async () => {
    const tenant = await seed();
    const { seller } = await connectMercadoPago(world, tenant);
    const link = await offerLink(world.app, tenant);
    const paid = await pay(world.app, link.code, {
      plink: link.id,
      payment_method: 'credit_card',
      installments: '1',
      card_token: world.mp.createCardToken(seller, { holder: 'APRO' }),
      card_payment_method_id: 'visa',
    });
    expect(paid.status, paid.page).to.equal(303);
    const order = await orderOf(tenant, paid.orderCode ?? '');
    const fee = Math.round((cents(order.amount) * DEFAULT.percent) / 100) + cents(DEFAULT.fixed);
    expect(createBody(order.code).application_fee).to.equal(fee / 100);
    const [payment] = world.mp.paymentsOf(seller.userId).filter((p) => p.external_reference === order.code);
    const mpFee = payment?.fee_details.find((f) => f.type === 'mercadopago_fee')?.amount ?? NaN;
    expect(order).to.deep.include({
      status: 'paid',
      fees: { platform: reais(fee), gateway: reais(cents(mpFee)) },
      net_amount: reais(cents(order.amount) - fee - cents(mpFee)),
    });
  });

  it('takes the company’s fee on a subscription’s renewal too', async () => {
    const tenant = await seed();
    const { seller } = await connectMercadoPago(world, tenant);
    await setCompanyPlatformFee(world.app.ctx.db, tenant.company.id, { percent: '5.00', fixed: '0.00' });
    const plan = tenant.plans.find((p) => p.status === 'active');
    if (!plan) throw new Error('seed has no active plan');
    const link = await createLink(world.app, tenant.keys.live, { plan_code: plan.code });
    const first = await pay(world.app, plan.code, {
      plink: link.id,
      payment_method: 'credit_card',
      installments: '1',
      card_token: world.mp.createCardToken(seller, { holder: 'APRO' }),
      card_payment_method_id: 'visa',
    });
    expect(first.status, first.page).to.equal(303);
    const { subscriptions } = schema;
    const subscription = await eventually(
      async () =>
        (
          await world.app.ctx.db
            .select()
            .from(subscriptions)
            .where(eq(subscriptions.companyId, tenant.company.id))
        )[0],
      15_000,
      'the subscription',
    );
    // Its period ends, as time would have it: the sweep charges the renewal through MP.
    await world.app.ctx.db
      .update(subscriptions)
      .set({ currentPeriodEnd: new Date(Date.now() - 120_000) })
      .where(eq(subscriptions.id, subscription.id));
    const renewal = await eventually(
      () =>
        world.mp.requests.find(
          (r) =>
            r.method === 'POST' &&
            r.path === '/v1/payments' &&
            r.userId === seller.userId &&
            r.headers['x-idempotency-key'] !== first.orderCode,
        ),
      15_000,
      'the renewal’s payment',
    );
    const body = renewal.body as { transaction_amount: number; application_fee?: number };
    expect(body.application_fee).to.equal(Math.round(cents(body.transaction_amount) * 0.05) / 100);
  });

  it('sends no application_fee when a company’s fee is zero; the order shows only MP’s fee', async () => {
    const tenant = await seed();
    const { seller } = await connectMercadoPago(world, tenant);
    await setCompanyPlatformFee(world.app.ctx.db, tenant.company.id, { percent: '0.00', fixed: '0.00' });
    const { pending, paid, body, mpFee } = await paidPix(tenant, seller.userId);
    expect(body).not.to.have.property('application_fee');
    expect(pending.fees).to.deep.equal({ platform: '0.00', gateway: '0.00' });
    expect(pending.net_amount).to.equal(pending.amount);
    expect(paid.fees).to.deep.equal({ platform: '0.00', gateway: reais(cents(mpFee)) });
    expect(paid.net_amount).to.equal(reais(cents(paid.amount) - cents(mpFee)));
  });
});

describe('Mercado Pago: the fees of an order made from a read, its pay step never answered', function () {
  this.timeout(60_000);
  const world = mercadoPagoWorld({ MERCADOPAGO_RECONCILE_AFTER_SECONDS: '1' });

  it('records the platform fee MP split off and MP’s own, as MP lists them', async () => {
    const tenant = await seed();
    const { seller } = await connectMercadoPago(world, tenant);
    await setCompanyPlatformFee(world.app.ctx.db, tenant.company.id, { percent: '10.00', fixed: '0.00' });
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
    const [payment] = world.mp.paymentsOf(seller.userId).filter((p) => p.external_reference === attempt);
    const listed = (type: string) => payment?.fee_details.find((f) => f.type === type)?.amount ?? NaN;
    const order = await eventually(
      async () => {
        const res = await world.app.http.get<FeeOrder>(`${P}/orders/${attempt}`, {
          auth: tenant.panel_token,
        });
        return res.status === 200 && res.body.status === 'paid' ? res.body : undefined;
      },
      20_000,
      'the reconciliation to make and pay the order',
    );
    expect(order.fees).to.deep.equal({
      platform: reais(cents(listed('application_fee'))),
      gateway: reais(cents(listed('mercadopago_fee'))),
    });
    expect(cents(order.fees.platform)).to.equal(Math.round(cents(order.amount) * 0.1));
    expect(order.net_amount).to.equal(
      reais(cents(order.amount) - cents(order.fees.platform) - cents(order.fees.gateway)),
    );
  });
});
