import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
import { seed, sharedApp, type TestApp } from '../helpers/app.js';
import {
  activeOffer,
  activePlan,
  createLink,
  formActions,
  pathOf,
  payPath,
  postForm,
  renderedUrls,
  type WireLink,
} from './helpers.js';

const CUSTOMER = {
  name: 'Maria Buyer',
  email: 'maria.buyer@example.com',
  phone: '+55 11 98765-4321',
  document: '529.982.247-25',
};
const BUYER_VALUES = ['Maria', 'maria.buyer', '98765', '5511987654321', '52998224725', 'example.com'];
const brl = (locale: string, amount: string): string =>
  new Intl.NumberFormat(locale, { style: 'currency', currency: 'BRL' }).format(Number(amount));

describe('Checkout page {checkout_url}/:code?plink=<id>', function () {
  let app: TestApp;
  let tenant: SeedResult;

  before(async () => {
    app = await sharedApp();
    tenant = await seed();
  });

  const liveLink = (body: Record<string, unknown> = {}): Promise<WireLink> =>
    createLink(app, tenant.keys.live, { offer_code: activeOffer(tenant).code, customer: CUSTOMER, ...body });

  /** A link's page as an English-speaking browser asks for it. */
  const open = (link: WireLink, language = 'en') =>
    app.http.get<string>(pathOf(app, link.url), { headers: { 'accept-language': language } });
  const payIn = (code: string, language = 'en') => payPath(app, `/${code}/pay?lang=${language}`);

  it('shows product, offer, the coupon price and the prefilled buyer fields, fetched by the link id', async () => {
    const offer = activeOffer(tenant);
    const coupon = tenant.coupons[0]?.code ?? '';
    const link = await liveLink({ coupon_code: coupon });

    const res = await open(link);

    expect(res.status).to.equal(200);
    expect(res.body).to.include(offer.name).and.include('Online course');
    // 10 % off 297.00, in reais as Intl writes them for each language.
    expect(offer.price).to.equal('297.00');
    expect(res.body).to.include('id="price">R$267.30<').and.include('id="list-price">R$297.00<');
    expect(res.body).to.include(`Discount (coupon ${coupon})`).and.include('id="discount">-R$29.70<');
    expect(res.body).to.include('Pay R$267.30');
    const pt = await open(link, 'pt-BR,pt;q=0.9');
    expect(pt.body)
      .to.include(`id="price">${brl('pt-BR', '267.30')}<`)
      .and.include('R$\u00a0267,30');
    expect(pt.body).to.include(`id="list-price">${brl('pt-BR', '297.00')}<`);
    expect(pt.body).to.include(`Desconto (cupom ${coupon})`).and.include('Pagar R$\u00a0267,30');
    expect(res.body).to.include('value="Maria Buyer"').and.include('value="maria.buyer@example.com"');
    expect(res.body).to.include('value="+5511987654321"').and.include('value="52998224725"');
    expect(res.body).to.include(`name="plink" value="${link.id}"`);
    // Relative, so the form posts back to whatever host the page was opened under.
    expect(formActions(res.body)).to.deep.equal([`./${offer.code}/pay`]);
  });

  it('never puts buyer data in any address it renders or redirects to', async () => {
    const link = await liveLink();
    for (const url of [link.url, link.short_url]) for (const v of BUYER_VALUES) expect(url).not.to.include(v);

    const page = await open(link);
    const thanks = await postForm(app, payIn(activeOffer(tenant).code), {
      plink: link.id,
      ...CUSTOMER,
    });
    expect(thanks.status).to.equal(200);
    const urls = [...renderedUrls(page.body), ...renderedUrls(thanks.body)];
    expect(urls.length).to.be.greaterThan(0);
    for (const url of urls) for (const v of BUYER_VALUES) expect(url, url).not.to.include(v);
    expect(page.body).not.to.match(/method="get"/i);
  });

  it('opens a plan link on the plan checkout with its billing cycle', async () => {
    const plan = activePlan(tenant);
    const link = await createLink(app, tenant.keys.live, { plan_code: plan.code });
    const res = await open(link);
    expect(res.status).to.equal(200);
    expect(res.body)
      .to.include(plan.name)
      .and.include(`${brl('en', plan.price)}</span> <span class="cycle">per month`);
    expect((await open(link, 'pt-BR')).body).to.include(
      `${brl('pt-BR', plan.price)}</span> <span class="cycle">por mês`,
    );
  });

  it('refuses a test link, an unknown link and a code that is not the link’s', async () => {
    const test = await createLink(app, tenant.keys.test, { offer_code: activeOffer(tenant).code });
    const live = await liveLink();
    const code = activeOffer(tenant).code;
    const other = tenant.offers.filter((o) => o.status === 'active')[1]?.code ?? '';

    const testRes = await app.http.get<string>(payPath(app, `/${code}?plink=${test.id}&lang=en`));
    expect(testRes.status).to.equal(404);
    expect(testRes.body)
      .to.include('<h1>Page not found</h1>')
      .and.include('This payment link does not exist');
    expect(
      (await app.http.get<string>(payPath(app, `/${code}?plink=plink_000000000000000000000000`))).status,
    ).to.equal(404);
    const mismatch = await app.http.get<string>(payPath(app, `/${other}?plink=${live.id}`));
    expect(mismatch.status).to.equal(400);
    expect(mismatch.body).to.include('outra oferta ou plano');
    // Paying a test link through the real checkout is refused as well.
    const pay = await postForm(app, payIn(code), { plink: test.id, ...CUSTOMER });
    expect(pay.status).to.equal(404);
  });

  it('shows a notice and no pay form for canceled, expired and paid single-use links', async () => {
    const canceled = await liveLink();
    await app.http.post(`/v1/payment-links/${canceled.id}/cancel`, { auth: tenant.keys.live });
    const expired = await liveLink();
    await app.ctx.pool.query(
      `UPDATE payment_links SET expires_at = now() - interval '1 minute' WHERE id = $1`,
      [expired.id],
    );
    const paid = await liveLink();
    const first = await postForm(app, payIn(activeOffer(tenant).code), {
      plink: paid.id,
      ...CUSTOMER,
    });
    expect(first.status).to.equal(200);

    for (const [link, words] of [
      [canceled, 'canceled'],
      [expired, 'expired'],
      [paid, 'already been paid'],
    ] as const) {
      const res = await open(link);
      expect(res.status, words).to.equal(200);
      expect(res.body).to.include('class="notice"').and.include(words);
      expect(formActions(res.body), words).to.have.length(0);
      const again = await postForm(app, payIn(activeOffer(tenant).code), {
        plink: link.id,
        ...CUSTOMER,
      });
      expect(again.status, words).to.equal(409);
      expect(again.body).to.include(words);
    }
    const read = await app.http.get<WireLink>(`/v1/payment-links/${expired.id}`, { auth: tenant.keys.live });
    expect(read.body.status).to.equal('expired');
  });

  it('without plink shows an active offer with an empty form, and 404 for an inactive or unknown code', async () => {
    const res = await app.http.get<string>(payPath(app, `/${activeOffer(tenant).code}`));
    expect(res.status).to.equal(200);
    expect(res.body).to.include('name="name"').and.not.include('name="plink"');
    expect(res.body).to.match(/id="name"\s+name="name"\s+type="text"\s+value=""/);
    const inactive = tenant.offers.find((o) => o.status !== 'active')?.code ?? '';
    expect((await app.http.get<string>(payPath(app, `/${inactive}`))).status).to.equal(404);
    expect((await app.http.get<string>(payPath(app, '/of_doesnotexist'))).status).to.equal(404);
  });

  it('shows the form again with the entries and a message under a field that is wrong', async () => {
    const link = await liveLink();
    const wrong = { plink: link.id, name: 'Maria Buyer', email: 'not-an-email', document: '111.111.111-11' };
    const res = await postForm(app, payIn(activeOffer(tenant).code), wrong);
    expect(res.status).to.equal(400);
    expect(res.body).to.include('value="not-an-email"');
    // Each message is in the buyer's words, next to its field and tied to it for assistive technology.
    expect(res.body).to.include('<p class="error" id="email-error">Enter a valid email address');
    expect(res.body).to.include(
      '<p class="error" id="document-error">This CPF is not valid. Check the digits.',
    );
    expect(res.body).to.match(/id="email"[^>]*aria-describedby="email-error"[^>]*aria-invalid="true"/);
    expect(res.body).to.match(/id="document"[^>]*aria-describedby="document-hint document-error"/);
    expect(res.body).to.include('href="#email">Email: Enter a valid email address');
    expect(res.body).not.to.include('must be a valid email');
    const pt = await postForm(app, payIn(activeOffer(tenant).code, 'pt-BR'), { ...wrong, name: '' });
    expect(pt.body).to.include('Informe seu nome.').and.include('Informe um e-mail válido');
    expect(pt.body).to.include('Este CPF não é válido.');
    const read = await app.http.get<WireLink>(`/v1/payment-links/${link.id}`, { auth: tenant.keys.live });
    expect(read.body).to.include({ status: 'active', order: null });
  });

  it('says what is wrong with each field in the buyer’s words, never in the validator’s', async () => {
    const link = await liveLink();
    const res = await postForm(app, payIn(activeOffer(tenant).code), {
      plink: link.id,
      name: 'x'.repeat(201),
      email: '',
      phone: 'call me',
      document: '11.111.111/1111-11',
      payment_method: 'cash',
    });
    expect(res.status).to.equal(400);
    for (const [field, message] of [
      ['name', 'Use at most 200 characters.'],
      ['email', 'Enter your email address.'],
      ['phone', 'Enter the phone number with country and area code, like +55 11 98765-4321.'],
      ['document', 'This CNPJ is not valid. Check its digits and letters.'],
      ['payment_method', 'Choose credit card, Pix or boleto.'],
    ])
      expect(res.body, field).to.include(`id="${field}-error">${message}<`);
    expect(res.body).to.match(/<fieldset aria-describedby="payment_method-error">/);
    const shape = await postForm(app, payIn(activeOffer(tenant).code, 'pt-BR'), {
      plink: link.id,
      ...CUSTOMER,
      document: '123',
    });
    expect(shape.body).to.include(
      'id="document-error">Informe um CPF (11 dígitos) ou um CNPJ (14 caracteres, com ou sem letras).<',
    );
  });

  it('charges a single-use link once when its pay form is submitted twice at the same time', async () => {
    const link = await liveLink();
    const submit = () =>
      postForm(app, payPath(app, `/${activeOffer(tenant).code}/pay`), { plink: link.id, ...CUSTOMER });
    const results = await Promise.all([submit(), submit()]);
    expect(results.map((r) => r.status).sort()).to.deep.equal([200, 409]);
    const orders = await app.ctx.pool.query<{ status: string }>(
      `SELECT status FROM orders WHERE payment_link_id = $1`,
      [link.id],
    );
    expect(orders.rows).to.deep.equal([{ status: 'paid' }]);
  });

  it('shows a notice and no pay form when the offer, its product or the company stopped selling', async () => {
    for (const stop of [
      `UPDATE offers SET status = 'inactive' WHERE company_id = $1`,
      `UPDATE products SET active = false WHERE company_id = $1`,
      `UPDATE companies SET active = false WHERE id = $1`,
    ]) {
      const other = await seed();
      const link = await createLink(app, other.keys.live, { offer_code: activeOffer(other).code });
      await app.ctx.pool.query(stop, [other.company.id]);
      const res = await open(link);
      expect(res.status, stop).to.equal(200);
      expect(res.body, stop).to.include('class="notice"').and.include('This offer is no longer available.');
      expect(formActions(res.body), stop).to.have.length(0);
      expect((await app.http.get<string>(payPath(app, `/${activeOffer(other).code}`))).status, stop).to.equal(
        404,
      );
    }
  });
});
