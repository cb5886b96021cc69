import { expect } from 'chai';
import { jobIds } from '../../queues/index.js';
import { addDays, startOfBrazilDay } from '../../src/shared/brazil-time.js';
import { recordEvent } from '../../src/events/outbox.js';
import { publishAfterCommit } from '../../src/events/publish.js';
import { eventually } from '../events/helpers.js';
import { payPath, postForm, signedCallback } from '../checkout/helpers.js';
import { P, type PanelSubscription } from '../orders/helpers.js';
import { buy, mailTo, messagesOf, sellerWorld, smtp } from './helpers.js';
import { NO_CAMPAIGN } from '../tracking/helpers.js';

describe('E-mail to buyers: timed messages and a subscription’s life', function () {
  this.timeout(60_000);
  const world = sellerWorld();
  const app = () => world.app;

  /** A timed message's time comes now: its row says so, and its delayed job runs at once. */
  async function dueNow(messageId: number): Promise<void> {
    await app().ctx.pool.query(`UPDATE email_messages SET send_at = clock_timestamp() WHERE id = $1`, [
      messageId,
    ]);
    const job = await world.engine.workers.producers.queue('emails').getJob(jobIds.emails(messageId));
    expect(await job?.getState()).to.equal('delayed');
    await job?.promote();
    await world.engine.workers.producers.waitForJob('emails', jobIds.emails(messageId), 15_000);
  }

  const message = async (kind: string, orderCode: string) => {
    const found = (await messagesOf(app(), world.tenant.company.id)).find(
      (m) => m.kind === kind && m.order_code === orderCode,
    );
    if (!found) throw new Error(`no ${kind} message of ${orderCode}`);
    return found;
  };

  it('reminds the buyer of an unpaid boleto the day before it is due (09:00 in Brasília), and not once it is paid', async () => {
    const unpaid = await buy(app(), world.tenant, { method: 'boleto' });
    const paid = await buy(app(), world.tenant, { method: 'boleto' });
    await mailTo(unpaid.email, /boleto/);
    const reminder = await eventually(
      () => message('reminder', unpaid.order.code).catch(() => undefined),
      10_000,
      'reminder',
    );
    const dueDate = unpaid.order.boleto?.due_date ?? '';
    const expected = startOfBrazilDay(addDays(dueDate, -1)).getTime() + 9 * 3_600_000;
    expect(reminder.send_at.getTime()).to.equal(expected);
    expect(reminder.state).to.equal('queued');

    const callback = await signedCallback(app(), {
      order_code: paid.order.code,
      status: 'paid',
      payment_method: 'boleto',
    });
    expect(callback.status).to.equal(200);
    await mailTo(paid.email, /^Recibo/);
    const skipped = await message('reminder', paid.order.code);
    await dueNow(skipped.id);
    expect((await message('reminder', paid.order.code)).state).to.equal('skipped');
    expect(
      smtp()
        .to(paid.email)
        .map((m) => m.parsed.subject),
    ).to.have.length(2);

    await dueNow(reminder.id);
    const mail = await mailTo(unpaid.email, /^Lembrete: o boleto de .+ vence amanhã$/);
    expect(mail.parsed.text).to.include('ainda não foi pago');
  });

  it('announces a renewal 3 days ahead, mails the failed one with a pay-now checkout that renews it, its receipt, and the cancel', async () => {
    const plan = world.tenant.plans.find((p) => p.status === 'active');
    const { order, email } = await buy(app(), world.tenant, {
      method: 'credit_card',
      code: plan?.code,
      lang: 'en',
    });
    expect(order.status).to.equal('paid');
    await mailTo(email, /^Receipt: /);
    const subscriptionId = order.subscription_id ?? 0;
    const subscription = async () =>
      (
        await app().http.get<PanelSubscription>(`${P}/subscriptions/${subscriptionId}`, {
          auth: world.tenant.panel_token,
        })
      ).body;
    const periodEnd = Date.parse((await subscription()).current_period_end);

    // The notice: due 3 days before the period ends, delayed in Redis, held in PostgreSQL.
    const notice = await eventually(
      async () =>
        (await messagesOf(app(), world.tenant.company.id)).find(
          (m) => m.kind === 'renewal_notice' && m.recipient === email,
        ),
      10_000,
      'renewal notice queued',
    );
    expect(notice.send_at.getTime()).to.equal(periodEnd - 3 * 86_400_000);
    await dueNow(notice.id);
    const announced = await mailTo(email, /^Your .+ subscription renews on /);
    expect(announced.parsed.text).to.include('The card you paid with will be charged.');

    // The renewal is declined: past_due, and the buyer gets a link to pay now.
    const renew = await app().http.post(`${P}/subscriptions/${subscriptionId}/renew`, {
      auth: world.tenant.panel_token,
      body: { outcome: 'failed' },
    });
    expect(renew.status).to.equal(200);
    const failed = await mailTo(email, /^We could not renew your /);
    const payNow = /(http\S+\/pay\/renewals\?token=\w+&lang=en)/.exec(failed.parsed.text ?? '')?.[1] ?? '';
    expect(payNow).to.not.equal('');
    const path = new URL(payNow).pathname + new URL(payNow).search;
    const page = await app().http.get<string>(path);
    expect(page.status).to.equal(200);
    const action = /<form[^>]*action="([^"]*renewals\/pay[^"]*)"/.exec(page.body)?.[1] ?? '';
    expect(action).to.include('token=');
    expect(page.body).to.not.include('recovery_consent');
    // The checkout's own pay step: a card, approved by the dev gateway.
    const query = action.replace(/&amp;/g, '&').slice(action.indexOf('?'));
    const paid = await postForm(app(), payPath(app(), `/renewals/pay${query}`), {
      name: 'Bia Buyer',
      email,
      payment_method: 'credit_card',
    });
    expect(paid.status, paid.body.slice(0, 300)).to.equal(200);
    expect((await subscription()).status).to.equal('active');
    // The receipt, the notice, the failed renewal and now the renewal's receipt.
    const receipts = await smtp().waitFor(email, 4);
    expect(receipts.filter((m) => /^Receipt: /.test(m.parsed.subject ?? ''))).to.have.length(2);
    // The link has done its work.
    expect((await app().http.get<string>(path)).body).to.include('your subscription was renewed');

    const canceled = await app().http.post(`${P}/subscriptions/${subscriptionId}/cancel`, {
      auth: world.tenant.panel_token,
    });
    expect(canceled.status).to.equal(200);
    const ended = await mailTo(email, /^Your .+ subscription was canceled$/);
    expect(ended.parsed.text).to.include('will not be charged again');
  });

  it('never mails a chargeback: a subscription canceled by one is not announced', async () => {
    const email = `chargeback-${Date.now()}@example.com`;
    const eventId = await app().ctx.db.transaction(
      async (tx) =>
        (
          await recordEvent(tx, {
            companyId: world.tenant.company.id,
            type: 'subscription.canceled',
            livemode: true,
            test: false,
            productId: null,
            data: {
              subscription: {
                id: 1,
                status: 'canceled',
                cancel_reason: 'chargeback',
                current_period_end: new Date().toISOString(),
              },
              customer: { name: 'C', email, phone: null, document: null },
              product: { id: 1, name: 'P' },
              plan: { code: 'pl', name: 'Plan', price: '10.00', billing_cycle: 'monthly' },
              purchase: { tracking: { external_reference: null, ...NO_CAMPAIGN }, payment_link: null },
            },
          })
        ).id,
    );
    publishAfterCommit(app().ctx, [eventId]);
    await eventually(
      async () =>
        (await app().ctx.pool.query('SELECT emails_at FROM events WHERE id = $1', [eventId])).rows[0]
          ?.emails_at !== null,
      10_000,
      'the event was relayed for e-mail',
    );
    const { rows } = await app().ctx.pool.query('SELECT 1 FROM email_messages WHERE event_id = $1', [
      eventId,
    ]);
    expect(rows).to.deep.equal([]);
  });
});
