import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { runRenewal, sweepRenewals } from '../../src/orders/renewals.js';
import { schema } from '../../src/shared/db/index.js';
import { seed } from '../helpers/app.js';
import { createLink } from '../checkout/helpers.js';
import { createIntegration, eventually } from '../events/helpers.js';
import { csrfOf, signIn } from '../buyer-account/helpers.js';
import {
  BOLETO_PAYER,
  connectMercadoPago,
  mercadoPagoWorld,
  P,
  pay,
  type MercadoPagoWorld,
} from './helpers.js';

interface Delivered {
  type: string;
  data: {
    order?: {
      code: string;
      status: string;
      payment_method: string;
      pix: { copy_paste: string } | null;
      boleto: unknown;
    } | null;
    subscription?: { id: number; status: string } | null;
  };
}

interface PanelSubscription {
  id: number;
  status: string;
  current_period_end: string;
}

describe('Mercado Pago: subscriptions bought through MP renew through MP', function () {
  this.timeout(90_000);
  // The renewal sweep runs often, so a renewal made due below is charged within moments.
  const world = mercadoPagoWorld({ RENEWAL_SWEEP_MS: '300', RENEWAL_RETRY_SCHEDULE: '3600' });

  async function subscriber(method: 'pix' | 'credit_card' | 'boleto') {
    const tenant = await seed();
    const { seller } = await connectMercadoPago(world, tenant);
    await createIntegration(world.app, tenant, {
      url: world.receiver.url,
      events: [
        'order.created',
        'order.paid',
        'order.failed',
        'order.abandoned',
        'subscription.renewed',
        'subscription.past_due',
      ],
      sendToAllProducts: true,
    });
    const plan = tenant.plans.find((p) => p.status === 'active');
    if (!plan) throw new Error('seed has no active plan');
    const link = await createLink(world.app, tenant.keys.live, { plan_code: plan.code });
    const fields: Record<string, string> =
      method === 'credit_card'
        ? { card_token: world.mp.createCardToken(seller, { holder: 'APRO' }), card_payment_method_id: 'visa' }
        : method === 'boleto'
          ? { ...BOLETO_PAYER }
          : {};
    const first = await pay(world.app, plan.code, { plink: link.id, payment_method: method, ...fields });
    expect(first.status, first.page).to.equal(303);
    const code = first.orderCode ?? '';
    if (method !== 'credit_card') {
      const [payment] = world.mp.paymentsOf(seller.userId).filter((p) => p.external_reference === code);
      await world.mp.approve(payment?.id ?? 0);
    }
    const subscription = await eventually(
      async () => {
        const list = await world.app.http.get<{ data: PanelSubscription[] }>(
          `${P}/subscriptions?livemode=true`,
          {
            auth: tenant.panel_token,
          },
        );
        return list.body.data[0];
      },
      15_000,
      'the subscription',
    );
    return { tenant, seller, subscription };
  }

  /** Moves the subscription's period end (or its retry) into the past, as time would. */
  async function makeDue(world: MercadoPagoWorld, id: number): Promise<void> {
    const past = new Date(Date.now() - 120_000);
    await world.app.ctx.db
      .update(schema.subscriptions)
      .set({ currentPeriodEnd: past })
      .where(eq(schema.subscriptions.id, id));
  }

  const events = (world: MercadoPagoWorld, type: string, subscriptionId: number): Delivered[] =>
    world.receiver.requests
      .map((r) => JSON.parse(r.body) as Delivered)
      .filter((b) => b.type === type && b.data.subscription?.id === subscriptionId);

  const renewalOrder = (world: MercadoPagoWorld, subscriptionId: number, n: number): Promise<Delivered> =>
    eventually(
      async () => events(world, 'order.created', subscriptionId)[n - 1],
      15_000,
      `renewal order.created #${n}`,
    );

  it('renews a Pix subscription with a Pix through MP, paid when MP says so', async () => {
    const { tenant, seller, subscription } = await subscriber('pix');
    // The dev gateway's clock does not renew it: MP decides how its charges end.
    const now = await world.app.http.post(`${P}/subscriptions/${subscription.id}/renew`, {
      auth: tenant.panel_token,
      body: { outcome: 'paid' },
    });
    expect(now.status).to.equal(409);
    await makeDue(world, subscription.id);
    const created = await renewalOrder(world, subscription.id, 1);
    expect(created.data.order).to.include({ status: 'pending', payment_method: 'pix' });
    const renewalCode = created.data.order?.code ?? '';
    const [payment] = world.mp.paymentsOf(seller.userId).filter((p) => p.external_reference === renewalCode);
    expect(created.data.order?.pix?.copy_paste).to.equal(
      payment?.point_of_interaction?.transaction_data?.qr_code,
    );
    // While it waits for this order, neither the sweep nor the renewal's own job charges again.
    expect(await sweepRenewals(world.app.ctx)).to.equal(0);
    await runRenewal(world.app.ctx, { subscriptionId: subscription.id, period: 2, attempt: 0 });
    expect(
      world.mp.paymentsOf(seller.userId).filter((p) => p.external_reference === renewalCode),
    ).to.have.length(1);
    expect(events(world, 'order.created', subscription.id)).to.have.length(1);

    await world.mp.approve(payment?.id ?? 0);
    const renewed = await eventually(
      async () => events(world, 'subscription.renewed', subscription.id)[0],
      15_000,
      'subscription.renewed',
    );
    expect(renewed.data.subscription?.status).to.equal('active');
    const after = await world.app.http.get<PanelSubscription>(`${P}/subscriptions/${subscription.id}`, {
      auth: tenant.panel_token,
    });
    expect(new Date(after.body.current_period_end).getTime()).to.be.greaterThan(Date.now());
  });

  it('renews a card subscription by Pix, and a renewal left unpaid is a failed charge (past_due)', async () => {
    const { seller, subscription } = await subscriber('credit_card');
    await makeDue(world, subscription.id);
    const created = await renewalOrder(world, subscription.id, 1);
    expect(created.data.order?.payment_method).to.equal('pix');
    const [payment] = world.mp
      .paymentsOf(seller.userId)
      .filter((p) => p.external_reference === created.data.order?.code);
    // The Pix expired at MP without being paid.
    await world.mp.cancel(payment?.id ?? 0);
    const pastDue = await eventually(
      async () => events(world, 'subscription.past_due', subscription.id)[0],
      15_000,
      'subscription.past_due',
    );
    expect(pastDue.data.subscription?.status).to.equal('past_due');
    const failed = world.receiver.requests
      .map((r) => JSON.parse(r.body) as Delivered)
      .filter((b) => b.type === 'order.failed' && b.data.order?.code === created.data.order?.code);
    expect(failed).to.have.length(1);
  });

  it('renews by the card its buyer gave on the buyer’s page through MP’s fields, spending the single-use token', async () => {
    const { seller, subscription } = await subscriber('pix');
    const browser = await signIn(world.app, 'maria@example.com');
    const form = await browser.get(`/account/subscriptions/${subscription.id}/method?lang=en`);
    expect(form.status).to.equal(200);
    // The checkout's own card fields and script, with the company's MP public key.
    expect(form.body)
      .to.include('data-mp-public-key')
      .and.match(/mercadopago-card[^"]*\.js/);
    expect(form.body).to.include('name="card_token"');
    const path = `/account/subscriptions/${subscription.id}/method`;
    const noCard = await browser.post(path, { _csrf: csrfOf(form.body), payment_method: 'credit_card' });
    expect(noCard.status, 'a card switch without MP’s token').to.equal(400);
    const switched = await browser.post(path, {
      _csrf: csrfOf(form.body),
      payment_method: 'credit_card',
      card_token: world.mp.createCardToken(seller, { holder: 'APRO' }),
      card_payment_method_id: 'visa',
    });
    expect(switched.status, switched.body.slice(0, 300)).to.equal(303);

    await makeDue(world, subscription.id);
    const created = await renewalOrder(world, subscription.id, 1);
    expect(created.data.order?.payment_method).to.equal('credit_card');
    const [payment] = world.mp
      .paymentsOf(seller.userId)
      .filter((p) => p.external_reference === created.data.order?.code);
    expect(payment?.payment_method_id).to.equal('visa');
    // The single-use token was spent: the subscription keeps the method, not the token.
    const [row] = await world.app.ctx.db
      .select({ method: schema.subscriptions.renewalMethod, card: schema.subscriptions.renewalCard })
      .from(schema.subscriptions)
      .where(eq(schema.subscriptions.id, subscription.id));
    expect(row).to.deep.equal({ method: 'credit_card', card: null });
  });

  it('renews a boleto subscription with a boleto for the same payer', async () => {
    const { subscription } = await subscriber('boleto');
    await makeDue(world, subscription.id);
    const created = await renewalOrder(world, subscription.id, 1);
    expect(created.data.order?.payment_method).to.equal('boleto');
    expect(created.data.order?.boleto).to.not.equal(null);
  });
});
