import { expect } from 'chai';
import { jobIds } from '../../queues/index.js';
import { eventually } from '../helpers/eventually.js';
import { buyerAddress } from '../helpers/smtp.js';
import { activeOffer, payPath, postForm } from '../checkout/helpers.js';
import { htmlText, mailTo, smtp } from '../emails/helpers.js';
import { signIn } from '../buyer-account/helpers.js';
import { P } from '../orders/helpers.js';
import {
  BUYER_CPF,
  createInvoiceIntegration,
  invoiceConfig,
  invoiceReaches,
  invoiceWorld,
  panelOrder,
} from './helpers.js';

describe("Service invoices for the buyer: the receipt e-mail and the buyer's page link the PDF", function () {
  this.timeout(90_000);
  const world = invoiceWorld();
  const app = () => world.app;

  before(async () => {
    await createInvoiceIntegration(app(), world.tenant, invoiceConfig(world.token));
  });
  afterEach(() => {
    world.focus.hold = false;
  });

  /** Buys, and returns the order's code once the panel lists it. */
  const buy = async (lang: 'pt-BR' | 'en', email = buyerAddress()) => {
    const page = await postForm(
      app(),
      payPath(app(), `/${activeOffer(world.tenant).code}/pay?lang=${lang}`),
      {
        name: 'Bia Buyer',
        email,
        document: BUYER_CPF,
        payment_method: 'credit_card',
      },
    );
    expect(page.status, page.body.slice(0, 300)).to.equal(200);
    const list = await app().http.get<{ data: Array<{ code: string; customer: { email: string } }> }>(
      `${P}/orders?limit=100`,
      { auth: world.tenant.panel_token },
    );
    const code = list.body.data.find((o) => o.customer.email === email)?.code;
    if (!code) throw new Error(`no order of ${email}`);
    return { email, code };
  };

  it('mails the receipt at once, then the receipt again with the PDF once the prefecture authorised the NFS-e (pt-BR)', async () => {
    // The prefecture takes its time: the receipt goes out before the invoice exists.
    world.focus.hold = true;
    const { email, code } = await buy('pt-BR');
    const receipt = await mailTo(email, /^Recibo: /);
    expect(receipt.parsed.text).to.not.match(/nota fiscal/i);
    expect((await panelOrder(app(), world.tenant, code)).invoice?.status).to.equal('pending');
    // Submitted (the stand-in holds the note); now authorised.
    const held = await waitForNote(code);
    world.focus.decide(held);
    const issued = await invoiceReaches(app(), world.tenant, code, 'issued');
    const pdf = issued.invoice?.pdf_url ?? '';
    expect(pdf).to.match(/^http:\/\/127\.0\.0\.1:\d+\/arquivos\/.+danfse\.pdf$/);
    const mail = await mailTo(email, /^Nota fiscal: /);
    expect(mail.envelope.to).to.deep.equal([email]);
    const text = mail.parsed.text ?? '';
    expect(text).to.include('A nota fiscal de serviço (NFS-e) da sua compra foi emitida.');
    expect(text).to.include(`Nota fiscal (NFS-e): ${issued.invoice?.number ?? 'x'}`);
    expect(text).to.include(`Baixar a nota fiscal (PDF): ${pdf}`);
    expect(text).to.include(`Pedido: ${code}`);
    expect(String(mail.parsed.html)).to.include(`href="${pdf}"`);
    expect(htmlText(mail)).to.include('Baixar a nota fiscal (PDF)');
    // Once: a relay again or the sweep adds no second one.
    await world.engine.workers.sweeps.outbox.runsFromNow(2);
    expect(
      smtp()
        .to(email)
        .filter((m) => /^Nota fiscal: /.test(m.parsed.subject ?? '')),
    ).to.have.length(1);
    // The order lists both receipts.
    const emails = (
      await app().http.get<{ emails: Array<{ kind: string }> }>(`${P}/orders/${code}`, {
        auth: world.tenant.panel_token,
      })
    ).body.emails;
    expect(emails.map((e) => e.kind)).to.deep.equal(['receipt', 'receipt']);
  });

  it('puts the PDF in the receipt itself when the invoice was issued before it went out, and sends no second one', async () => {
    world.focus.hold = true;
    const email = buyerAddress();
    // The buyer's mailbox answers "try later" (451): the receipt waits for its retry.
    smtp().defer.add(email);
    try {
      const { code } = await buy('pt-BR', email);
      const receiptRow = () => messageRows(code);
      const [receipt] = await eventually(
        async () => {
          const rows = await receiptRow();
          return rows[0] && rows[0].attempts >= 1 && rows[0].state === 'queued' ? rows : undefined;
        },
        20_000,
        'the receipt deferred',
      );
      world.focus.decide(await waitForNote(code));
      await invoiceReaches(app(), world.tenant, code, 'issued');
      const notice = await eventually(
        async () => {
          const row = (await receiptRow())[1];
          return row && row.attempts >= 1 && row.state === 'queued' ? row : undefined;
        },
        20_000,
        'the invoice receipt deferred',
      );
      smtp().defer.delete(email);
      // The receipt's retry first, then the other's: each job brought forward from its backoff.
      await promote(receipt?.id ?? 0);
      const mail = await mailTo(email, /^Recibo: /);
      const { invoice } = await panelOrder(app(), world.tenant, code);
      expect(mail.parsed.text).to.include('Pagamento confirmado. Este é o seu recibo.');
      expect(mail.parsed.text).to.include(`Nota fiscal (NFS-e): ${invoice?.number ?? 'x'}`);
      expect(mail.parsed.text).to.include(`Baixar a nota fiscal (PDF): ${invoice?.pdf_url ?? 'x'}`);
      await promote(notice.id);
      await eventually(
        async () => (await receiptRow())[1]?.state === 'skipped' || undefined,
        20_000,
        'the second receipt skipped',
      );
      expect(
        smtp()
          .to(email)
          .map((m) => m.parsed.subject),
      ).to.have.length(1);
    } finally {
      smtp().defer.delete(email);
    }
  });

  it('speaks English to a buyer who bought in English', async () => {
    const { email, code } = await buy('en');
    await mailTo(email, /^Receipt: /);
    const issued = await invoiceReaches(app(), world.tenant, code, 'issued');
    const mail = await mailTo(email, /^Service invoice: /);
    const text = mail.parsed.text ?? '';
    expect(text).to.include('The service invoice (NFS-e) of your purchase was issued.');
    expect(text).to.include(`Download the invoice (PDF): ${issued.invoice?.pdf_url ?? 'x'}`);
  });

  it('sends no invoice e-mail for an order refunded before its invoice was authorised', async () => {
    // The refund comes while the prefecture decides: the authorised note is canceled at once, never issued.
    world.focus.hold = true;
    const { email, code } = await buy('pt-BR');
    await mailTo(email, /^Recibo: /);
    const ref = await waitForNote(code);
    const refund = await app().http.post(`${P}/orders/${code}/refund`, { auth: world.tenant.panel_token });
    expect(refund.status, refund.text).to.equal(200);
    world.focus.decide(ref);
    await invoiceReaches(app(), world.tenant, code, 'canceled');
    await world.engine.workers.sweeps.outbox.runsFromNow(2);
    expect(
      smtp()
        .to(email)
        .filter((m) => /^Nota fiscal: /.test(m.parsed.subject ?? '')),
    ).to.have.length(0);
  });

  it("shows the PDF on the buyer's page once the invoice is issued, and not before", async () => {
    world.focus.hold = true;
    const { email, code } = await buy('pt-BR');
    await mailTo(email, /^Recibo: /);
    const browser = await signIn(app(), email);
    const before = await browser.get('/account?lang=pt-BR');
    expect(before.status).to.equal(200);
    expect(before.body).to.include(code).and.not.include('Nota fiscal');
    world.focus.decide(await waitForNote(code));
    const issued = await invoiceReaches(app(), world.tenant, code, 'issued');
    const after = await browser.get('/account?lang=pt-BR');
    const pdf = issued.invoice?.pdf_url ?? 'x';
    expect(after.body).to.include('<dt>Nota fiscal</dt>');
    expect(after.body).to.include(`href="${pdf}"`);
    expect(after.body).to.include(`NFS-e nº ${issued.invoice?.number ?? 'x'} (PDF)`);
    const english = await browser.get('/account?lang=en');
    expect(english.body).to.include('<dt>Service invoice</dt>');
  });

  /** The order's receipts, oldest first. */
  const messageRows = async (code: string) =>
    (
      await app().ctx.pool.query<{ id: string; state: string; attempts: number }>(
        `SELECT id, state, attempts FROM email_messages WHERE order_code = $1 AND kind = 'receipt' ORDER BY id`,
        [code],
      )
    ).rows.map((r) => ({ ...r, id: Number(r.id) }));

  /** Runs a message's job now rather than at the end of its backoff. */
  const promote = async (messageId: number) => {
    const queue = world.engine.workers.producers.queue('emails');
    const job = await eventually(
      async () => {
        const found = await queue.getJob(jobIds.emails(messageId));
        return found && (await found.getState()) === 'delayed' ? found : undefined;
      },
      20_000,
      `message ${messageId} waiting for its retry`,
    );
    await job.promote();
  };

  /** The reference of the order's note once the stand-in holds it (submitted, not yet decided). */
  function waitForNote(code: string): Promise<string> {
    return eventually(
      () => (world.focus.notes.has(code) ? code : undefined),
      20_000,
      `note ${code} submitted`,
    );
  }
});
