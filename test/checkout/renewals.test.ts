import type { Queue } from 'bullmq';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { jobIds } from '../../queues/index.js';
import { runNextChargeNow, runRenewal, sweepRenewals } from '../../src/orders/renewals.js';
import { requestCancel } from '../../src/orders/subscription-periods.js';
import { seed } from '../helpers/app.js';
import { createIntegration, engineAndReceiver, eventually } from '../events/helpers.js';
import { activePlan, createLink, payPath, postForm, type Envelope, type WireLink } from './helpers.js';
import { NO_CAMPAIGN } from '../tracking/helpers.js';

const SECRET = 'renewal-test-secret';

describe('Subscriptions: a paid plan link starts one, renewals emit order.paid', function () {
  const { engine, receiver } = engineAndReceiver();

  const delivered = (predicate: (e: Envelope) => boolean): Envelope[] =>
    receiver.requests
      .map(
        (r) =>
          new Webhook(Buffer.from(SECRET).toString('base64')).verify(
            r.body,
            r.headers as Record<string, string>,
          ) as Envelope,
      )
      .filter(predicate);

  it('renews the same subscription at the plan price with null external_reference and payment_link, once per period', async () => {
    const tenant = await seed();
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      secret: SECRET,
      events: ['order.paid'],
      sendToAllProducts: true,
    });
    const plan = activePlan(tenant);
    const link = await createLink(engine.app, tenant.keys.live, {
      plan_code: plan.code,
      external_reference: 'sub-ref-7',
      coupon_code: tenant.coupons[0]?.code,
    });

    // The dev gateway completes the payment during the pay step.
    const paidPage = await postForm(engine.app, payPath(engine.app, `/${plan.code}/pay`), {
      plink: link.id,
      name: 'Rita Renewal',
      email: 'rita@example.com',
      payment_method: 'credit_card',
    });
    expect(paidPage.status).to.equal(200);
    expect(paidPage.body).to.include('id="order-status" data-status="paid"');
    const read = await engine.app.http.get<WireLink>(`/v1/payment-links/${link.id}`, {
      auth: tenant.keys.live,
    });
    expect(read.body.status).to.equal('paid');
    expect(read.body.order).to.include({ status: 'paid', amount: '26.91' });

    const { rows } = await engine.app.ctx.pool.query<{
      id: string;
      period_ok: boolean;
      payment_link_id: string;
    }>(
      `SELECT s.id, s.current_period_end = s.created_at + interval '1 month' AS period_ok, s.payment_link_id
         FROM subscriptions s JOIN orders o ON o.subscription_id = s.id WHERE o.code = $1`,
      [read.body.order?.code],
    );
    const sub = rows[0];
    if (!sub) throw new Error('no subscription for the paid plan order');
    const subscriptionId = Number(sub.id);
    expect(sub).to.include({ period_ok: true, payment_link_id: link.id });

    const first = await eventually(
      async () => delivered((e) => e.data.order?.code === read.body.order?.code)[0],
      10_000,
      'first order.paid',
    );
    expect(first.data.subscription).to.include({ id: subscriptionId, status: 'active' });
    expect(first.data.purchase.tracking.external_reference).to.equal('sub-ref-7');
    const periodEnd = new Date(first.data.subscription?.current_period_end ?? '');

    const queue = engine.workers.producers.queue('renewals');
    const job = await queue.getJob(jobIds.renewals(subscriptionId, 2));
    expect(await job?.getState()).to.equal('delayed');
    expect(job?.data).to.deep.equal({ subscriptionId, period: 2 });

    // Not due yet: nothing happens.
    const charge = { subscriptionId, period: 2, attempt: 0 };
    expect(await runRenewal(engine.app.ctx, charge)).to.equal(undefined);

    const due = new Date(periodEnd.getTime() + 1000);
    const renewed = await runRenewal(engine.app.ctx, charge, due);
    expect(renewed?.events.map((e) => e.type)).to.deep.equal(['order.paid', 'subscription.renewed']);
    const eventId = renewed?.events[0]?.id;
    expect(await runRenewal(engine.app.ctx, charge, due)).to.equal(undefined);

    const renewal = await eventually(
      async () => delivered((e) => e.id === eventId)[0],
      10_000,
      'renewal order.paid',
    );
    expect(renewal).to.include({ type: 'order.paid', livemode: true, test: false });
    expect(renewal.data.purchase).to.deep.equal({
      tracking: { external_reference: null, ...NO_CAMPAIGN },
      payment_link: null,
    });
    expect(renewal.data.order).to.include({
      status: 'paid',
      amount: plan.price,
      payment_method: 'credit_card',
    });
    expect(renewal.data.order?.code).not.to.equal(read.body.order?.code);
    expect(renewal.data.subscription).to.include({ id: subscriptionId, status: 'active' });
    expect(new Date(renewal.data.subscription?.current_period_end ?? '').getTime()).to.be.greaterThan(
      periodEnd.getTime(),
    );
    expect(renewal.data.customer).to.include({ name: 'Rita Renewal', email: 'rita@example.com' });
    expect(renewal.data.plan).to.include({ code: plan.code });

    const orders = await engine.app.ctx.pool.query(`SELECT 1 FROM orders WHERE subscription_id = $1`, [
      subscriptionId,
    ]);
    expect(orders.rowCount).to.equal(2);
    const next = await eventually(
      () => queue.getJob(jobIds.renewals(subscriptionId, 3)),
      10_000,
      'the next renewal’s delayed job',
    );
    expect(await next.getState()).to.equal('delayed');
    // The link still shows the order paid through it, not the renewal.
    const after = await engine.app.http.get<WireLink>(`/v1/payment-links/${link.id}`, {
      auth: tenant.keys.live,
    });
    expect(after.body.order?.code).to.equal(read.body.order?.code);
  });

  it('renews, through the sweep, a due subscription whose renewal job was lost', async () => {
    const tenant = await seed();
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      secret: SECRET,
      events: ['order.paid'],
      sendToAllProducts: true,
    });
    const plan = activePlan(tenant);
    const link = await createLink(engine.app, tenant.keys.live, { plan_code: plan.code });
    const paid = await postForm(engine.app, payPath(engine.app, `/${plan.code}/pay`), {
      plink: link.id,
      name: 'Lost Job',
      email: 'lost@example.com',
    });
    expect(paid.status).to.equal(200);
    const { rows } = await engine.app.ctx.pool.query<{ id: string }>(
      `SELECT s.id FROM subscriptions s WHERE s.payment_link_id = $1`,
      [link.id],
    );
    const subscriptionId = Number(rows[0]?.id);
    // As if the subscription had started a month ago and its renewal job had been lost with Redis.
    await (
      await engine.workers.producers.queue('renewals').getJob(jobIds.renewals(subscriptionId, 2))
    )?.remove();
    await engine.app.ctx.pool.query(
      `UPDATE subscriptions SET created_at = created_at - interval '1 month 5 minutes',
              current_period_end = created_at - interval '1 month 5 minutes' + interval '1 month' WHERE id = $1`,
      [subscriptionId],
    );

    expect(await sweepRenewals(engine.app.ctx, 0)).to.be.at.least(1);
    expect(await sweepRenewals(engine.app.ctx, 0)).to.equal(0);

    const orders = await engine.app.ctx.pool.query<{ payment_link_id: string | null }>(
      `SELECT payment_link_id FROM orders WHERE subscription_id = $1 ORDER BY id`,
      [subscriptionId],
    );
    expect(orders.rows.map((r) => r.payment_link_id)).to.deep.equal([link.id, null]);
    await eventually(
      async () =>
        delivered(
          (e) => e.data.subscription?.id === subscriptionId && e.data.purchase.payment_link === null,
        )[0],
      10_000,
      'swept renewal order.paid',
    );
    expect(
      await (
        await engine.workers.producers.queue('renewals').getJob(jobIds.renewals(subscriptionId, 3))
      )?.getState(),
    ).to.equal('delayed');
  });

  it('the delayed renewal job, once due and run by the worker, renews the subscription', async () => {
    const tenant = await seed();
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      secret: SECRET,
      events: ['order.paid'],
      sendToAllProducts: true,
    });
    const plan = activePlan(tenant);
    const link = await createLink(engine.app, tenant.keys.live, { plan_code: plan.code });
    const paid = await postForm(engine.app, payPath(engine.app, `/${plan.code}/pay`), {
      plink: link.id,
      name: 'Job Runner',
      email: 'job@example.com',
    });
    expect(paid.status).to.equal(200);
    const { rows } = await engine.app.ctx.pool.query<{ id: string }>(
      `SELECT id FROM subscriptions WHERE payment_link_id = $1`,
      [link.id],
    );
    const subscriptionId = Number(rows[0]?.id);
    await engine.app.ctx.pool.query(
      `UPDATE subscriptions SET created_at = created_at - interval '1 month 5 minutes',
              current_period_end = created_at - interval '1 month 5 minutes' + interval '1 month' WHERE id = $1`,
      [subscriptionId],
    );

    // Added after the purchase commits, not awaited by the request (src/orders/subscription-periods.ts).
    const job = await eventually(
      () => engine.workers.producers.queue('renewals').getJob(jobIds.renewals(subscriptionId, 2)),
      10_000,
      'the renewal job scheduled',
    );
    await job.promote();

    const renewal = await eventually(
      async () =>
        delivered(
          (e) => e.data.subscription?.id === subscriptionId && e.data.purchase.payment_link === null,
        )[0],
      10_000,
      'renewal order.paid from the job',
    );
    expect(renewal.data.purchase.tracking.external_reference).to.equal(null);
    expect(renewal.data.customer).to.include({ name: 'Job Runner' });
  });

  /** A live plan bought by card through the checkout (the dev gateway pays it): its subscription id. */
  async function subscribedLive(name: string): Promise<number> {
    const tenant = await seed();
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      secret: SECRET,
      events: ['order.paid', 'subscription.renewed', 'subscription.canceled'],
      sendToAllProducts: true,
    });
    const plan = activePlan(tenant);
    const link = await createLink(engine.app, tenant.keys.live, { plan_code: plan.code });
    const paid = await postForm(engine.app, payPath(engine.app, `/${plan.code}/pay`), {
      plink: link.id,
      name,
      email: `${name.replace(/\W/g, '').toLowerCase()}@example.com`,
    });
    expect(paid.status).to.equal(200);
    const { rows } = await engine.app.ctx.pool.query<{ id: string }>(
      `SELECT id FROM subscriptions WHERE payment_link_id = $1`,
      [link.id],
    );
    return Number(rows[0]?.id);
  }

  const subscriptionRow = async (id: number) =>
    (
      await engine.app.ctx.pool.query<{
        status: string;
        cancel_reason: string | null;
        current_period: number;
      }>(`SELECT status, cancel_reason, current_period FROM subscriptions WHERE id = $1`, [id])
    ).rows[0];

  it("schedules a failed renewal's retry as a delayed job, and the sweep runs a retry whose job was lost, once", async () => {
    const subscriptionId = await subscribedLive('Sam Sweep');
    const failed = await runNextChargeNow(engine.app.ctx, subscriptionId, 'failed', { publish: true });
    expect(failed.subscription).to.include({ status: 'past_due', failedCharges: 1 });
    const queue = engine.workers.producers.queue('renewals');
    // Added after the commit on the service's own connection, not this one: looked for until there.
    const retry = await eventually(
      () => queue.getJob(jobIds.renewalRetries(subscriptionId, 2, 1)),
      10_000,
      'the retry’s delayed job',
    );
    expect(await retry.getState()).to.equal('delayed');
    expect(retry.data).to.deep.equal({ subscriptionId, period: 2, attempt: 1 });
    // RENEWAL_RETRY_SCHEDULE's first delay (a day by default) after the failure.
    const due = failed.subscription.nextRetryAt?.getTime() ?? 0;
    expect(due - Date.now()).to.be.within(86_400_000 - 60_000, 86_400_000);

    // As if the retry had been due five minutes ago and its job had been lost with Redis.
    await retry.remove();
    await engine.app.ctx.pool.query(
      `UPDATE subscriptions SET next_retry_at = now() - interval '5 minutes' WHERE id = $1`,
      [subscriptionId],
    );
    expect(await sweepRenewals(engine.app.ctx, 0)).to.be.at.least(1);
    expect(await sweepRenewals(engine.app.ctx, 0)).to.equal(0);
    expect(await subscriptionRow(subscriptionId)).to.deep.equal({
      status: 'active',
      cancel_reason: null,
      current_period: 2,
    });
    const orders = await engine.app.ctx.pool.query<{ status: string }>(
      `SELECT status FROM orders WHERE subscription_id = $1 ORDER BY id`,
      [subscriptionId],
    );
    expect(orders.rows.map((r) => r.status)).to.deep.equal(['paid', 'failed', 'paid']);
    // The recovered subscription's next renewal is waiting.
    const next = await eventually(
      () => queue.getJob(jobIds.renewals(subscriptionId, 3)),
      10_000,
      'the next renewal’s delayed job',
    );
    expect(await next.getState()).to.equal('delayed');
  });

  it('the renewal job of a subscription set to cancel at its period end cancels it there, charging nothing', async () => {
    const subscriptionId = await subscribedLive('Pat Period');
    const tenantOf = await engine.app.ctx.pool.query<{ company_id: string }>(
      `SELECT company_id FROM subscriptions WHERE id = $1`,
      [subscriptionId],
    );
    await requestCancel(engine.app.ctx, Number(tenantOf.rows[0]?.company_id), subscriptionId, true);
    const charge = { subscriptionId, period: 2, attempt: 0 };
    // Before the period end nothing happens; at it, the job cancels.
    expect(await runRenewal(engine.app.ctx, charge)).to.equal(undefined);
    expect((await subscriptionRow(subscriptionId))?.status).to.equal('active');
    const ended = await runRenewal(engine.app.ctx, charge, new Date('2200-01-01T00:00:00Z'));
    expect(ended?.events.map((e) => e.type)).to.deep.equal(['subscription.canceled']);
    expect(await subscriptionRow(subscriptionId)).to.deep.equal({
      status: 'canceled',
      cancel_reason: 'requested',
      current_period: 1,
    });
    const orders = await engine.app.ctx.pool.query(`SELECT 1 FROM orders WHERE subscription_id = $1`, [
      subscriptionId,
    ]);
    expect(orders.rowCount).to.equal(1);
    await eventually(
      async () =>
        delivered((e) => e.type === 'subscription.canceled' && e.data.subscription?.id === subscriptionId)[0],
      10_000,
      'subscription.canceled at the period end',
    );
  });

  it('fails a poisoned renewals job for good, without retrying it, and keeps running the others', async () => {
    // Untyped, as a stray producer (an old release, a person in Bull Board) would add them.
    const queue: Queue = engine.workers.producers.queue('renewals');
    const poisoned = [
      { subscriptionId: 'x', period: 2 },
      { subscriptionId: 1, period: 2, attempt: 0 },
      { subscriptionId: 1, period: 1 },
    ];
    const jobs = await Promise.all(
      poisoned.map((data, i) =>
        queue.add('renewals', data, {
          jobId: `poisoned-${Date.now()}-${i}`,
        }),
      ),
    );
    for (const job of jobs) {
      const state = await eventually(async () => {
        const s = await job.getState();
        return s === 'failed' ? s : undefined;
      });
      expect(state).to.equal('failed');
      const failed = await queue.getJob(job.id ?? '');
      expect(failed?.failedReason).to.match(/invalid renewals payload/);
      expect(failed?.attemptsMade).to.equal(1);
    }
    // A good job after them still runs.
    const good = await queue.add(
      'renewals',
      { subscriptionId: 2 ** 40, period: 2 },
      { jobId: `good-${Date.now()}` },
    );
    expect(
      await eventually(async () => ((await good.getState()) === 'completed' ? true : undefined)),
    ).to.equal(true);
  });
});
