import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { jobIds } from '../../queues/index.js';
import type { SeedResult } from '../../src/cli/seed.js';
import { runRenewal, sweepRenewals } from '../../src/orders/renewals.js';
import { seed, startTestApp } from '../helpers/app.js';
import { activePlan, createLink } from '../checkout/helpers.js';
import { createIntegration, engineAndReceiver, eventually } from '../events/helpers.js';
import { expectError } from '../panel/helpers.js';
import { checkout, P, panelRoles, type List, type PanelOrder, type PanelSubscription } from './helpers.js';

const SECRET = 'subscriptions-panel-secret';
const FAR_FUTURE = new Date('2200-01-01T00:00:00Z');

interface Delivered {
  id: string;
  type: string;
  data: {
    order: { code: string; status: string };
    subscription: { id: number; current_period_end: string } | null;
    purchase: { tracking: { external_reference: string | null }; payment_link: unknown };
  };
}

describe('Panel: subscriptions (list, get, cancel, renew now)', function () {
  this.timeout(30_000);

  const { engine, receiver } = engineAndReceiver();

  /** A tenant whose plan was bought through a live link with a card: one active subscription. */
  async function subscribed(
    tenant?: SeedResult,
  ): Promise<{ tenant: SeedResult; subscription: PanelSubscription; first: PanelOrder }> {
    const t = tenant ?? (await seed());
    if (!tenant)
      await createIntegration(engine.app, t, {
        url: receiver.url,
        secret: SECRET,
        events: ['order.paid'],
        sendToAllProducts: true,
      });
    const plan = activePlan(t);
    const link = await createLink(engine.app, t.keys.live, {
      plan_code: plan.code,
      external_reference: 'sub-panel',
    });
    const { order } = await checkout(engine.app, t, plan.code, link.id);
    const res = await engine.app.http.get<PanelSubscription>(`${P}/subscriptions/${order.subscription_id}`, {
      auth: t.panel_token,
    });
    expect(res.status).to.equal(200);
    return { tenant: t, subscription: res.body, first: order };
  }

  const renewalsOf = (subscriptionId: number): Delivered[] =>
    receiver.requests
      .map(
        (r) =>
          new Webhook(Buffer.from(SECRET).toString('base64')).verify(
            r.body,
            r.headers as Record<string, string>,
          ) as Delivered,
      )
      .filter((e) => e.data.subscription?.id === subscriptionId && e.data.purchase.payment_link === null);

  it('lists and shows subscriptions to owners, members and read-only keys, newest first, with a cursor', async () => {
    const { tenant, subscription } = await subscribed();
    const second = (await subscribed(tenant)).subscription;
    const roles = await panelRoles(engine.app, tenant);
    const plan = activePlan(tenant);
    expect(subscription).to.deep.include({
      object: 'subscription',
      status: 'active',
      livemode: true,
      plan_code: plan.code,
      billing_cycle: 'monthly',
      canceled_at: null,
    });
    // The first period ends one billing cycle after it started.
    const start = new Date(subscription.created_at);
    const end = new Date(start);
    end.setUTCMonth(end.getUTCMonth() + 1);
    expect(Math.abs(Date.parse(subscription.current_period_end) - end.getTime())).to.be.below(2 * 86_400_000);

    for (const auth of Object.values(roles)) {
      const list = await engine.app.http.get<List<PanelSubscription>>(`${P}/subscriptions`, { auth });
      expect(list.status).to.equal(200);
      expect(list.body).to.deep.equal({ object: 'list', data: [second, subscription], has_more: false });
      const one = await engine.app.http.get<PanelSubscription>(`${P}/subscriptions/${subscription.id}`, {
        auth,
      });
      expect(one.body).to.deep.equal(subscription);
    }
    const page = await engine.app.http.get<List<PanelSubscription>>(`${P}/subscriptions?limit=1`, {
      auth: roles.owner,
    });
    expect(page.body).to.deep.include({ has_more: true });
    expect(page.body.data.map((s) => s.id)).to.deep.equal([second.id]);
    const next = await engine.app.http.get<List<PanelSubscription>>(
      `${P}/subscriptions?limit=1&starting_after=${second.id}`,
      { auth: roles.owner },
    );
    expect(next.body).to.deep.equal({ object: 'list', data: [subscription], has_more: false });
    const filtered = await engine.app.http.get<List<PanelSubscription>>(
      `${P}/subscriptions?status=canceled&livemode=true`,
      {
        auth: roles.owner,
      },
    );
    expect(filtered.body.data).to.deep.equal([]);

    // Another company's subscription does not exist here, and is no cursor.
    const other = await subscribed();
    expectError(
      await engine.app.http.get(`${P}/subscriptions/${other.subscription.id}`, { auth: roles.member }),
      404,
      'not_found',
    );
    for (const path of ['cancel', 'renew']) {
      expectError(
        await engine.app.http.post(`${P}/subscriptions/${other.subscription.id}/${path}`, {
          auth: roles.owner,
        }),
        404,
        'not_found',
      );
    }
    expect(
      (await engine.app.http.get<List<PanelSubscription>>(`${P}/subscriptions`, { auth: roles.owner })).body
        .data,
    ).to.have.length(2);
    for (const [query, field] of [
      [`?starting_after=${other.subscription.id}`, 'starting_after'],
      ['?starting_after=0', 'starting_after'],
      ['?limit=101', 'limit'],
      ['?status=paused', 'status'],
    ] as const) {
      expectError(
        await engine.app.http.get(`${P}/subscriptions${query}`, { auth: roles.owner }),
        400,
        'validation_error',
        field,
      );
    }
    expectError(
      await engine.app.http.get(`${P}/subscriptions/abc`, { auth: roles.owner }),
      400,
      'validation_error',
      'id',
    );
  });

  it('renews now, exactly as the delayed job would: a paid order for the subscription and its order.paid', async () => {
    const { tenant, subscription, first } = await subscribed();
    const roles = await panelRoles(engine.app, tenant);
    expectError(
      await engine.app.http.post(`${P}/subscriptions/${subscription.id}/renew`, { auth: roles.readOnly }),
      403,
      'permission_error',
    );
    const renewed = await engine.app.http.post<PanelSubscription>(
      `${P}/subscriptions/${subscription.id}/renew`,
      {
        auth: roles.member,
      },
    );
    expect(renewed.status, renewed.text).to.equal(200);
    expect(renewed.body).to.deep.include({ id: subscription.id, status: 'active' });
    expect(Date.parse(renewed.body.current_period_end)).to.be.greaterThan(
      Date.parse(subscription.current_period_end),
    );

    const orders = await engine.app.http.get<List<PanelOrder>>(`${P}/orders`, { auth: roles.owner });
    const renewal = orders.body.data[0];
    expect(renewal).to.include({
      status: 'paid',
      subscription_id: subscription.id,
      link_id: null,
      amount: activePlan(tenant).price,
      payment_method: 'credit_card',
    });
    expect(renewal?.code).not.to.equal(first.code);
    const event = await eventually(async () => renewalsOf(subscription.id)[0], 10_000, 'renewal order.paid');
    expect(event).to.deep.include({ type: 'order.paid' });
    expect(event.data.order.code).to.equal(renewal?.code);
    expect(event.data.purchase.tracking.external_reference).to.equal(null);
    expect(event.data.subscription?.current_period_end).to.equal(renewed.body.current_period_end);

    // The delayed job of that period, when it comes, finds it renewed; the next period's job is waiting.
    expect(
      await runRenewal(
        engine.app.ctx,
        { subscriptionId: subscription.id, period: 2, attempt: 0 },
        FAR_FUTURE,
      ),
    ).to.equal(undefined);
    const queue = engine.workers.producers.queue('renewals');
    expect(await (await queue.getJob(jobIds.renewals(subscription.id, 3)))?.getState()).to.equal('delayed');

    // A refunded period still counts: renewing again moves into period 3, not back to 2.
    const refund = await engine.app.http.post(`${P}/orders/${renewal?.code}/refund`, { auth: roles.owner });
    expect(refund.status).to.equal(200);
    const again = await engine.app.http.post<PanelSubscription>(
      `${P}/subscriptions/${subscription.id}/renew`,
      {
        auth: roles.owner,
      },
    );
    expect(again.status).to.equal(200);
    expect(Date.parse(again.body.current_period_end)).to.be.greaterThan(
      Date.parse(renewed.body.current_period_end),
    );
    await eventually(
      async () => (renewalsOf(subscription.id).length === 2 ? true : undefined),
      10_000,
      'second renewal',
    );
  });

  it('cancels: canceled with canceled_at, again unchanged, and no renewal ever again (job, sweep, renew now)', async () => {
    const { tenant, subscription } = await subscribed();
    const roles = await panelRoles(engine.app, tenant);
    expectError(
      await engine.app.http.post(`${P}/subscriptions/${subscription.id}/cancel`, { auth: roles.readOnly }),
      403,
      'permission_error',
    );
    const canceled = await engine.app.http.post<PanelSubscription>(
      `${P}/subscriptions/${subscription.id}/cancel`,
      {
        auth: roles.member,
      },
    );
    expect(canceled.status).to.equal(200);
    expect(canceled.body).to.deep.include({ id: subscription.id, status: 'canceled' });
    expect(Date.parse(canceled.body.canceled_at ?? '')).to.be.at.least(Date.parse(subscription.created_at));
    const again = await engine.app.http.post<PanelSubscription>(
      `${P}/subscriptions/${subscription.id}/cancel`,
      {
        auth: roles.owner,
      },
    );
    expect(again.status).to.equal(200);
    expect(again.body).to.deep.equal(canceled.body);

    expectError(
      await engine.app.http.post(`${P}/subscriptions/${subscription.id}/renew`, { auth: roles.owner }),
      409,
      'conflict',
    );
    // Its renewal job, run when due, does nothing; nor does the sweep, even long past the period end.
    expect(
      await runRenewal(
        engine.app.ctx,
        { subscriptionId: subscription.id, period: 2, attempt: 0 },
        FAR_FUTURE,
      ),
    ).to.equal(undefined);
    await engine.app.ctx.pool.query(
      `UPDATE subscriptions SET current_period_end = now() - interval '1 day' WHERE id = $1`,
      [subscription.id],
    );
    await sweepRenewals(engine.app.ctx, 0);
    const { rows } = await engine.app.ctx.pool.query(`SELECT 1 FROM orders WHERE subscription_id = $1`, [
      subscription.id,
    ]);
    expect(rows).to.have.length(1);
    expect(renewalsOf(subscription.id)).to.have.length(0);
  });

  it('serves renew only while DEV_GATEWAY is on: 404, and absent from the document, otherwise', async () => {
    const app = await startTestApp({ DEV_GATEWAY: 'false' });
    try {
      const tenant = await seed();
      const res = await app.http.post(`${P}/subscriptions/1/renew`, {
        auth: tenant.panel_token,
        unvalidated: true,
      });
      expect(res.status).to.equal(404);
      const doc = await app.http.get<{ paths: Record<string, unknown> }>(`${P}/openapi.json`);
      expect(doc.body.paths).to.have.property('/subscriptions/{id}/cancel');
      expect(doc.body.paths).not.to.have.property('/subscriptions/{id}/renew');
      const on = await engine.app.http.get<{ paths: Record<string, unknown> }>(`${P}/openapi.json`);
      expect(on.body.paths).to.have.property('/subscriptions/{id}/renew');
    } finally {
      await app.close();
    }
  });
});
