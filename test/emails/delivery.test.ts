import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { jobIds } from '../../queues/index.js';
import { queueEmails } from '../../src/emails/relay.js';
import { SendFailedError, sendEmail } from '../../src/emails/send.js';
import { classifySmtpError, createMailer } from '../../src/emails/transport.js';
import { testEnvironment } from '../helpers/environment.js';
import { seed } from '../helpers/app.js';
import { capturedLogFile } from '../helpers/captured-logs.js';
import { TestSmtp, buyerAddress } from '../helpers/smtp.js';
import { eventually } from '../events/helpers.js';
import { payPath } from '../checkout/helpers.js';
import { P } from '../orders/helpers.js';
import { buy, mailTo, messagesOf, panelOrder, sellerWorld, smtp } from './helpers.js';

describe('E-mail to buyers: once, retried, refused, limited, unsubscribed', function () {
  this.timeout(60_000);
  const world = sellerWorld();
  const app = () => world.app;

  const instructionsOf = async (orderCode: string) => {
    const found = (await messagesOf(app(), world.tenant.company.id)).find(
      (m) => m.kind === 'instructions' && m.order_code === orderCode,
    );
    if (!found) throw new Error(`no instructions of ${orderCode}`);
    return found;
  };
  /** The order's instructions once the worker has recorded them sent (after the SMTP server has them). */
  const sentInstructionsOf = (orderCode: string) =>
    eventually(
      async () => {
        const found = await instructionsOf(orderCode);
        return found.state === 'sent' ? found : undefined;
      },
      10_000,
      'recorded sent',
    );

  it('sends a message once, however often its event is relayed or its job runs again', async () => {
    const { order, email } = await buy(app(), world.tenant, { method: 'pix' });
    await mailTo(email, /Pix/);
    const { rows } = await app().ctx.pool.query<{ event_id: string }>(
      'SELECT event_id FROM email_messages WHERE order_code = $1',
      [order.code],
    );
    // The relay again (a retried outbox job, the sweep): the event's messages are queued already.
    expect(await queueEmails(app().ctx, [rows[0]?.event_id ?? ''])).to.equal(0);
    // The job again, under a new id (BullMQ keeps the finished one's): the message is sent already.
    // Recorded sent first: the SMTP server has the message before the worker records its answer, and
    // a job that finds it `sending` sends it again (an outcome never recorded, src/emails/send.ts).
    const message = await sentInstructionsOf(order.code);
    await world.engine.workers.producers.add('emails', `again-${message.id}`, { messageId: message.id });
    expect(await world.engine.workers.producers.waitForJob('emails', `again-${message.id}`, 10_000)).to.equal(
      'completed',
    );
    const job = await world.engine.workers.producers.queue('emails').getJob(`again-${message.id}`);
    expect(job?.returnvalue).to.deep.equal({ outcome: 'done' });
    expect(smtp().to(email)).to.have.length(1);
  });

  it('retries a transient refusal and delivers once; after a hand-off whose outcome was lost it sends again and says so', async () => {
    const { order, email } = await buy(app(), world.tenant, { method: 'pix' });
    await mailTo(email, /Pix/);
    const message = await sentInstructionsOf(order.code);
    const mailer = createMailer(app().ctx.config);
    try {
      // As if the worker died after handing it to SMTP: the row says `sending`.
      await app().ctx.pool.query(`UPDATE email_messages SET state = 'sending' WHERE id = $1`, [message.id]);
      smtp().defer.add(email);
      const first = await sendEmail(app().ctx, mailer, message.id, { final: false }).catch(
        (err: unknown) => err,
      );
      expect(first).to.be.instanceOf(SendFailedError);
      expect((await instructionsOf(order.code)).state).to.equal('queued');
      smtp().defer.delete(email);
      expect(await sendEmail(app().ctx, mailer, message.id, { final: false })).to.deep.equal({
        kind: 'sent',
      });
      expect(await sendEmail(app().ctx, mailer, message.id, { final: false })).to.deep.equal({
        kind: 'done',
      });
    } finally {
      mailer.close();
    }
    // The first delivery and the one resend after the lost outcome: the only duplicate there can be.
    expect(smtp().to(email)).to.have.length(2);
    const logs = await readFile(capturedLogFile() ?? '', 'utf8');
    expect(logs).to.include('the buyer may receive it twice');
    expect(logs).to.not.include(email);
  });

  it('records a message the server refuses for good as bounced, and lists it so', async () => {
    const email = buyerAddress('nobody');
    smtp().refuse.add(email);
    try {
      const { order } = await buy(app(), world.tenant, { method: 'pix', email });
      await eventually(
        async () => (await panelOrder(app(), world.tenant, order.code)).emails[0]?.state === 'bounced',
        15_000,
        'bounced',
      );
      expect((await panelOrder(app(), world.tenant, order.code)).emails[0]).to.include({
        kind: 'instructions',
        sent_at: null,
      });
    } finally {
      smtp().refuse.delete(email);
    }
  });

  it('fails a poisoned job at once, without retries, and goes on sending', async () => {
    await world.engine.workers.producers.add('emails', 'poisoned-1', { messageId: 'x' } as unknown as {
      messageId: number;
    });
    expect(await world.engine.workers.producers.waitForJob('emails', 'poisoned-1', 10_000)).to.equal(
      'failed',
    );
    const job = await world.engine.workers.producers.queue('emails').getJob('poisoned-1');
    expect(job?.attemptsMade).to.equal(1);
    expect(job?.failedReason).to.match(/invalid emails payload/);
    // A job for a message that does not exist completes, doing nothing.
    await world.engine.workers.producers.add('emails', 'missing-1', { messageId: 999_999_999 });
    expect(await world.engine.workers.producers.waitForJob('emails', 'missing-1', 10_000)).to.equal(
      'completed',
    );
    const { email } = await buy(app(), world.tenant, { method: 'pix' });
    await mailTo(email, /Pix/);
  });

  it('does what the settings say: a kind turned off is not sent', async () => {
    const quiet = await seed();
    const off = await app().http.patch(`${P}/email-settings`, {
      auth: quiet.panel_token,
      body: { messages: { instructions: false } },
    });
    expect(off.status).to.equal(200);
    const { order, email } = await buy(app(), quiet, { method: 'pix' });
    const receipt = await buy(app(), quiet, { method: 'credit_card', email });
    await mailTo(email, /^Recibo/);
    expect(smtp().to(email)).to.have.length(1);
    expect((await panelOrder(app(), quiet, order.code)).emails).to.deep.equal([]);
    expect((await panelOrder(app(), quiet, receipt.order.code)).emails[0]?.kind).to.equal('receipt');
  });

  it('sends one recovery message to a buyer who consented, with one-click unsubscribe (RFC 8058) that stops the next ones', async () => {
    const shop = await seed();
    const on = await app().http.patch(`${P}/email-settings`, {
      auth: shop.panel_token,
      body: { messages: { recovery: true } },
    });
    expect(on.body).to.have.nested.property('messages.recovery', true);
    // The checkout asks for consent now that the company sends the message.
    const offer = shop.offers.find((o) => o.status === 'active')?.code ?? '';
    const form = await app().http.get<string>(payPath(app(), `/${offer}`));
    expect(form.body).to.include('name="recovery_consent"');
    const abandon = async (code: string) => {
      await app().ctx.pool.query(
        `UPDATE orders SET abandon_at = clock_timestamp() - interval '1 minute',
                pix_expires_at = clock_timestamp() - interval '1 minute' WHERE code = $1`,
        [code],
      );
      await eventually(
        async () => (await panelOrder(app(), shop, code)).status === 'abandoned',
        15_000,
        'the order abandoned',
      );
    };
    const consented = await buy(app(), shop, { method: 'pix', consent: true });
    const silent = await buy(app(), shop, { method: 'pix' });
    await abandon(consented.order.code);
    await abandon(silent.order.code);
    const mail = await mailTo(consented.email, /^Você deixou /);
    // The header section, its folded lines unfolded (RFC 5322).
    const headers = mail.raw.slice(0, mail.raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
    expect(headers).to.match(
      /^List-Unsubscribe: <mailto:no-reply@localhost\?subject=unsubscribe%20\w+>, <http/m,
    );
    expect(headers).to.match(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
    const https = /^List-Unsubscribe: .*<(http[^>]+)>/m.exec(headers)?.[1] ?? '';
    expect(https).to.match(/\/pay\/emails\/unsubscribe\?token=\w+/);
    await world.engine.workers.sweeps.outbox.runsFromNow(2);
    expect(
      smtp()
        .to(silent.email)
        .map((m) => m.parsed.subject),
    ).to.deep.equal([smtp().to(silent.email)[0]?.parsed.subject]);

    // What a mailbox provider does on "unsubscribe": one POST, no page, no cookie.
    const url = new URL(https);
    const done = await app().http.post<string>(`${url.pathname}${url.search}`, {
      rawBody: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(done.status).to.equal(200);
    const { rows } = await app().ctx.pool.query(
      'SELECT email FROM email_unsubscribes WHERE company_id = $1',
      [shop.company.id],
    );
    expect(rows).to.deep.equal([{ email: consented.email }]);

    // A week later the same buyer leaves another order: no message, being unsubscribed.
    await app().ctx.pool.query(
      `UPDATE email_messages SET created_at = created_at - interval '8 days' WHERE company_id = $1 AND kind = 'recovery'`,
      [shop.company.id],
    );
    const again = await buy(app(), shop, { method: 'pix', consent: true, email: consented.email });
    await abandon(again.order.code);
    await world.engine.workers.sweeps.outbox.runsFromNow(2);
    expect(
      smtp()
        .to(consented.email)
        .filter((m) => /^Você deixou /.test(m.parsed.subject ?? '')),
    ).to.have.length(1);
    expect((await panelOrder(app(), shop, again.order.code)).emails.map((e) => e.kind)).to.deep.equal([
      'instructions',
    ]);
  });
});

describe('E-mail to buyers: the per-company hourly limit', function () {
  this.timeout(60_000);
  const world = sellerWorld({ env: { EMAIL_RATE_LIMIT_PER_HOUR: '2' } });

  it('sends a company at most EMAIL_RATE_LIMIT_PER_HOUR messages an hour; the rest wait, queued, and another company is not held back', async () => {
    const busy = await seed();
    const bought = [];
    for (let i = 0; i < 3; i += 1) bought.push(await buy(world.engine.app, busy, { method: 'pix' }));
    const other = await seed();
    const calm = await buy(world.engine.app, other, { method: 'pix' });
    await mailTo(calm.email, /Pix/);
    await eventually(
      async () =>
        (await messagesOf(world.engine.app, busy.company.id)).filter((m) => m.state === 'sent').length === 2,
      15_000,
      'two sent',
    );
    const held = (await messagesOf(world.engine.app, busy.company.id)).find(
      (m) => m.kind === 'instructions' && m.state === 'queued',
    );
    expect(held, 'the third waits').to.not.equal(undefined);
    const job = await world.engine.workers.producers.queue('emails').getJob(jobIds.emails(held?.id ?? 0));
    await eventually(async () => (await job?.getState()) === 'delayed', 10_000, 'held back as a delayed job');
    expect(Number(job?.delay ?? 0) + Number(job?.timestamp ?? 0)).to.be.above(Date.now() + 50 * 60_000);
    expect(bought.filter((b) => smtp().to(b.email).length > 0)).to.have.length(2);
  });
});

describe('E-mail to buyers: SMTP URLs (smtps, STARTTLS, authentication)', function () {
  this.timeout(30_000);
  const send = async (url: string, to: string): Promise<string> => {
    const mailer = createMailer({ ...testConfig(), email: { ...testConfig().email, smtpUrl: url } });
    try {
      return await mailer.send({
        messageId: '<test@localhost>',
        from: { name: 'Shop', address: 'no-reply@localhost' },
        to,
        replyTo: null,
        subject: 'Hello',
        text: 'Hello',
        html: '<p>Hello</p>',
        attachments: [],
        headers: {},
      });
    } finally {
      mailer.close();
    }
  };
  const testConfig = () => smtpConfig;
  let smtpConfig: Parameters<typeof createMailer>[0];
  before(() => {
    smtpConfig = testEnvironment().config();
  });

  it('sends over smtps:// (TLS from the first byte) and over STARTTLS when required, authenticated', async () => {
    const secure = await new TestSmtp({
      secure: true,
      auth: { user: 'u', pass: 'secret-password-1' },
    }).start();
    const starttls = await new TestSmtp({ auth: { user: 'v', pass: 'secret-password-2' } }).start();
    try {
      expect(await send(secure.url, 'a@example.com')).to.match(/^250/);
      expect(secure.mails[0]).to.include({ secure: true, user: 'u' });
      expect(await send(`${starttls.url}&requireTLS=true`, 'b@example.com')).to.match(/^250/);
      expect(starttls.mails[0]).to.include({ secure: true, user: 'v' });
      const wrong = starttls.url.replace('secret-password-2', 'wrong-password');
      const refused = await send(wrong, 'c@example.com').catch((err: unknown) => err);
      expect(refused).to.be.instanceOf(Error);
      expect(classifySmtpError(refused).kind, 'bad credentials are retried, never a bounce').to.equal(
        'retry',
      );
    } finally {
      await secure.close();
      await starttls.close();
    }
  });
});
