import { expect } from 'chai';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { seed } from '../helpers/app.js';
import { buyerAddress } from '../helpers/smtp.js';
import { eventually } from '../events/helpers.js';
import { createLink } from '../checkout/helpers.js';
import { P } from '../orders/helpers.js';
import { buy, htmlText, mailTo, messagesOf, panelOrder, sellerWorld, smtp } from './helpers.js';

/** Intl writes a no-break space after R$; read as a space. */
const spaced = (text: string): string => text.replace(/\u00a0/g, ' ');

describe('E-mail to buyers: the messages (HTTP in, e-mail out through a real SMTP server)', function () {
  this.timeout(60_000);
  const world = sellerWorld({ name: 'Loja da Ana' });
  const app = () => world.app;
  before(async () => {
    // The seller's CNPJ, printed on receipts (a valid one: 11.222.333/0001-81).
    await app().ctx.pool.query('UPDATE companies SET cnpj = $1 WHERE id = $2', [
      '11222333000181',
      world.tenant.company.id,
    ]);
  });

  it('mails a Pix order its instructions in Portuguese: the copia e cola, its QR code, the deadline, the seller as sender', async () => {
    const { order, email } = await buy(app(), world.tenant, {
      method: 'pix',
      lang: 'pt-BR',
      name: 'Ana Souza',
    });
    const mail = await mailTo(email, /Pix/);
    const { parsed } = mail;
    expect(mail.envelope.to).to.deep.equal([email]);
    expect(mail.user, 'sent with the SMTP user of SMTP_URL').to.match(/^mailer-/);
    expect(parsed.from?.value[0]).to.deep.include({ name: 'Loja da Ana', address: 'no-reply@localhost' });
    expect(parsed.replyTo?.value[0]?.address, 'the owner, no support address being set').to.match(/@/);
    expect(parsed.subject).to.match(/^Seu Pix de .+ para pagar$/);
    expect(parsed.messageId).to.match(/^<em\.\w+@localhost>$/);
    const copyPaste = order.pix?.copy_paste ?? '';
    expect(copyPaste).to.not.equal('');
    expect(parsed.text).to.include('Olá, Ana Souza!').and.include(copyPaste).and.include('Válido até');
    expect(parsed.html).to.be.a('string');
    expect(htmlText(mail)).to.include(copyPaste);
    // The QR code is an inline image of the message, and it encodes exactly the copia e cola.
    const image = parsed.attachments.find((a) => a.contentType === 'image/png');
    expect(image?.cid).to.be.a('string');
    expect(String(parsed.html)).to.include(`cid:${image?.cid ?? ''}`);
    const png = PNG.sync.read(image?.content ?? Buffer.alloc(0));
    // jsqr is CommonJS: under NodeNext its default import is the module, whose `default` is the decoder.
    expect(jsQR.default(new Uint8ClampedArray(png.data), png.width, png.height)?.data).to.equal(copyPaste);
    expect(parsed.text).to.include(`/pay/orders/${order.code}?lang=pt-BR`);
    // The order lists it, sent.
    await eventually(
      async () => (await panelOrder(app(), world.tenant, order.code)).emails[0]?.state === 'sent',
      10_000,
      'the order lists its e-mail as sent',
    );
    const listed = (await panelOrder(app(), world.tenant, order.code)).emails;
    expect(listed).to.have.length(1);
    expect(listed[0]).to.include({ kind: 'instructions', to: email, state: 'sent' });
    expect(Date.parse(listed[0]?.sent_at ?? '')).to.be.above(0);
  });

  it('mails a boleto order in English: the line, the due date and the printable page', async () => {
    const { order, email } = await buy(app(), world.tenant, { method: 'boleto', lang: 'en' });
    const mail = await mailTo(email, /boleto/i);
    expect(mail.parsed.subject).to.match(/^Your boleto for /);
    const boleto = order.boleto;
    expect(boleto).to.not.equal(null);
    const digits = (mail.parsed.text ?? '').replace(/\D/g, '');
    expect(digits).to.include(boleto?.digitable_line ?? 'x');
    expect(mail.parsed.text)
      .to.include(`${boleto?.url ?? 'x'}?lang=en`)
      .and.include('Due date');
    expect(mail.parsed.text).to.match(/Hi Bia Buyer,/);
  });

  it('mails a receipt of a paid card order: item, amount, instalments, order code, seller and CNPJ, the order page', async () => {
    const link = await createLink(app(), world.tenant.keys.live, {
      offer_code: world.tenant.offers.find((o) => o.status === 'active')?.code,
      max_installments: 3,
    });
    expect(link.id).to.match(/^plink_/);
    const { order, email } = await buy(app(), world.tenant, {
      method: 'credit_card',
      lang: 'en',
      installments: 3,
      plink: link.id,
    });
    expect(order.status).to.equal('paid');
    const mail = await mailTo(email, /^Receipt: /);
    const text = spaced(mail.parsed.text ?? '');
    expect(text).to.include(`Order: ${order.code}`);
    expect(text).to.include(`Amount: R$${order.amount}`.replace(/\.(\d\d)$/, '.$1'));
    expect(text).to.include('Credit card, in 3 interest-free instalments');
    expect(text).to.include('Seller: Loja da Ana').and.include('CNPJ: 11.222.333/0001-81');
    expect(text).to.include(`/pay/orders/${order.code}?lang=en`);
    expect(htmlText(mail)).to.include('11.222.333/0001-81');
    // A card order gets no payment instructions: only the receipt.
    await world.engine.workers.sweeps.outbox.runsFromNow(2);
    expect(smtp().to(email)).to.have.length(1);
  });

  it('mails the refund of a refunded order', async () => {
    const { order, email } = await buy(app(), world.tenant, { method: 'credit_card' });
    await mailTo(email, /^Recibo: /);
    const refunded = await app().http.post(`${P}/orders/${order.code}/refund`, {
      auth: world.tenant.panel_token,
    });
    expect(refunded.status).to.equal(200);
    const mail = await mailTo(email, /^Reembolso: /);
    expect(mail.parsed.text).to.include(order.code).and.include('reembolsado');
  });

  it('escapes what the seller and the buyer typed: markup arrives as text, a line break never starts a header', async () => {
    const hostile = await seed({ name: 'Evil\r\nBcc: victim@example.com' });
    const product = hostile.offers.find((o) => o.status === 'active');
    await app().ctx.pool.query(
      `UPDATE products SET name = $1 WHERE id = (SELECT product_id FROM offers WHERE code = $2)`,
      ['<script>alert(1)</script>\r\nBcc: victim@example.com', product?.code],
    );
    const { email } = await buy(app(), hostile, { method: 'pix', name: '<b>Ana</b>' });
    const mail = await mailTo(email, /Pix/);
    expect(mail.envelope.to, 'one recipient, whatever the headers say').to.deep.equal([email]);
    expect(mail.parsed.headers.has('bcc')).to.equal(false);
    const headers = mail.raw.slice(0, mail.raw.indexOf('\r\n\r\n'));
    expect(headers).to.not.match(/^Bcc:/im);
    expect(mail.parsed.subject).to.not.match(/[\r\n]/);
    const htmlPart = String(mail.parsed.html);
    expect(htmlPart).to.not.include('<script>').and.not.include('<b>Ana</b>');
    expect(htmlPart)
      .to.include('&lt;script&gt;alert(1)&lt;/script&gt;')
      .and.include('&lt;b&gt;Ana&lt;/b&gt;');
    expect(mail.parsed.from?.value[0]?.name).to.not.match(/[\r\n]/);
    expect(mail.parsed.from?.value).to.have.length(1);
  });

  it('sends each buyer only their own order', async () => {
    const first = await buy(app(), world.tenant, { method: 'pix', name: 'First Buyer' });
    const second = await buy(app(), world.tenant, { method: 'pix', name: 'Second Buyer' });
    const [a, b] = await Promise.all([mailTo(first.email, /Pix/), mailTo(second.email, /Pix/)]);
    expect(a.raw)
      .to.include('First Buyer')
      .and.not.include('Second Buyer')
      .and.not.include(second.order.code);
    expect(a.raw).to.not.include(second.email);
    expect(b.raw).to.include('Second Buyer').and.not.include('First Buyer').and.not.include(first.order.code);
    expect(b.raw).to.not.include(first.email);
  });

  it('mails nothing in test mode: a simulated payment, and a test-mode subscription', async () => {
    const other = await seed();
    const offer = other.offers.find((o) => o.status === 'active')?.code;
    const plan = other.plans.find((p) => p.status === 'active')?.code;
    const email = buyerAddress('test-mode');
    for (const item of [{ offer_code: offer }, { plan_code: plan }]) {
      const link = await createLink(app(), other.keys.test, { ...item, customer: { name: 'T', email } });
      const paid = await app().http.post(`/v1/payment-links/${link.id}/simulate`, {
        auth: other.keys.test,
        body: { outcome: 'paid' },
      });
      expect(paid.status).to.equal(200);
    }
    // Two sweeps after the events committed: every relay, and the e-mail sweep, have had their turn.
    await world.engine.workers.sweeps.outbox.runsFromNow(2);
    expect(await messagesOf(app(), other.company.id)).to.deep.equal([]);
    expect(smtp().to(email)).to.deep.equal([]);
  });
});
