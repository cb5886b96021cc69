import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import type { SeedResult } from '../../src/cli/seed.js';
import { addDays, brazilDate, startOfBrazilDay } from '../../src/shared/brazil-time.js';
import { seed } from '../helpers/app.js';
import { createIntegration, engineAndReceiver, eventually } from '../events/helpers.js';
import { checkout, P, type List, type PanelOrder } from '../orders/helpers.js';
import {
  activeOffer,
  checkBoleto,
  createLink,
  pathOf,
  payPath,
  postForm,
  readStaticPix,
  signedCallback,
  type WireLink,
} from './helpers.js';

const SECRET = `whsec_${Buffer.from('pix-boleto-and-cards-secret-123!').toString('base64')}`;

interface Delivered {
  type: string;
  data: { order: (PanelOrder & { code: string }) | null };
}

/** Intl writes a no-break space after R$; the tests read it as a space. */
const spaced = (text: string): string => text.replace(/\u00a0/g, ' ');

/** The text of the first element with this id on a page (tags inside it removed). */
function textOf(page: string, id: string): string | undefined {
  const match = new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(page);
  return match?.[1] === undefined ? undefined : spaced(match[1].replace(/<[^>]*>/g, '').trim());
}

const radios = (page: string): string[] =>
  [...page.matchAll(/name="payment_method"\s+value="([a-z_]+)"/g)].map((m) => m[1] ?? '');

describe('Pix, boleto and card at the checkout (dev gateway)', function () {
  this.timeout(30_000);
  let tenant: SeedResult;

  const { engine, receiver } = engineAndReceiver({ ORDER_ABANDON_AFTER_SECONDS: '600' });
  before(async () => {
    tenant = await seed();
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      secret: SECRET,
      events: ['order.created', 'order.paid', 'order.abandoned'],
      sendToAllProducts: true,
    });
  });

  const app = () => engine.app;
  const offer = () => activeOffer(tenant);
  const link = (body: Record<string, unknown> = {}) =>
    createLink(app(), tenant.keys.live, { offer_code: offer().code, ...body });
  const openCheckout = (l: WireLink) =>
    app().http.get<string>(pathOf(app(), l.url), { headers: { 'accept-language': 'pt-BR' } });
  const pay = (l: WireLink, fields: Record<string, string>) =>
    postForm(app(), payPath(app(), `/${offer().code}/pay`), {
      plink: l.id,
      name: 'Bia Buyer',
      email: `bia-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`,
      ...fields,
    });
  const orderCount = async (): Promise<number> =>
    Number(
      (
        await app().ctx.pool.query<{ n: string }>('SELECT count(*) AS n FROM orders WHERE company_id = $1', [
          tenant.company.id,
        ])
      ).rows[0]?.n,
    );
  const panelOrder = async (code: string): Promise<PanelOrder> =>
    (await app().http.get<PanelOrder>(`${P}/orders/${code}`, { auth: tenant.panel_token })).body;
  const orderPage = (code: string, lang = 'pt-BR') =>
    app().http.get<string>(payPath(app(), `/orders/${code}?lang=${lang}`));
  const statusOf = (code: string) =>
    app().http.get<{ status?: string; error?: { type: string } }>(payPath(app(), `/orders/${code}/status`));
  const delivered = (type: string, code: string): Promise<Delivered> =>
    eventually(
      async () =>
        receiver.requests
          .map((r) => new Webhook(SECRET).verify(r.body, r.headers as Record<string, string>) as Delivered)
          .find((e) => e.type === type && e.data.order?.code === code),
      10_000,
      `${type} of ${code}`,
    );
  /** Moves an order's clock back, as if `seconds` had passed since the checkout. */
  const age = (code: string, seconds: number) =>
    app().ctx.pool.query(
      `UPDATE orders SET created_at = created_at - make_interval(secs => $2),
              abandon_at = abandon_at - make_interval(secs => $2),
              pix_expires_at = pix_expires_at - make_interval(secs => $2)
        WHERE code = $1`,
      [code, seconds],
    );

  describe('the checkout form', () => {
    it('offers exactly the link’s methods, the first one chosen', async () => {
      const all = await openCheckout(await link());
      expect(radios(all.body)).to.deep.equal(['credit_card', 'pix', 'boleto']);
      expect(all.body).to.match(/id="payment_method-credit_card"[^>]*checked/);
      const noCard = await openCheckout(await link({ payment_methods: ['boleto', 'pix'] }));
      expect(radios(noCard.body)).to.deep.equal(['pix', 'boleto']);
      expect(noCard.body).to.match(/id="payment_method-pix"[^>]*checked/);
      // Without a card there are no instalments to choose.
      expect(noCard.body).to.not.include('name="installments"');
    });

    it('lists card instalments up to max_installments, each with what every payment is', async () => {
      expect((await openCheckout(await link())).body).to.not.include('name="installments"');
      const page = (await openCheckout(await link({ max_installments: 3 }))).body;
      const options = [...page.matchAll(/<option value="(\d+)"[^>]*>\s*([^<]*?)\s*</g)].map((m) => [
        m[1],
        spaced(m[2] ?? ''),
      ]);
      expect(options).to.deep.equal([
        ['1', 'À vista: R$ 297,00'],
        ['2', '2x de R$ 148,50 sem juros'],
        ['3', '3x de R$ 99,00 sem juros'],
      ]);
      expect(page).to.include('<label for="installments">Parcelas no cartão</label>');
    });

    it('answers a method the link does not offer with a 400 page, and makes no order', async () => {
      const pixOnly = await link({ payment_methods: ['pix'] });
      const before = await orderCount();
      for (const method of ['credit_card', 'boleto']) {
        const res = await pay(pixOnly, { payment_method: method });
        expect(res.status, method).to.equal(400);
        expect(res.headers.get('content-type')).to.match(/^text\/html/);
        expect(res.body).to.include('Esta forma de pagamento não está disponível para este link.');
      }
      // No method at all means a card, which this link does not take either.
      expect((await pay(pixOnly, {})).status).to.equal(400);
      expect(await orderCount()).to.equal(before);
      // The method it offers goes through.
      expect((await pay(pixOnly, { payment_method: 'pix' })).status).to.equal(200);
      expect(await orderCount()).to.equal(before + 1);
    });

    it('answers more instalments than the link offers with a 400 page, and a malformed count with the form', async () => {
      const threeMax = await link({ max_installments: 3, single_use: false });
      const before = await orderCount();
      const tooMany = await pay(threeMax, { payment_method: 'credit_card', installments: '4' });
      expect(tooMany.status).to.equal(400);
      expect(tooMany.body).to.include('Este número de parcelas não está disponível.');
      const malformed = await pay(threeMax, { payment_method: 'credit_card', installments: 'três' });
      expect(malformed.status).to.equal(400);
      expect(malformed.body).to.include('id="installments-error"').and.include('aria-invalid="true"');
      expect(await orderCount()).to.equal(before);
    });
  });

  it('card in 3 instalments: the order records them, in its events, the panel and its page', async () => {
    const l = await link({ max_installments: 3 });
    const res = await pay(l, { payment_method: 'credit_card', installments: '3' });
    expect(res.status).to.equal(200);
    const code = textOf(res.body, 'order-code') ?? '';
    expect(res.body).to.include('data-status="paid"');
    expect(textOf(res.body, 'order-method')).to.equal('Cartão de crédito, 3x de R$ 99,00');
    expect(await panelOrder(code)).to.include({ status: 'paid', installments: 3, pix: null, boleto: null });
    for (const kind of ['order.created', 'order.paid'])
      expect((await delivered(kind, code)).data.order).to.include({ installments: 3 });
    // Pix and boleto record no instalments, whatever the form sent.
    const pixOrder = await pay(await link({ max_installments: 3 }), {
      payment_method: 'pix',
      installments: '3',
    });
    expect((await panelOrder(textOf(pixOrder.body, 'order-code') ?? '')).installments).to.equal(null);
  });

  describe('Pix', () => {
    it('leads to the order’s page: QR code, copia e cola with its copy button, expiry; status stays pending', async () => {
      const l = await link({ pix_expires_in_seconds: 900 });
      const res = await pay(l, { payment_method: 'pix' });
      expect(res.status).to.equal(200);
      const code = textOf(res.body, 'order-code') ?? '';
      const order = await panelOrder(code);
      expect(order.pix).to.not.equal(null);
      const pix = order.pix ?? { copy_paste: '', expires_at: '' };
      expect(Date.parse(pix.expires_at) - Date.parse(order.created_at)).to.equal(900_000);
      const brCode = readStaticPix(pix.copy_paste);
      expect(brCode.transactionAmount).to.equal(297);
      expect(brCode.txid).to.equal(code.replace(/-/g, '').slice(0, 25));
      expect(brCode.merchantName).to.equal(tenant.company.name.slice(0, 25).trim());

      const page = (await orderPage(code)).body;
      expect(textOf(page, 'pix-code')).to.equal(pix.copy_paste);
      expect(spaced(page)).to.match(
        /<img\s+id="pix-qr"\s+src="data:image\/svg\+xml;base64,[^"]+"\s+alt="QR code do Pix de R\$ 297,00"/,
      );
      expect(page).to.match(/<label for="pix-code"/);
      // The copy button appears only where the page's script runs.
      expect(page).to.match(/<button[^>]*data-copy="pix-code"[^>]*hidden/);
      // The shared copy buttons' script, then the order page's own, each under its content's hash.
      expect(page).to.match(
        /<script src="\.\.\/assets\/copy\.[0-9a-f]{12}\.js" defer><\/script>\s*<script src="\.\.\/assets\/order\.[0-9a-f]{12}\.js" defer><\/script>/,
      );
      expect(textOf(page, 'pix-expires')).to.include('horário de Brasília');
      expect(page).to.include(`data-status-url="../orders/${code}/status"`);

      // The status it polls says the status and nothing else.
      const status = await statusOf(code);
      expect(status.status).to.equal(200);
      expect(status.body).to.deep.equal({ status: 'pending' });
      expect(status.headers.get('cache-control')).to.equal('no-store');

      // order.created gave the seller the same code.
      expect((await delivered('order.created', code)).data.order?.pix).to.deep.equal(pix);

      // Paid: the page shows the confirmation, the status says so.
      const paid = await signedCallback(app(), { order_code: code, status: 'paid', payment_method: 'pix' });
      expect(paid.status, paid.text).to.equal(200);
      expect((await statusOf(code)).body).to.deep.equal({ status: 'paid' });
      const confirmed = (await orderPage(code)).body;
      expect(confirmed).to.include('Obrigado pela sua compra!').and.include('data-status="paid"');
      expect(confirmed).to.not.include('id="pix-code"').and.not.include('data-status-url');
    });

    it('serves the order pages with a CSP that runs only the service’s own script, and the script itself', async () => {
      const res = await pay(await link(), { payment_method: 'pix' });
      const code = textOf(res.body, 'order-code') ?? '';
      const page = await orderPage(code);
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp)
        .to.include("script-src 'self'")
        .and.include("connect-src 'self'")
        .and.include('img-src data:');
      expect(csp).to.not.include('unsafe-eval').and.not.include("script-src 'unsafe-inline'");
      // Other buyer pages still run no script at all.
      const checkoutCsp = (await openCheckout(await link())).headers.get('content-security-policy') ?? '';
      expect(checkoutCsp).to.not.include('script-src');
      const script = await app().http.get<string>(payPath(app(), '/assets/order.js'));
      expect(script.status).to.equal(200);
      expect(script.headers.get('content-type')).to.match(/^text\/javascript/);
      expect(script.body).to.include('data-copy').and.include('statusUrl');
    });

    it('is given up at its expiry: order.abandoned, the page says so, and a late payment still pays it', async () => {
      // The shortest expiry a link takes; the order's clock is then moved to a second before it, and
      // the worker's sweep (every 200 ms here) abandons it once it has passed.
      const l = await link({ pix_expires_in_seconds: 60 });
      const res = await pay(l, { payment_method: 'pix' });
      const code = textOf(res.body, 'order-code') ?? '';
      const order = await panelOrder(code);
      expect(Date.parse(order.pix?.expires_at ?? '') - Date.parse(order.created_at)).to.equal(60_000);
      await age(code, 59);
      expect((await statusOf(code)).body).to.deep.equal({ status: 'pending' });
      await delivered('order.abandoned', code);
      expect((await statusOf(code)).body).to.deep.equal({ status: 'abandoned' });
      const page = (await orderPage(code)).body;
      expect(page).to.include('Pedido expirado').and.not.include('id="pix-code"');
      // The way back: the link's checkout, which a single-use link offers again.
      expect(page).to.include(`href="../${offer().code}?plink=${l.id}&amp;lang=pt-BR"`);
      expect(
        (await app().http.get<WireLink>(`/v1/payment-links/${l.id}`, { auth: tenant.keys.live })).body.status,
      ).to.equal('active');

      const late = await signedCallback(app(), { order_code: code, status: 'paid', payment_method: 'pix' });
      expect(late.status, late.text).to.equal(200);
      expect((await statusOf(code)).body).to.deep.equal({ status: 'paid' });
    });

    it('says the code expired while the order waits for its abandonment', async () => {
      const res = await pay(await link({ pix_expires_in_seconds: 60 }), { payment_method: 'pix' });
      const code = textOf(res.body, 'order-code') ?? '';
      // Past the expiry on the page's clock, but not yet abandoned: the sweep waits a second more.
      await app().ctx.pool.query(
        `UPDATE orders SET pix_expires_at = clock_timestamp() - interval '1 millisecond' WHERE code = $1`,
        [code],
      );
      const page = (await orderPage(code)).body;
      expect(page).to.include('O código Pix expirou').and.not.include('id="pix-qr"');
    });
  });

  describe('boleto', () => {
    it('leads to the order’s page: linha digitável, barcode, due date, a printable page; validators accept it', async () => {
      const l = await link({ boleto_due_days: 5, payment_methods: ['boleto'] });
      const res = await pay(l, { payment_method: 'boleto' });
      expect(res.status).to.equal(200);
      const code = textOf(res.body, 'order-code') ?? '';
      const order = await panelOrder(code);
      const boleto = order.boleto ?? { digitable_line: '', barcode: '', due_date: '', url: '' };
      expect(boleto.due_date).to.equal(addDays(brazilDate(new Date(order.created_at)), 5));
      expect(boleto.url).to.equal(`${app().ctx.config.urls.checkout}/orders/${code}/boleto`);
      checkBoleto(boleto, { cents: 29_700 });
      expect((await delivered('order.created', code)).data.order?.boleto).to.deep.equal(boleto);

      const page = (await orderPage(code)).body;
      expect(textOf(page, 'boleto-line')?.replace(/\D/g, '')).to.equal(boleto.digitable_line);
      expect(page).to.include(`data-copy-value="${boleto.digitable_line}"`);
      expect(page).to.match(
        /<img\s+id="boleto-barcode"\s+src="data:image\/svg\+xml;base64,[^"]+"\s+alt="Código de barras do boleto"/,
      );
      expect(page).to.include(`<time datetime="${boleto.due_date}">`);
      expect(page).to.include(`href="../orders/${code}/boleto?lang=pt-BR"`);

      const printable = await app().http.get<string>(pathOf(app(), boleto.url));
      expect(printable.status).to.equal(200);
      expect(printable.body).to.include(tenant.company.name).and.include('id="boleto-barcode"');
      expect(textOf(printable.body, 'boleto-line')?.replace(/\D/g, '')).to.equal(boleto.digitable_line);
      // It names the seller and the order, never the buyer.
      expect(printable.body).to.not.include('Bia Buyer').and.not.include('bia-');
      expect(page).to.not.include('bia-');
    });

    it('is given up three days after its due date (Brasília), not before', async () => {
      const l = await link({ boleto_due_days: 1 });
      const res = await pay(l, { payment_method: 'boleto' });
      const code = textOf(res.body, 'order-code') ?? '';
      const order = await panelOrder(code);
      const deadline = startOfBrazilDay(addDays(order.boleto?.due_date ?? '', 4)).getTime();
      // Still payable a few seconds before the end of the third day after the due date: two sweeps
      // that started after the clock moved looked at it and left it …
      await age(code, Math.floor((deadline - Date.now()) / 1000) - 3);
      await engine.workers.sweeps.outbox.runsFromNow(2);
      expect((await statusOf(code)).body).to.deep.equal({ status: 'pending' });
      // … and given up by the sweep once it has passed.
      await delivered('order.abandoned', code);
      expect((await panelOrder(code)).status).to.equal('abandoned');
    });

    it('has no printable page for an order without a boleto', async () => {
      const res = await pay(await link(), { payment_method: 'pix' });
      const code = textOf(res.body, 'order-code') ?? '';
      expect((await app().http.get<string>(payPath(app(), `/orders/${code}/boleto`))).status).to.equal(404);
    });
  });

  describe('success_url', () => {
    it('sends the buyer there once paid, with link_id and order_code after the URL’s own query', async () => {
      const successUrl = 'https://shop.example.com/obrigado?utm_source=pix';
      const l = await link({ success_url: successUrl });
      const res = await fetch(`${app().url}${payPath(app(), `/${offer().code}/pay`)}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ plink: l.id, name: 'Bia', email: 'bia-card@example.com' }).toString(),
      });
      // The pay step always leads to the order's page …
      expect(res.status).to.equal(303);
      const location = res.headers.get('location') ?? '';
      expect(location).to.match(/^\.\.\/orders\/[0-9a-f-]{36}$/);
      const code = location.slice('../orders/'.length);
      // … which, for a paid order of a link with a success_url, sends the buyer on.
      const order = await fetch(`${app().url}${payPath(app(), `/orders/${code}`)}`, { redirect: 'manual' });
      expect(order.status).to.equal(303);
      expect(order.headers.get('location')).to.equal(`${successUrl}&link_id=${l.id}&order_code=${code}`);
      expect(order.headers.get('referrer-policy')).to.equal('no-referrer');
    });

    it('leaves a pending order on its page', async () => {
      const l = await link({ success_url: 'https://shop.example.com/ok' });
      const res = await pay(l, { payment_method: 'pix' });
      expect(res.status).to.equal(200);
      expect(res.body).to.include('id="pix-code"');
    });
  });

  describe('the order pages’ addresses', () => {
    it('are 404 for an unknown or malformed order code, in HTML for pages and JSON for the status', async () => {
      for (const code of ['00000000-0000-4000-8000-000000000000', 'not-a-code', "1'; DROP TABLE orders;--"]) {
        const page = await app().http.get<string>(payPath(app(), `/orders/${encodeURIComponent(code)}`));
        expect(page.status, code).to.equal(404);
        expect(page.headers.get('content-type')).to.match(/^text\/html/);
        const status = await statusOf(encodeURIComponent(code));
        expect(status.status, code).to.equal(404);
        expect(status.body.error?.type).to.equal('not_found');
      }
    });

    it('answer other methods with 405', async () => {
      const res = await pay(await link(), { payment_method: 'pix' });
      const code = textOf(res.body, 'order-code') ?? '';
      for (const path of [
        `/orders/${code}`,
        `/orders/${code}/status`,
        `/orders/${code}/boleto`,
        '/assets/order.js',
      ]) {
        const refused = await app().http.post<string>(payPath(app(), path), { rawBody: '' });
        expect(refused.status, path).to.equal(405);
        expect(refused.headers.get('allow')).to.equal('GET, HEAD, OPTIONS');
      }
    });

    it('lists orders made by the checkout with their instructions in the panel, paged as before', async () => {
      const list = await app().http.get<List<PanelOrder>>(`${P}/orders?limit=100`, {
        auth: tenant.panel_token,
      });
      expect(list.status).to.equal(200);
      expect(list.body.data.some((o) => o.pix !== null)).to.equal(true);
      expect(list.body.data.some((o) => o.boleto !== null)).to.equal(true);
    });
  });

  it('a checkout opened without a link offers every method with the default deadlines', async () => {
    const { order } = await checkout(app(), tenant, offer().code, null, { payment_method: 'boleto' });
    expect(order.boleto?.due_date).to.equal(addDays(brazilDate(new Date(order.created_at)), 3));
    const pix = await checkout(app(), tenant, offer().code, null, { payment_method: 'pix' });
    expect(Date.parse(pix.order.pix?.expires_at ?? '') - Date.parse(pix.order.created_at)).to.equal(
      1_800_000,
    );
  });
});
