import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { jobIds } from '../../queues/index.js';
import type { SeedResult } from '../../src/cli/seed.js';
import { signGatewayBody } from '../../src/gateways/gateway-signature.js';
import { abandonDueOrder } from '../../src/orders/abandonment.js';
import { rememberLead } from '../../src/orders/repository.js';
import { sweepOnce } from '../../src/sweeps/sweep.js';
import { seed } from '../helpers/app.js';
import {
  activeOffer,
  activePlan,
  createLink,
  payPath,
  postForm,
  signedCallback,
  type WireLink,
} from '../checkout/helpers.js';
import { createIntegration, engineAndReceiver, eventually } from '../events/helpers.js';
import { checkout, deadlineOf, P, type PanelOrder } from './helpers.js';

const SECRET = `whsec_${Buffer.from('order-lifecycle-secret-0123456!').toString('base64')}`;

interface Delivered {
  id: string;
  type: string;
  data: {
    order: { code: string; status: string; payment_method: string | null; paid_at: string | null } | null;
    lead?: Record<string, string | null>;
    product: { id: number };
    purchase: { payment_link: { code: string } | null };
  };
}

describe('Order lifecycle: dev gateway, gateway callback statuses, abandonment, leads', function () {
  this.timeout(30_000);

  // A long deadline, so nothing is abandoned unless a test makes it due; and no periodic sweep, so
  // the abandonment job and the sweep are each tested on their own.
  const { engine, receiver } = engineAndReceiver({
    ORDER_ABANDON_AFTER_SECONDS: '600',
    OUTBOX_SWEEP_MS: '600000',
  });

  async function tenantWithHook(
    events = [
      'order.created',
      'order.paid',
      'order.failed',
      'order.refunded',
      'order.abandoned',
      'lead.created',
    ],
  ): Promise<SeedResult> {
    const tenant = await seed();
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      secret: SECRET,
      events,
      sendToAllProducts: true,
    });
    return tenant;
  }

  const delivered = (): Delivered[] =>
    receiver.requests.map(
      (r) => new Webhook(SECRET).verify(r.body, r.headers as Record<string, string>) as Delivered,
    );
  const deliveredFor = (type: string, orderCode: string) =>
    eventually(
      async () => delivered().find((e) => e.type === type && e.data.order?.code === orderCode),
      10_000,
      type,
    );

  const eventCount = async (type: string, orderCode: string): Promise<number> =>
    Number(
      (
        await engine.app.ctx.pool.query<{ n: string }>(
          `SELECT count(*) AS n FROM events WHERE type = $1 AND payload->'data'->'order'->>'code' = $2`,
          [type, orderCode],
        )
      ).rows[0]?.n,
    );

  const orderOf = async (tenant: SeedResult, code: string): Promise<PanelOrder> =>
    (await engine.app.http.get<PanelOrder>(`${P}/orders/${code}`, { auth: tenant.panel_token })).body;

  const linkStatus = async (tenant: SeedResult, id: string): Promise<string> =>
    (await engine.app.http.get<WireLink>(`/v1/payment-links/${id}`, { auth: tenant.keys.live })).body.status;

  describe('dev gateway', () => {
    it('confirms a card at once and leaves pix and boleto pending until the gateway calls back', async () => {
      const tenant = await tenantWithHook();
      const offer = activeOffer(tenant);
      const card = await createLink(engine.app, tenant.keys.live, { offer_code: offer.code });
      const paid = await checkout(engine.app, tenant, offer.code, card.id, { payment_method: 'credit_card' });
      expect(paid.page.status).to.equal(200);
      expect(paid.order).to.include({ status: 'paid', payment_method: 'credit_card' });
      expect(await linkStatus(tenant, card.id)).to.equal('paid');
      // A card order is confirmed during the pay step: no abandonment check is left behind for it.
      expect(
        await engine.workers.producers
          .queue('orderAbandonment')
          .getJob(jobIds.orderAbandonment(paid.order.code)),
      ).to.equal(undefined);

      for (const method of ['pix', 'boleto'] as const) {
        const link = await createLink(engine.app, tenant.keys.live, { offer_code: offer.code });
        const pending = await checkout(engine.app, tenant, offer.code, link.id, { payment_method: method });
        expect(pending.page.status).to.equal(200);
        expect(pending.page.body).to.include('id="order-status" data-status="pending"');
        expect(pending.order).to.include({ status: 'pending', payment_method: method, paid_at: null });
        expect(await linkStatus(tenant, link.id)).to.equal('active');
        const job = await engine.workers.producers
          .queue('orderAbandonment')
          .getJob(jobIds.orderAbandonment(pending.order.code));
        expect(await job?.getState()).to.equal('delayed');
        expect(job?.data).to.deep.equal({ orderCode: pending.order.code });
        // The check is due at the order's own deadline: the Pix expiry, or three days after the
        // boleto's due date (not ORDER_ABANDON_AFTER_SECONDS, which is for cards).
        const deadline = deadlineOf(pending.order);
        expect((job?.timestamp ?? 0) + (job?.opts.delay ?? 0)).to.be.closeTo(deadline.getTime(), 2000);

        const confirmed = await signedCallback(engine.app, {
          order_code: pending.order.code,
          status: 'paid',
          payment_method: method,
        });
        expect(confirmed.status, confirmed.text).to.equal(200);
        expect(await linkStatus(tenant, link.id)).to.equal('paid');
        await deliveredFor('order.paid', pending.order.code);
      }
    });
  });

  describe('gateway callback statuses', () => {
    it('failed: pending → failed with order.failed (the link stays active); replays; refuses other statuses with 409', async () => {
      const tenant = await tenantWithHook();
      const offer = activeOffer(tenant);
      const link = await createLink(engine.app, tenant.keys.live, { offer_code: offer.code });
      const { order } = await checkout(engine.app, tenant, offer.code, link.id, { payment_method: 'pix' });

      const res = await signedCallback(engine.app, { order_code: order.code, status: 'failed' });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.include({ received: true, replayed: false });
      expect(res.body).to.have.nested.property('order.status', 'failed');
      const event = await deliveredFor('order.failed', order.code);
      expect(event.data.order).to.include({ status: 'failed', payment_method: 'pix', paid_at: null });
      expect(event.data.purchase.payment_link?.code).to.equal(link.id);
      expect(await linkStatus(tenant, link.id)).to.equal('active');

      const replay = await signedCallback(engine.app, { order_code: order.code, status: 'failed' });
      expect(replay.status).to.equal(200);
      expect(replay.body).to.deep.include({ replayed: true });
      expect(await eventCount('order.failed', order.code)).to.equal(1);

      // A failed order cannot be refunded, nor paid by a later report.
      for (const status of ['refunded', 'paid']) {
        const refused = await signedCallback(engine.app, {
          order_code: order.code,
          status,
          payment_method: 'pix',
        });
        expect(refused.status, status).to.equal(409);
        expect(refused.body).to.have.nested.property('error.type', 'conflict');
      }
      expect((await orderOf(tenant, order.code)).status).to.equal('failed');

      // The link stays payable: the buyer tries again with a card.
      const again = await checkout(engine.app, tenant, offer.code, link.id, {
        payment_method: 'credit_card',
      });
      expect(again.order.status).to.equal('paid');
      // A paid order cannot fail.
      expect(
        (await signedCallback(engine.app, { order_code: again.order.code, status: 'failed' })).status,
      ).to.equal(409);
    });

    it('refunded: paid → refunded with order.refunded (the link keeps its status); replays; pending is a 409', async () => {
      const tenant = await tenantWithHook();
      const offer = activeOffer(tenant);
      const link = await createLink(engine.app, tenant.keys.live, {
        offer_code: offer.code,
        external_reference: 'refund-me',
      });
      const { order } = await checkout(engine.app, tenant, offer.code, link.id);
      expect(order.status).to.equal('paid');

      const res = await signedCallback(engine.app, { order_code: order.code, status: 'refunded' });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.include({ replayed: false });
      const event = await deliveredFor('order.refunded', order.code);
      expect(event.data.order).to.include({
        status: 'refunded',
        payment_method: 'credit_card',
        paid_at: order.paid_at,
      });
      const read = await orderOf(tenant, order.code);
      expect(read.status).to.equal('refunded');
      expect(Date.parse(read.refunded_at ?? '')).to.be.at.least(Date.parse(order.paid_at ?? ''));
      expect(await linkStatus(tenant, link.id)).to.equal('paid');
      // The link shows its order as it is now.
      const linkRead = await engine.app.http.get<WireLink>(`/v1/payment-links/${link.id}`, {
        auth: tenant.keys.live,
      });
      expect(linkRead.body.order).to.include({ code: order.code, status: 'refunded' });

      const replay = await signedCallback(engine.app, { order_code: order.code, status: 'refunded' });
      expect(replay.body).to.deep.include({ replayed: true });
      expect(await eventCount('order.refunded', order.code)).to.equal(1);
      // A refunded order is not paid again by a late confirmation.
      expect(
        (await signedCallback(engine.app, { order_code: order.code, status: 'paid', payment_method: 'pix' }))
          .status,
      ).to.equal(409);

      const pendingLink = await createLink(engine.app, tenant.keys.live, { offer_code: offer.code });
      const pending = await checkout(engine.app, tenant, offer.code, pendingLink.id, {
        payment_method: 'boleto',
      });
      expect(
        (await signedCallback(engine.app, { order_code: pending.order.code, status: 'refunded' })).status,
      ).to.equal(409);
      expect((await orderOf(tenant, pending.order.code)).status).to.equal('pending');
    });

    it('paid needs payment_method; a failure or a refund does not', async () => {
      const tenant = await tenantWithHook();
      const offer = activeOffer(tenant);
      const link = await createLink(engine.app, tenant.keys.live, { offer_code: offer.code });
      const { order } = await checkout(engine.app, tenant, offer.code, link.id, { payment_method: 'pix' });
      const missing = await signedCallback(engine.app, { order_code: order.code, status: 'paid' });
      expect(missing.status).to.equal(400);
      expect(missing.body).to.have.nested.property('error.fields').that.has.keys('payment_method');
      expect((await orderOf(tenant, order.code)).status).to.equal('pending');
    });

    it('refuses a signature whose timestamp is more than 300 s away, either way, with 401', async () => {
      const tenant = await tenantWithHook();
      const offer = activeOffer(tenant);
      const link = await createLink(engine.app, tenant.keys.live, { offer_code: offer.code });
      const { order } = await checkout(engine.app, tenant, offer.code, link.id, { payment_method: 'pix' });
      const raw = JSON.stringify({ order_code: order.code, status: 'paid', payment_method: 'pix' });
      const secret = engine.app.ctx.config.gatewayWebhookSecret ?? '';
      const send = (t: number) =>
        engine.app.http.post(payPath(engine.app, '/gateway/callback'), {
          rawBody: raw,
          headers: {
            'content-type': 'application/json',
            'x-gateway-signature': signGatewayBody(secret, raw, t),
          },
        });
      // Half a minute past the limit, taken at each send: a loaded machine's slow first request must
      // not bring the second one back within 300 s.
      for (const offset of [-330, 330]) {
        const stale = await send(Math.floor(Date.now() / 1000) + offset);
        expect(stale.status).to.equal(401);
        expect(stale.body).to.deep.equal({
          error: {
            type: 'authentication_error',
            message: 'X-Gateway-Signature timestamp is more than 300 s from now',
          },
        });
      }
      expect((await orderOf(tenant, order.code)).status).to.equal('pending');
      // A captured callback replayed within the window is harmless: the order is paid once.
      const within = Math.floor(Date.now() / 1000) - 200;
      const first = await send(within);
      expect(first.status).to.equal(200);
      expect((await send(within)).body).to.deep.include({ replayed: true });
      expect(await eventCount('order.paid', order.code)).to.equal(1);
    });
  });

  describe('abandonment', () => {
    /** Puts a pending order's checkout `seconds` in the past, as if time had passed. */
    const age = (code: string, seconds: number) =>
      engine.app.ctx.pool.query(
        `UPDATE orders SET created_at = created_at - make_interval(secs => $2),
                abandon_at = abandon_at - make_interval(secs => $2),
                pix_expires_at = pix_expires_at - make_interval(secs => $2)
          WHERE code = $1`,
        [code, seconds],
      );
    /** Seconds to age an order by for its deadline to be a second behind. */
    const pastDeadline = (order: PanelOrder): number =>
      Math.ceil((deadlineOf(order).getTime() - Date.now()) / 1000) + 1;

    it('the job at the deadline abandons a still-pending order with order.abandoned, once; a late payment still pays it', async () => {
      const tenant = await tenantWithHook();
      const offer = activeOffer(tenant);
      const link = await createLink(engine.app, tenant.keys.live, { offer_code: offer.code });
      const { order } = await checkout(engine.app, tenant, offer.code, link.id, { payment_method: 'boleto' });

      // Not yet due: nothing happens, and the check says when it will be (three days after the due date).
      const early = await abandonDueOrder(engine.app.ctx, order.code);
      expect(early).to.deep.equal({ dueAt: deadlineOf(order) });
      const queue = engine.workers.producers.queue('orderAbandonment');
      const job = await queue.getJob(jobIds.orderAbandonment(order.code));
      if (!job?.id) throw new Error('abandonment job not scheduled');
      const jobId = job.id;
      // A job that fires before the deadline waits for it again instead of finishing with nothing done.
      await job.promote();
      await eventually(
        async () => {
          const current = await queue.getJob(jobId);
          return current && current.attemptsStarted > 0 && (await current.getState()) === 'delayed'
            ? current
            : undefined;
        },
        5000,
        'the early abandonment job back among the delayed',
      );
      expect((await orderOf(tenant, order.code)).status).to.equal('pending');
      await age(order.code, pastDeadline(order));
      await job.promote();
      const event = await deliveredFor('order.abandoned', order.code);
      expect(event.data.order).to.include({ status: 'abandoned', paid_at: null });
      expect((await orderOf(tenant, order.code)).status).to.equal('abandoned');
      // The job is idempotent: running it again changes nothing.
      expect(await abandonDueOrder(engine.app.ctx, order.code)).to.equal(undefined);
      expect(await eventCount('order.abandoned', order.code)).to.equal(1);
      // An abandoned order no longer holds the single-use link.
      expect(await linkStatus(tenant, link.id)).to.equal('active');

      const late = await signedCallback(engine.app, {
        order_code: order.code,
        status: 'paid',
        payment_method: 'boleto',
      });
      expect(late.status, late.text).to.equal(200);
      expect(late.body).to.deep.include({ replayed: false });
      expect((await orderOf(tenant, order.code)).status).to.equal('paid');
      expect(await linkStatus(tenant, link.id)).to.equal('paid');
      await deliveredFor('order.paid', order.code);
      // A failure reported after abandonment is a conflict (only a pending order can fail).
      expect(
        (await signedCallback(engine.app, { order_code: order.code, status: 'failed' })).status,
      ).to.equal(409);
    });

    it('the sweep abandons an overdue order whose job was lost, and leaves paid and young orders alone', async () => {
      const tenant = await tenantWithHook();
      const offer = activeOffer(tenant);
      const after = engine.app.ctx.config.orderAbandonAfterSeconds;
      const lost = await checkout(engine.app, tenant, offer.code, null, { payment_method: 'pix' });
      const young = await checkout(engine.app, tenant, offer.code, null, { payment_method: 'pix' });
      const paid = await checkout(engine.app, tenant, offer.code, null, { payment_method: 'credit_card' });
      await (
        await engine.workers.producers
          .queue('orderAbandonment')
          .getJob(jobIds.orderAbandonment(lost.order.code))
      )?.remove();
      await age(lost.order.code, pastDeadline(lost.order) + 5);
      await age(paid.order.code, after + 5);

      const report = await sweepOnce(engine.app.ctx);
      expect(report.orders).to.be.at.least(1);
      expect((await orderOf(tenant, lost.order.code)).status).to.equal('abandoned');
      expect((await orderOf(tenant, young.order.code)).status).to.equal('pending');
      expect((await orderOf(tenant, paid.order.code)).status).to.equal('paid');
      const event = await deliveredFor('order.abandoned', lost.order.code);
      // An order made without a link says so.
      expect(event.data.purchase.payment_link).to.equal(null);
      await sweepOnce(engine.app.ctx);
      expect(await eventCount('order.abandoned', lost.order.code)).to.equal(1);
    });
  });

  describe('lead.created', () => {
    it('is emitted for the first checkout submission of an e-mail in the company, whatever its product filter', async () => {
      const tenant = await seed();
      const plan = activePlan(tenant);
      const otherProduct = tenant.products.find((p) => p.id !== plan.product_id);
      // Linked to a product the buyer does not buy: lead.created ignores the filter, order.created does not.
      await createIntegration(engine.app, tenant, {
        url: receiver.url,
        secret: SECRET,
        events: ['lead.created', 'order.created'],
        productIds: [otherProduct?.id ?? 0],
      });
      const offer = activeOffer(tenant);
      const email = `lead-${tenant.company.id}@example.com`;
      const link = await createLink(engine.app, tenant.keys.live, {
        plan_code: plan.code,
        external_reference: 'lead-ref',
      });

      // A form refused for a mistake is no submission.
      const refused = await postForm(engine.app, payPath(engine.app, `/${plan.code}/pay`), {
        plink: link.id,
        name: 'Nina Lead',
        email,
        document: '123',
      });
      expect(refused.status).to.equal(400);

      const first = await checkout(engine.app, tenant, plan.code, link.id, {
        name: 'Nina Lead',
        email,
        payment_method: 'pix',
      });
      const lead = await eventually(
        async () => delivered().find((e) => e.type === 'lead.created' && e.data.lead?.email === email),
        10_000,
        'lead.created',
      );
      expect(lead.data.lead).to.deep.equal({ name: 'Nina Lead', email, phone: null, document: null });
      expect(lead.data.purchase.payment_link?.code).to.equal(link.id);
      expect(lead.data.product.id).to.equal(plan.product_id);

      // The same buyer again (other case, other offer, no link): no new lead.
      await checkout(engine.app, tenant, offer.code, null, {
        email: email.toUpperCase().replace('@EXAMPLE.COM', '@example.com'),
        payment_method: 'pix',
      });
      await checkout(engine.app, tenant, offer.code, null, { email, payment_method: 'credit_card' });
      const { rows } = await engine.app.ctx.pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM events WHERE company_id = $1 AND type = 'lead.created'`,
        [tenant.company.id],
      );
      expect(Number(rows[0]?.n)).to.equal(1);
      // order.created kept its product filter: none reached this integration.
      expect(
        delivered().filter((e) => e.type === 'order.created' && e.data.order?.code === first.order.code),
      ).to.have.length(0);

      // Another company has not seen this buyer.
      const other = await seed();
      expect(
        await rememberLead(engine.app.ctx.db, { companyId: other.company.id, livemode: true, email }),
      ).to.equal(true);
      // Nor has this company in test mode.
      expect(
        await rememberLead(engine.app.ctx.db, { companyId: tenant.company.id, livemode: false, email }),
      ).to.equal(true);
      expect(
        await rememberLead(engine.app.ctx.db, { companyId: tenant.company.id, livemode: true, email }),
      ).to.equal(false);
    });
  });
});
