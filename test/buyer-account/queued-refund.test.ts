import { expect } from 'chai';
import { nameUuid } from '../../src/shared/ids.js';
import type { SeedResult } from '../../src/cli/seed.js';
import { sweepOnce } from '../../src/sweeps/sweep.js';
import { seed } from '../helpers/app.js';
import { buyerAddress } from '../helpers/smtp.js';
import { createIntegration, eventually } from '../events/helpers.js';
import { connectMercadoPago, mercadoPagoWorld, offerLink, P, pay } from '../mercadopago/helpers.js';
import type { PanelOrder } from '../orders/helpers.js';
import { send, signIn as dashboardSignIn } from '../dashboard/helpers.js';
import { csrfOf, signIn } from './helpers.js';

const textOf = (page: string): string => page.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

/**
 * The right of regret while the order's PSP (the Mercado Pago stand-in) does not answer: the refund
 * is queued on `refunds`, the buyer sees it requested, and the order becomes refunded (one
 * `order.refunded`, one refund at MP) once MP answers again.
 */
describe('The buyer’s page: a refund asked while the gateway is down is queued', function () {
  this.timeout(120_000);
  const world = mercadoPagoWorld();

  /** A company connected to MP with an order paid by card by `email` there; its code. */
  async function paidByCard(email: string): Promise<{ tenant: SeedResult; code: string }> {
    const tenant = await seed();
    const { seller } = await connectMercadoPago(world, tenant);
    await createIntegration(world.app, tenant, {
      url: world.receiver.url,
      events: ['order.refunded'],
      sendToAllProducts: true,
    });
    const link = await offerLink(world.app, tenant, { single_use: false });
    const paid = await pay(world.app, link.code, {
      plink: link.id,
      email,
      payment_method: 'credit_card',
      card_token: world.mp.createCardToken(seller, { holder: 'APRO' }),
      card_payment_method_id: 'visa',
    });
    return { tenant, code: paid.orderCode ?? '' };
  }

  const mpRefunds = () => world.mp.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/refunds'));

  it('queues it (refund requested), retries, and refunds once MP answers: one refund, one order.refunded', async () => {
    const email = buyerAddress('queued-refund');
    const { tenant, code } = await paidByCard(email);
    const panelOrder = async (): Promise<PanelOrder> =>
      (await world.app.http.get<PanelOrder>(`${P}/orders/${code}`, { auth: tenant.panel_token })).body;
    expect((await panelOrder()).status).to.equal('paid');
    // MP drops every refund request until the test clears the fault.
    world.mp.failNext({ method: 'POST', path: /\/refunds$/ }, { kind: 'reset' }, 1000);
    const browser = await signIn(world.app, email);
    const page = await browser.get('/account?lang=en');
    const asked = await browser.post(`/account/orders/${code}/refund?lang=en`, {
      _csrf: csrfOf(page.body),
      reason: 'Mudei de ideia',
    });
    expect(asked.status, asked.body.slice(0, 300)).to.equal(303);
    expect(asked.headers.get('location')).to.include('done=refund_queued');
    const requested = textOf((await browser.get('/account?lang=en&done=refund_queued')).body);
    expect(requested).to.include('Refund requested. The payment provider did not answer just now');
    expect(requested).to.include('Refund requested on').and.include('Mudei de ideia');
    // The seller sees it on its way: still paid, asked by the buyer, with the reason.
    expect(await panelOrder()).to.include({
      status: 'paid',
      refund_requested_by: 'buyer',
      refund_reason: 'Mudei de ideia',
    });
    const session = await dashboardSignIn(world.app, tenant.panel_token);
    const detail = await send(world.app, 'GET', `/orders/${code}?lang=en`, { session });
    expect(textOf(detail.text))
      .to.include('Refund asked by the buyer, waiting for the payment gateway, since')
      .and.include('Mudei de ideia');
    // Asked again while queued: the same answer, nothing new at MP from the request itself.
    const again = await browser.post(`/account/orders/${code}/refund?lang=en`, { _csrf: csrfOf(page.body) });
    expect(again.headers.get('location')).to.include('done=refund_queued');

    // The job retries while MP is down (the request's own try, then the job's with backoff).
    await eventually(async () => mpRefunds().length >= 3 || undefined, 30_000, 'the job retrying the refund');
    expect((await panelOrder()).status).to.equal('paid');
    world.mp.clearFaults();

    const refunded = await eventually(
      async () => {
        const order = await panelOrder();
        return order.status === 'refunded' ? order : undefined;
      },
      60_000,
      'the queued refund made',
    );
    expect(refunded).to.include({ refund_requested_by: 'buyer', refund_reason: 'Mudei de ideia' });
    expect(new Set(mpRefunds().map((r) => r.headers['x-idempotency-key']))).to.deep.equal(
      new Set([nameUuid(`refund-${code}`)]),
    );
    const events = await eventually(
      async () => {
        const found = world.receiver.requests
          .map((r) => JSON.parse(r.body) as { type: string; data: { order: { code: string } | null } })
          .filter((e) => e.type === 'order.refunded' && e.data.order?.code === code);
        return found.length > 0 ? found : undefined;
      },
      15_000,
      'order.refunded',
    );
    await world.mp.settled();
    expect(events).to.have.length(1);
    expect(textOf((await browser.get('/account?lang=en')).body)).to.include('Refunded on');
  });

  it('the sweep adds again the job of a queued refund that Redis lost', async () => {
    const email = buyerAddress('lost-refund');
    const { tenant, code } = await paidByCard(email);
    world.mp.failNext({ method: 'POST', path: /\/refunds$/ }, { kind: 'reset' }, 1000);
    const before = mpRefunds().length;
    const browser = await signIn(world.app, email);
    const page = await browser.get('/account');
    const asked = await browser.post(`/account/orders/${code}/refund`, { _csrf: csrfOf(page.body) });
    expect(asked.headers.get('location')).to.include('done=refund_queued');
    // The job tried once and waits for its retry: Redis loses it.
    await eventually(
      async () => mpRefunds().length >= before + 2 || undefined,
      30_000,
      'the job’s first try',
    );
    const queue = world.engine.workers.producers.queue('refunds');
    await eventually(
      async () => {
        const job = await queue.getJob(`refund-${code}`);
        return job
          ? job.remove().then(
              () => true,
              () => undefined,
            )
          : true;
      },
      30_000,
      'the job removed',
    );
    world.mp.clearFaults();
    await world.app.ctx.pool.query(
      `UPDATE orders SET refund_queued_at = refund_queued_at - interval '1 minute' WHERE code = $1`,
      [code],
    );
    // This sweep, or the engine's scheduled one if it came first: one of them adds the job again.
    const report = await sweepOnce(world.app.ctx);
    const readded = report.refunds >= 1 || (await queue.getJob(`refund-${code}`)) !== undefined;
    expect(readded, 'a sweep added the job again').to.equal(true);
    const refunded = await eventually(
      async () => {
        const order = (
          await world.app.http.get<PanelOrder>(`${P}/orders/${code}`, { auth: tenant.panel_token })
        ).body;
        return order.status === 'refunded' ? order : undefined;
      },
      30_000,
      'the swept refund made',
    );
    expect(refunded.refund_requested_by).to.equal('buyer');
  });

  it('fails a poisoned refunds job at once without retrying it, and a job for no order does nothing', async () => {
    const producers = world.engine.workers.producers;
    await producers.add('refunds', 'poisoned-refund', { orderCode: 'not-an-order' });
    expect(await producers.waitForJob('refunds', 'poisoned-refund', 10_000)).to.equal('failed');
    const job = await producers.queue('refunds').getJob('poisoned-refund');
    expect(job?.attemptsMade).to.equal(1);
    expect(job?.failedReason).to.match(/invalid refunds payload/);

    const nobody = '00000000-0000-4000-8000-000000000000';
    await producers.add('refunds', 'refund-of-nobody', { orderCode: nobody });
    expect(await producers.waitForJob('refunds', 'refund-of-nobody', 10_000)).to.equal('completed');
    expect((await producers.queue('refunds').getJob('refund-of-nobody'))?.returnvalue).to.deep.equal({
      outcome: 'nothing',
    });
  });
});
