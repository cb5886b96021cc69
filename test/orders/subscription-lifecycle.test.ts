import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import type { SeedResult } from '../../src/cli/seed.js';
import { seed } from '../helpers/app.js';
import type { HttpResponse } from '../helpers/http.js';
import { activeOffer, activePlan, createLink, signedCallback, type WireLink } from '../checkout/helpers.js';
import { createIntegration, eventually, Receiver, startEngine, type Engine } from '../events/helpers.js';
import { expectError } from '../panel/helpers.js';
import { checkout, P, panelRoles, type List, type PanelOrder, type PanelSubscription } from './helpers.js';

const SECRET = `whsec_${Buffer.from('a-subscription-lives-and-dies!!').toString('base64')}`;
const KINDS = [
  'order.paid',
  'order.failed',
  'order.chargeback',
  'subscription.created',
  'subscription.renewed',
  'subscription.past_due',
  'subscription.canceled',
];

interface Delivered {
  id: string;
  type: string;
  livemode: boolean;
  test: boolean;
  data: {
    order?: { code: string; status: string; test?: boolean; sandbox?: boolean } | null;
    subscription?: (Partial<PanelSubscription> & { id: number; status: string }) | null;
    customer: Record<string, string | null>;
    purchase: { payment_link: { code: string } | null; tracking: { external_reference: string | null } };
  };
}

interface Simulated extends WireLink {
  simulation: {
    event: string;
    events: string[];
    webhooks: Array<{ event: string; integration_id: number; success: boolean; status: number }>;
  };
}

/**
 * What a seller of a membership learns from us, through HTTP only (simulate, the panel, the signed
 * gateway callback): each step of a subscription's life as a signed event, verified as a Standard
 * Webhooks receiver would and against its kind's schema in the served document (the receiver checks
 * every body), and the subscription as the panel shows it.
 */
describe('Subscription lifecycle: failed renewals and retries, cancel at period end, chargebacks', function () {
  this.timeout(60_000);
  let receiver: Receiver;

  before(async () => {
    receiver = await new Receiver().start();
  });
  after(() => receiver.close());

  const delivered = (): Delivered[] =>
    receiver.requests.map(
      (r) => new Webhook(SECRET).verify(r.body, r.headers as Record<string, string>) as Delivered,
    );
  /** The kinds received about one subscription, in arrival order. */
  const lifeOf = (subscriptionId: number): string[] =>
    delivered()
      .filter((e) => e.data.subscription?.id === subscriptionId)
      .map((e) => e.type);
  const lifeReaches = (subscriptionId: number, count: number, what: string): Promise<string[]> =>
    eventually(
      async () => {
        const life = lifeOf(subscriptionId);
        return life.length >= count ? life : undefined;
      },
      15_000,
      what,
    );
  const eventOf = (subscriptionId: number, type: string): Delivered[] =>
    delivered().filter((e) => e.type === type && e.data.subscription?.id === subscriptionId);

  async function tenantWithReceiver(engine: Engine): Promise<SeedResult> {
    const tenant = await seed();
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      secret: SECRET,
      events: KINDS,
      sendToAllProducts: true,
    });
    return tenant;
  }

  function client(engine: Engine) {
    const app = engine.app;
    return {
      simulate: (tenant: SeedResult, linkId: string, outcome: string): Promise<HttpResponse<Simulated>> =>
        app.http.post<Simulated>(`/v1/payment-links/${linkId}/simulate`, {
          auth: tenant.keys.test,
          body: { outcome },
        }),
      subscription: async (auth: string, id: number): Promise<PanelSubscription> => {
        const res = await app.http.get<PanelSubscription>(`${P}/subscriptions/${id}`, { auth });
        expect(res.status, res.text).to.equal(200);
        return res.body;
      },
      renew: (auth: string, id: number, body?: Record<string, unknown>) =>
        app.http.post<PanelSubscription>(`${P}/subscriptions/${id}/renew`, {
          auth,
          ...(body ? { body } : {}),
        }),
      cancel: (auth: string, id: number, body?: Record<string, unknown>) =>
        app.http.post<PanelSubscription>(`${P}/subscriptions/${id}/cancel`, {
          auth,
          ...(body ? { body } : {}),
        }),
      orders: async (auth: string, query: string): Promise<PanelOrder[]> =>
        (await app.http.get<List<PanelOrder>>(`${P}/orders${query}`, { auth })).body.data,
      /** A test plan link paid by simulate `paid`: the test-mode subscription it started. */
      async testSubscription(tenant: SeedResult, reference: string): Promise<{ link: WireLink; id: number }> {
        const link = await createLink(app, tenant.keys.test, {
          plan_code: activePlan(tenant).code,
          external_reference: reference,
          customer: { name: 'Tess Test', email: 'tess@example.com' },
        });
        const paid = await this.simulate(tenant, link.id, 'paid');
        expect(paid.status, paid.text).to.equal(200);
        expect(paid.body).to.include({ status: 'paid', order: null });
        expect(paid.body.simulation.events).to.deep.equal(['order.paid', 'subscription.created']);
        const list = await app.http.get<List<PanelSubscription>>(`${P}/subscriptions?livemode=false`, {
          auth: tenant.panel_token,
        });
        const id = list.body.data[0]?.id;
        if (id === undefined) throw new Error('simulate paid on a test plan link started no subscription');
        return { link, id };
      },
      /** A live plan link paid by card at the checkout (the dev gateway confirms it). */
      async liveSubscription(tenant: SeedResult): Promise<{ first: PanelOrder; id: number }> {
        const plan = activePlan(tenant);
        const link = await createLink(app, tenant.keys.live, {
          plan_code: plan.code,
          external_reference: 'live-sub',
        });
        const { order } = await checkout(app, tenant, plan.code, link.id, { name: 'Lia Live' });
        expect(order).to.include({ status: 'paid' });
        if (order.subscription_id === null) throw new Error('the paid plan order has no subscription');
        return { first: order, id: order.subscription_id };
      },
    };
  }

  describe('retries a second apart: the delayed retry job charges again', () => {
    let engine: Engine;
    before(async () => {
      engine = await startEngine({ RENEWAL_RETRY_SCHEDULE: '1,1' });
    });
    after(() => engine.close());

    it('test mode: created → renewal failed (past_due) → the retry job pays → renewed', async () => {
      const api = client(engine);
      const tenant = await tenantWithReceiver(engine);
      const { link, id } = await api.testSubscription(tenant, 'gym-42');
      const started = await api.subscription(tenant.panel_token, id);
      expect(started).to.deep.include({
        status: 'active',
        livemode: false,
        cancel_at_period_end: false,
        cancel_reason: null,
        canceled_at: null,
      });

      const failed = await api.simulate(tenant, link.id, 'renewal_failed');
      expect(failed.status, failed.text).to.equal(200);
      expect(failed.body).to.include({ id: link.id, status: 'paid' });
      expect(failed.body.simulation.event).to.equal('order.failed');
      expect(failed.body.simulation.events).to.deep.equal(['order.failed', 'subscription.past_due']);
      expect(failed.body.simulation.webhooks.map((w) => [w.event, w.success])).to.deep.equal([
        ['order.failed', true],
        ['subscription.past_due', true],
      ]);
      const pastDue = await api.subscription(tenant.keys.read_only, id);
      expect(pastDue).to.include({ status: 'past_due', current_period_end: started.current_period_end });

      // The retry is a delayed job a second later; the dev gateway pays it.
      const life = await lifeReaches(id, 6, 'the retry paid');
      expect(life).to.deep.equal([
        'order.paid',
        'subscription.created',
        'order.failed',
        'subscription.past_due',
        'order.paid',
        'subscription.renewed',
      ]);
      const renewed = await api.subscription(tenant.panel_token, id);
      expect(renewed.status).to.equal('active');
      expect(Date.parse(renewed.current_period_end)).to.be.greaterThan(
        Date.parse(started.current_period_end),
      );

      // Every event of a test-mode subscription is a test event; its renewal orders are marked as such.
      const events = delivered().filter((e) => e.data.subscription?.id === id);
      expect(events.every((e) => e.test && !e.livemode)).to.equal(true);
      const [created] = eventOf(id, 'subscription.created');
      expect(created?.data.subscription).to.deep.equal({ ...started, status: 'active' });
      expect(created?.data.customer).to.include({ name: 'Tess Test', email: 'tess@example.com' });
      expect(created?.data.purchase.tracking.external_reference).to.equal('gym-42');
      expect(eventOf(id, 'subscription.renewed')[0]?.data.subscription).to.deep.equal(renewed);
      const renewalOrders = events.filter((e) => e.data.purchase.payment_link === null && e.data.order);
      expect(renewalOrders.map((e) => e.data.order?.status)).to.deep.equal(['failed', 'paid']);
      for (const e of renewalOrders) expect(e.data.order).to.include({ test: true, sandbox: true });

      // The panel lists them as test-mode orders of the subscription, not made through a link.
      const orders = await api.orders(tenant.panel_token, '?livemode=false');
      expect(orders.map((o) => [o.status, o.subscription_id, o.link_id])).to.deep.equal([
        ['paid', id, null],
        ['failed', id, null],
      ]);
      expect(orders[0]?.customer).to.include({ name: 'Tess Test' });
    });

    it('live mode: renew now with outcome failed (dev gateway) → past_due; the retry job pays → renewed', async () => {
      const api = client(engine);
      const tenant = await tenantWithReceiver(engine);
      const roles = await panelRoles(engine.app, tenant);
      const { first, id } = await api.liveSubscription(tenant);
      expectError(await api.renew(roles.readOnly, id, { outcome: 'failed' }), 403, 'permission_error');
      const failed = await api.renew(roles.member, id, { outcome: 'failed' });
      expect(failed.status, failed.text).to.equal(200);
      expect(failed.body).to.include({ status: 'past_due', livemode: true });
      const life = await lifeReaches(id, 6, 'the live retry paid');
      expect(life.slice(0, 2)).to.deep.equal(['order.paid', 'subscription.created']);
      expect(life.slice(2).sort()).to.deep.equal(
        ['order.failed', 'subscription.past_due', 'order.paid', 'subscription.renewed'].sort(),
      );
      expect((await api.subscription(roles.owner, id)).status).to.equal('active');
      const orders = (await api.orders(roles.owner, '?livemode=true')).filter(
        (o) => o.subscription_id === id,
      );
      expect(orders.map((o) => o.status)).to.deep.equal(['paid', 'failed', 'paid']);
      expect(orders[2]?.code).to.equal(first.code);
      // Live events: not test events, and the orders are real ones (no test marks).
      const renewal = eventOf(id, 'subscription.renewed')[0];
      expect(renewal).to.include({ livemode: true, test: false });
    });
  });

  describe('retries an hour apart: each retry runs when asked', () => {
    let engine: Engine;
    before(async () => {
      engine = await startEngine({ RENEWAL_RETRY_SCHEDULE: '3600,3600' });
    });
    after(() => engine.close());

    it('test mode: every retry fails → canceled with payment_failed; past_due is sent once', async () => {
      const api = client(engine);
      const tenant = await tenantWithReceiver(engine);
      const { link, id } = await api.testSubscription(tenant, 'all-fail');
      const outcomes: string[][] = [];
      for (let i = 0; i < 3; i += 1) {
        const res = await api.simulate(tenant, link.id, 'renewal_failed');
        expect(res.status, res.text).to.equal(200);
        outcomes.push(res.body.simulation.events);
        const now = await api.subscription(tenant.panel_token, id);
        expect(now.status).to.equal(i < 2 ? 'past_due' : 'canceled');
      }
      expect(outcomes).to.deep.equal([
        ['order.failed', 'subscription.past_due'],
        ['order.failed'],
        ['order.failed', 'subscription.canceled'],
      ]);
      const canceled = await api.subscription(tenant.panel_token, id);
      expect(canceled).to.include({
        status: 'canceled',
        cancel_reason: 'payment_failed',
        cancel_at_period_end: false,
      });
      expect(canceled.canceled_at).to.be.a('string');
      const life = await lifeReaches(id, 7, 'the cancellation');
      expect(life).to.deep.equal([
        'order.paid',
        'subscription.created',
        'order.failed',
        'subscription.past_due',
        'order.failed',
        'order.failed',
        'subscription.canceled',
      ]);
      expect(eventOf(id, 'subscription.canceled')[0]?.data.subscription).to.deep.equal(canceled);

      // Nothing more to renew: 409, and the panel filters by the new statuses.
      expectError(await api.simulate(tenant, link.id, 'renewal_paid'), 409, 'conflict');
      for (const [status, ids] of [
        ['canceled', [id]],
        ['past_due', []],
        ['active', []],
      ] as const) {
        const list = await engine.app.http.get<List<PanelSubscription>>(
          `${P}/subscriptions?status=${status}`,
          {
            auth: tenant.keys.read_only,
          },
        );
        expect(
          list.body.data.map((s) => s.id),
          status,
        ).to.deep.equal(ids);
      }
    });

    it('live mode: renew now failing every retry cancels it; the list filters past_due for every role', async () => {
      const api = client(engine);
      const tenant = await tenantWithReceiver(engine);
      const roles = await panelRoles(engine.app, tenant);
      const { id } = await api.liveSubscription(tenant);
      expect((await api.renew(roles.owner, id, { outcome: 'failed' })).body.status).to.equal('past_due');
      for (const auth of Object.values(roles)) {
        const list = await engine.app.http.get<List<PanelSubscription>>(
          `${P}/subscriptions?status=past_due`,
          {
            auth,
          },
        );
        expect(list.status).to.equal(200);
        expect(list.body.data.map((s) => [s.id, s.status, s.cancel_reason])).to.deep.equal([
          [id, 'past_due', null],
        ]);
      }
      expect((await api.renew(roles.member, id, { outcome: 'failed' })).body.status).to.equal('past_due');
      const last = await api.renew(roles.owner, id, { outcome: 'failed' });
      expect(last.body).to.include({ status: 'canceled', cancel_reason: 'payment_failed' });
      expectError(await api.renew(roles.owner, id), 409, 'conflict');
      await lifeReaches(id, 7, 'the live cancellation');
      expect(eventOf(id, 'subscription.past_due')).to.have.length(1);
      expect(eventOf(id, 'subscription.canceled')).to.have.length(1);
      const orders = (await api.orders(roles.owner, '?status=failed')).filter(
        (o) => o.subscription_id === id,
      );
      expect(orders).to.have.length(3);
    });

    it('cancel at period end: active until then, never charged again, canceled there (simulate and renew now)', async () => {
      const api = client(engine);
      const tenant = await tenantWithReceiver(engine);
      const roles = await panelRoles(engine.app, tenant);

      // Test mode, reached by simulate.
      const { link, id } = await api.testSubscription(tenant, 'period-end');
      expectError(await api.cancel(roles.readOnly, id, { at_period_end: true }), 403, 'permission_error');
      const scheduled = await api.cancel(roles.member, id, { at_period_end: true });
      expect(scheduled.status, scheduled.text).to.equal(200);
      expect(scheduled.body).to.include({
        status: 'active',
        cancel_at_period_end: true,
        cancel_reason: null,
        canceled_at: null,
      });
      const again = await api.cancel(roles.owner, id, { at_period_end: true });
      expect(again.body).to.deep.equal(scheduled.body);
      const end = await api.simulate(tenant, link.id, 'renewal_paid');
      expect(end.status, end.text).to.equal(200);
      expect(end.body.simulation).to.include({ event: 'subscription.canceled' });
      expect(end.body.simulation.events).to.deep.equal(['subscription.canceled']);
      const ended = await api.subscription(roles.owner, id);
      expect(ended).to.include({
        status: 'canceled',
        cancel_reason: 'requested',
        cancel_at_period_end: true,
      });
      expect(ended.current_period_end).to.equal(scheduled.body.current_period_end);
      expect(await lifeReaches(id, 3, 'the period end')).to.deep.equal([
        'order.paid',
        'subscription.created',
        'subscription.canceled',
      ]);
      expect(await api.orders(roles.owner, '?livemode=false')).to.deep.equal([]);
      expectError(await api.simulate(tenant, link.id, 'renewal_paid'), 409, 'conflict');

      // Live mode, reached by renew now: canceled, no renewal order.
      const live = await api.liveSubscription(tenant);
      await api.cancel(roles.owner, live.id, { at_period_end: true });
      const reached = await api.renew(roles.member, live.id);
      expect(reached.body).to.include({ status: 'canceled', cancel_reason: 'requested' });
      const liveOrders = (await api.orders(roles.owner, '')).filter((o) => o.subscription_id === live.id);
      expect(liveOrders.map((o) => o.code)).to.deep.equal([live.first.code]);
      await lifeReaches(live.id, 3, 'the live period end');
      expect(eventOf(live.id, 'subscription.canceled')[0]?.data.subscription).to.include({
        cancel_reason: 'requested',
      });
    });

    it('cancel at once: canceled (requested) with its event; at_period_end on a past_due one ends it at once', async () => {
      const api = client(engine);
      const tenant = await tenantWithReceiver(engine);
      const roles = await panelRoles(engine.app, tenant);
      const now = await api.liveSubscription(tenant);
      const canceled = await api.cancel(roles.member, now.id, { at_period_end: false });
      expect(canceled.body).to.include({
        status: 'canceled',
        cancel_reason: 'requested',
        cancel_at_period_end: false,
      });
      // A cancel of a canceled subscription changes nothing and sends nothing.
      expect((await api.cancel(roles.owner, now.id, { at_period_end: true })).body).to.deep.equal(
        canceled.body,
      );
      await lifeReaches(now.id, 3, 'the cancel');

      const late = await api.liveSubscription(tenant);
      await api.renew(roles.owner, late.id, { outcome: 'failed' });
      const ended = await api.cancel(roles.owner, late.id, { at_period_end: true });
      expect(ended.body).to.include({ status: 'canceled', cancel_reason: 'requested' });
      await lifeReaches(late.id, 5, 'the past_due cancel');
      expect(eventOf(now.id, 'subscription.canceled')).to.have.length(1);
      expect(eventOf(late.id, 'subscription.canceled')).to.have.length(1);
      // Bad bodies are refused by name.
      expectError(
        await api.cancel(roles.owner, late.id, { at_period_end: 'yes' }),
        400,
        'validation_error',
        'at_period_end',
      );
      expectError(await api.cancel(roles.owner, late.id, { when: 'now' }), 400, 'validation_error', 'when');
      expectError(
        await api.renew(roles.owner, late.id, { outcome: 'maybe' }),
        400,
        'validation_error',
        'outcome',
      );
    });

    it("chargeback of a plan's first order: charged_back, order.chargeback, the subscription canceled (chargeback); no refund; a repeat is replayed", async () => {
      const api = client(engine);
      const tenant = await tenantWithReceiver(engine);
      const roles = await panelRoles(engine.app, tenant);
      const { first, id } = await api.liveSubscription(tenant);

      const disputed = await signedCallback(engine.app, { order_code: first.code, status: 'chargeback' });
      expect(disputed.status, disputed.text).to.equal(200);
      expect(disputed.body).to.deep.include({ received: true, replayed: false });
      expect(disputed.body).to.have.nested.property('order.status', 'charged_back');
      const order = await engine.app.http.get<PanelOrder>(`${P}/orders/${first.code}`, {
        auth: roles.readOnly,
      });
      expect(order.body.status).to.equal('charged_back');
      expect(await api.subscription(roles.readOnly, id)).to.include({
        status: 'canceled',
        cancel_reason: 'chargeback',
      });
      expect(await lifeReaches(id, 4, 'the chargeback')).to.deep.equal([
        'order.paid',
        'subscription.created',
        'order.chargeback',
        'subscription.canceled',
      ]);
      const chargeback = eventOf(id, 'order.chargeback')[0];
      expect(chargeback?.data.order).to.include({ code: first.code, status: 'charged_back' });
      expect(chargeback?.data.subscription).to.include({ id, status: 'canceled' });

      // The money went back through the dispute: no refund, from the panel or the gateway.
      expectError(
        await engine.app.http.post(`${P}/orders/${first.code}/refund`, { auth: roles.owner }),
        409,
        'conflict',
      );
      expect(
        (await signedCallback(engine.app, { order_code: first.code, status: 'refunded' })).status,
      ).to.equal(409);
      // The gateway repeating itself is answered as a replay, and records nothing more.
      const repeated = await signedCallback(engine.app, { order_code: first.code, status: 'chargeback' });
      expect(repeated.status).to.equal(200);
      expect(repeated.body).to.deep.include({ replayed: true });
      const rows = await engine.app.ctx.pool.query<{ type: string }>(
        `SELECT type FROM events WHERE company_id = $1 AND type IN ('order.chargeback', 'subscription.canceled')`,
        [tenant.company.id],
      );
      expect(rows.rows.map((r) => r.type).sort()).to.deep.equal([
        'order.chargeback',
        'subscription.canceled',
      ]);
      // The panel finds it by its status.
      const listed = await api.orders(roles.member, '?status=charged_back');
      expect(listed.map((o) => o.code)).to.deep.equal([first.code]);
    });

    it('chargeback of a renewal of a canceled subscription cancels nothing more; a pending order cannot be charged back', async () => {
      const api = client(engine);
      const tenant = await tenantWithReceiver(engine);
      const { id } = await api.liveSubscription(tenant);
      await api.renew(tenant.panel_token, id);
      await api.cancel(tenant.panel_token, id);
      const renewal = (await api.orders(tenant.panel_token, '')).find(
        (o) => o.subscription_id === id && !o.link_id,
      );
      if (!renewal) throw new Error('no renewal order');
      const disputed = await signedCallback(engine.app, { order_code: renewal.code, status: 'chargeback' });
      expect(disputed.status, disputed.text).to.equal(200);
      expect(await api.subscription(tenant.panel_token, id)).to.include({ cancel_reason: 'requested' });
      await lifeReaches(id, 6, 'the renewal chargeback');
      expect(eventOf(id, 'subscription.canceled')).to.have.length(1);
      expect(eventOf(id, 'order.chargeback')[0]?.data.order?.code).to.equal(renewal.code);

      const offer = activeOffer(tenant);
      const link = await createLink(engine.app, tenant.keys.live, { offer_code: offer.code });
      const { order: pending } = await checkout(engine.app, tenant, offer.code, link.id, {
        payment_method: 'pix',
      });
      expect(
        (await signedCallback(engine.app, { order_code: pending.code, status: 'chargeback' })).status,
      ).to.equal(409);
    });

    it('simulate renewal outcomes only on a paid test plan link whose subscription runs: 409 on any other link', async () => {
      const api = client(engine);
      const tenant = await tenantWithReceiver(engine);
      const offer = activeOffer(tenant);
      const plan = activePlan(tenant);
      const activePlanLink = await createLink(engine.app, tenant.keys.test, { plan_code: plan.code });
      const offerLink = await createLink(engine.app, tenant.keys.test, { offer_code: offer.code });
      const paidOfferLink = await createLink(engine.app, tenant.keys.test, { offer_code: offer.code });
      expect((await api.simulate(tenant, paidOfferLink.id, 'paid')).status).to.equal(200);
      const canceledLink = await createLink(engine.app, tenant.keys.test, { plan_code: plan.code });
      expect(
        (
          await engine.app.http.post(`/v1/payment-links/${canceledLink.id}/cancel`, {
            auth: tenant.keys.test,
          })
        ).status,
      ).to.equal(200);
      for (const link of [activePlanLink, offerLink, paidOfferLink, canceledLink]) {
        for (const outcome of ['renewal_paid', 'renewal_failed']) {
          expectError(await api.simulate(tenant, link.id, outcome), 409, 'conflict');
        }
      }
      // The active plan link still takes its own outcomes; a live key is refused whatever the outcome.
      expect((await api.simulate(tenant, activePlanLink.id, 'failed')).status).to.equal(200);
      expectError(
        await engine.app.http.post(`/v1/payment-links/${activePlanLink.id}/simulate`, {
          auth: tenant.keys.live,
          body: { outcome: 'renewal_paid' },
        }),
        403,
        'permission_error',
      );
      expectError(
        await api.simulate(tenant, activePlanLink.id, 'renewal_later'),
        400,
        'validation_error',
        'outcome',
      );
      // Nothing of this started or charged a subscription.
      const subs = await engine.app.http.get<List<PanelSubscription>>(`${P}/subscriptions`, {
        auth: tenant.panel_token,
      });
      expect(subs.body.data).to.deep.equal([]);
    });
  });
});
