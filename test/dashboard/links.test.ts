import { expect } from 'chai';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import type { SeedResult } from '../../src/cli/seed.js';
import { activeOffer, activePlan } from '../checkout/helpers.js';
import { seed, sharedApp, type TestApp } from '../helpers/app.js';
import { panelRoles } from '../orders/helpers.js';
import { readable, send, signIn, type Session } from './helpers.js';

interface LinkWire {
  id: string;
  status: string;
  url: string;
  offer_code: string | null;
  plan_code: string | null;
  customer: Record<string, string | null>;
  external_reference: string | null;
  metadata: Record<string, string>;
  coupon_code: string | null;
  single_use: boolean;
  expires_at: string;
  payment_methods: string[];
  pix_expires_in_seconds: number;
  boleto_due_days: number;
  max_installments: number;
  success_url: string | null;
}

/** The create form's token: drawn with the form, it makes a resubmission the same link. */
const keyOf = (page: string): string => /name="idempotency_key" value="([^"]+)"/.exec(page)?.[1] ?? '';

/**
 * Payment links without code: created from the form with every option of the API (read back through
 * the payments API), listed, filtered, searched, opened with their address and QR code, canceled.
 */
describe('dashboard payment links', function () {
  this.timeout(30_000);
  let app: TestApp;
  let tenant: SeedResult;
  let owner: Session;

  const apiLink = async (id: string, key: string): Promise<LinkWire> => {
    const res = await app.http.get<LinkWire>(`/v1/payment-links/${id}`, { auth: key });
    expect(res.status).to.equal(200);
    return res.body;
  };

  async function create(session: Session, form: Record<string, string | string[]>): Promise<string> {
    const blank = await send(app, 'GET', `/links/new?mode=${String(form.mode ?? 'live')}`, { session });
    expect(blank.status).to.equal(200);
    const answer = await send(app, 'POST', '/links', {
      session,
      form: { idempotency_key: keyOf(blank.text), ...form },
    });
    expect(answer.status, readable(answer.text)).to.equal(303);
    const id = /\/dashboard\/links\/(plink_[0-9A-Za-z]+)\?/.exec(answer.location ?? '')?.[1];
    expect(id, answer.location ?? '').to.be.a('string');
    return id ?? '';
  }

  before(async () => {
    app = await sharedApp();
    tenant = await seed();
    owner = await signIn(app, tenant.panel_token);
  });

  it('creates a test link with every option the API takes, and the API reads it back the same', async () => {
    const offer = activeOffer(tenant);
    const coupon = tenant.coupons.find((c) => c.active);
    const expires = new Date(Date.now() + 3 * 86_400_000 - 3 * 3_600_000).toISOString().slice(0, 16);
    const id = await create(owner, {
      mode: 'test',
      item: `offer:${offer.code}`,
      coupon_code: coupon?.code ?? '',
      external_reference: 'pedido-123',
      metadata: 'canal=instagram\r\ncampanha = black friday',
      customer_name: 'Bia Compradora',
      customer_email: 'bia@example.com',
      customer_phone: '+55 11 98765-4321',
      customer_document: '',
      payment_methods: ['pix', 'credit_card'],
      pix_expires_in_seconds: '600',
      boleto_due_days: '5',
      max_installments: '6',
      expires_at: expires,
      success_url: 'https://shop.example.com/thanks',
    });
    const link = await apiLink(id, tenant.keys.test);
    expect(link).to.deep.include({
      offer_code: offer.code,
      plan_code: null,
      external_reference: 'pedido-123',
      metadata: { canal: 'instagram', campanha: 'black friday' },
      coupon_code: coupon?.code ?? null,
      single_use: false,
      payment_methods: ['credit_card', 'pix'],
      pix_expires_in_seconds: 600,
      boleto_due_days: 5,
      max_installments: 6,
      success_url: 'https://shop.example.com/thanks',
    });
    expect(link.customer).to.include({ name: 'Bia Compradora', email: 'bia@example.com' });
    expect(link.expires_at).to.equal(new Date(`${expires}:00-03:00`).toISOString());

    const page = await send(app, 'GET', `/links/${id}?mode=test&lang=en&done=link_created`, {
      session: owner,
    });
    expect(page.status).to.equal(200);
    expect(readable(page.text)).to.include('Link created. Share its address or its QR code.');
    // What it sells, by the name the seller gave the offer, its code beside it.
    expect(readable(page.text)).to.include(`Sells ${offer.name} ${offer.code}`);
    expect(page.text).to.include(`id="link-url" readonly value="${link.url}"`);
    expect(page.text).to.match(/data-copy="link-url"/);
    expect(page.text).to.match(
      new RegExp(
        `<img src="data:image/svg\\+xml;base64,[^"]+" alt="QR code of the address ${link.url.replace(/[.?/]/g, '\\$&')}"`,
      ),
    );
  });

  it('makes a plan link with the defaults, and the same form sent twice is the same link', async () => {
    const plan = activePlan(tenant);
    const blank = await send(app, 'GET', '/links/new', { session: owner });
    const form = {
      idempotency_key: keyOf(blank.text),
      mode: 'live',
      item: `plan:${plan.code}`,
      single_use: 'true',
      payment_methods: ['credit_card', 'pix', 'boleto'],
    };
    const first = await send(app, 'POST', '/links', { session: owner, form });
    const again = await send(app, 'POST', '/links', { session: owner, form });
    expect(first.status).to.equal(303);
    expect(again.location).to.equal(first.location);
    const id = /links\/(plink_\w+)/.exec(first.location ?? '')?.[1] ?? '';
    const link = await apiLink(id, tenant.keys.live);
    expect(link).to.deep.include({
      plan_code: plan.code,
      single_use: true,
      max_installments: 1,
      pix_expires_in_seconds: 1800,
      boleto_due_days: 3,
    });
    const page = await send(app, 'GET', `/links/${id}?lang=pt-BR`, { session: owner });
    expect(readable(page.text)).to.include(`Vende ${plan.name} ${plan.code}`);
  });

  it('refuses a form with the API’s own messages, in English and in Portuguese, keeping what was typed', async () => {
    const form = {
      mode: 'test',
      item: '',
      metadata: 'no equals sign',
      max_installments: '13',
      pix_expires_in_seconds: 'soon',
      success_url: 'ftp://files.example.com',
      customer_email: 'not-an-email',
      payment_methods: [] as string[],
      external_reference: 'kept-as-typed',
    };
    const en = await send(app, 'POST', '/links?lang=en', { session: owner, form });
    expect(en.status).to.equal(400);
    const said = readable(en.text);
    for (const problem of [
      'Offer or plan: one of offer_code or plan_code is required',
      'Metadata: each line must be key=value',
      'Card instalments: must be less than or equal to 12',
      'Pix valid for (seconds): must be a number',
      'Address after payment: must be an absolute http or https URL without spaces',
      'E-mail: must be a valid email',
    ])
      expect(said).to.include(problem);
    expect(en.text).to.match(/id="max_installments"[^>]*value="13"[^>]*aria-invalid="true"/);
    expect(en.text).to.include('value="kept-as-typed"');

    const pt = await send(app, 'POST', '/links?lang=pt-BR', { session: owner, form });
    const dito = readable(pt.text);
    for (const problem of [
      'Oferta ou plano: escolha uma oferta ou um plano.',
      'Parcelas no cartão: deve ser no máximo 12.',
      'Validade do Pix (segundos): deve ser um número.',
      'Metadados: cada linha deve ser chave=valor.',
      'E-mail: deve ser um e-mail válido.',
    ])
      expect(dito).to.include(problem);
    expect(dito).not.to.match(/must be|is required/);

    const inactive = tenant.offers.find((o) => o.status !== 'active');
    const refused = await send(app, 'POST', '/links?lang=en', {
      session: owner,
      form: { mode: 'live', item: `offer:${inactive?.code ?? 'x'}`, payment_methods: ['pix'] },
    });
    expect(refused.status).to.equal(400);
    expect(readable(refused.text)).to.include('Offer or plan: this offer is not active');
  });

  it('takes a buyer’s alphanumeric CNPJ (2026) typed with its mask, and says in Portuguese when it is wrong', async () => {
    const offer = activeOffer(tenant);
    const id = await create(owner, {
      mode: 'test',
      item: `offer:${offer.code}`,
      customer_document: '12.abc.345/01de-35',
      payment_methods: ['boleto'],
    });
    expect((await apiLink(id, tenant.keys.test)).customer.document).to.equal('12ABC34501DE35');
    const wrong = await send(app, 'POST', '/links?lang=pt-BR', {
      session: owner,
      form: {
        mode: 'test',
        item: `offer:${offer.code}`,
        customer_document: '12.ABC.345/01DE-36',
        payment_methods: ['boleto'],
      },
    });
    expect(wrong.status).to.equal(400);
    expect(readable(wrong.text)).to.include('CPF ou CNPJ: não é um CNPJ válido.');
    const shape = await send(app, 'POST', '/links?lang=pt-BR', {
      session: owner,
      form: {
        mode: 'test',
        item: `offer:${offer.code}`,
        customer_document: '12ABC',
        payment_methods: ['pix'],
      },
    });
    expect(readable(shape.text)).to.include(
      'CPF ou CNPJ: deve ser um CPF (11 dígitos) ou um CNPJ (14 caracteres: 12 dígitos ou letras e 2 dígitos).',
    );
  });

  it('lists one mode’s links, filtered by status and searched by external reference; cancels one after confirming', async () => {
    const offer = activeOffer(tenant);
    const reference = `search-${Date.now()}`;
    const id = await create(owner, {
      mode: 'test',
      item: `offer:${offer.code}`,
      external_reference: reference,
      payment_methods: ['pix'],
    });
    const searched = await send(app, 'GET', `/links?mode=test&external_reference=${reference}&lang=en`, {
      session: owner,
    });
    expect(searched.status).to.equal(200);
    const rows = [...searched.text.matchAll(/<tr>\s*<td data-label="Link">[\s\S]*?<\/tr>/g)].map((m) => m[0]);
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include(id);
    const live = await send(app, 'GET', `/links?mode=live&external_reference=${reference}`, {
      session: owner,
    });
    expect(live.text).not.to.include(id);

    const confirm = await send(app, 'GET', `/links/${id}/cancel?mode=test&lang=en`, { session: owner });
    expect(confirm.status).to.equal(200);
    expect(readable(confirm.text)).to.include(
      `Cancel link ${id}? Whoever opens its address will no longer be able to pay.`,
    );
    const canceled = await send(app, 'POST', `/links/${id}/cancel`, {
      session: owner,
      form: { mode: 'test' },
    });
    expect(canceled.status).to.equal(303);
    expect(canceled.location).to.equal(`/dashboard/links/${id}?mode=test&done=link_canceled`);
    expect((await apiLink(id, tenant.keys.test)).status).to.equal('canceled');

    const active = await send(app, 'GET', `/links?mode=test&status=active&external_reference=${reference}`, {
      session: owner,
    });
    expect(active.text).not.to.include(id);
    const gone = await send(app, 'GET', `/links?mode=test&status=canceled&external_reference=${reference}`, {
      session: owner,
    });
    expect(gone.text).to.include(id);
    const bad = await send(app, 'GET', '/links?status=lost&lang=en', { session: owner });
    expect(bad.status).to.equal(400);
  });

  it('downloads the QR code as a PNG that scans to the link’s address, and as an SVG', async () => {
    const id = await create(owner, {
      mode: 'test',
      item: `offer:${activeOffer(tenant).code}`,
      payment_methods: ['pix'],
    });
    const link = await apiLink(id, tenant.keys.test);
    const png = await fetch(`${app.url}/dashboard/links/${id}/qr.png?mode=test`, {
      headers: { cookie: owner.cookie },
    });
    expect(png.status).to.equal(200);
    expect(png.headers.get('content-type')).to.equal('image/png');
    expect(png.headers.get('content-disposition')).to.equal(`attachment; filename="${id}.png"`);
    const image = PNG.sync.read(Buffer.from(await png.arrayBuffer()));
    expect(jsQR.default(new Uint8ClampedArray(image.data), image.width, image.height)?.data).to.equal(
      link.url,
    );
    const svg = await send(app, 'GET', `/links/${id}/qr.svg?mode=test`, { session: owner });
    expect(svg.status).to.equal(200);
    expect(svg.headers.get('content-type')).to.match(/^image\/svg\+xml/);
    expect(svg.text).to.match(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    const elsewhere = await send(app, 'GET', `/links/${id}/qr.svg?mode=live`, { session: owner });
    expect(elsewhere.status).to.equal(404);
  });

  it('lets owners and members create and cancel; a read-only sign-in sees every link page and no changing form (403 if it tries)', async () => {
    const roles = await panelRoles(app, tenant);
    const id = await create(owner, {
      mode: 'test',
      item: `offer:${activeOffer(tenant).code}`,
      payment_methods: ['pix'],
    });
    for (const [role, credential] of Object.entries(roles)) {
      const session = await signIn(app, credential);
      const canChange = role !== 'readOnly';
      for (const path of ['/links?mode=test&lang=en', `/links/${id}?mode=test&lang=en`]) {
        const page = await send(app, 'GET', path, { session });
        expect(page.status, `${role} ${path}`).to.equal(200);
        const forms = [...page.text.matchAll(/<form method="(get|post)" action="([^"]+)"/g)].map(
          (m) => `${m[1]} ${m[2]}`,
        );
        // Changing: a POST other than signing out, or the first step to a confirmation page.
        const changing = forms.filter(
          (f) => (f.startsWith('post') && !f.includes('/sign-out')) || f.includes('/cancel'),
        );
        expect(changing.length > 0, `${role} ${path}: ${forms.join(' ')}`).to.equal(canChange);
        expect(page.text.includes('/links/new'), `${role} ${path}`).to.equal(
          canChange && path.startsWith('/links?'),
        );
      }
      for (const path of ['/links/new', `/links/${id}/cancel?mode=test`]) {
        expect((await send(app, 'GET', path, { session })).status, `${role} GET ${path}`).to.equal(
          canChange ? 200 : 403,
        );
      }
      if (!canChange) {
        const post = await send(app, 'POST', '/links', {
          session,
          form: { mode: 'test', item: `offer:${activeOffer(tenant).code}` },
        });
        expect(post.status).to.equal(403);
        const cancel = await send(app, 'POST', `/links/${id}/cancel`, { session, form: { mode: 'test' } });
        expect(cancel.status).to.equal(403);
      }
    }
    const member = await signIn(app, roles.member);
    const made = await create(member, {
      mode: 'test',
      item: `offer:${activeOffer(tenant).code}`,
      payment_methods: ['boleto'],
    });
    const canceled = await send(app, 'POST', `/links/${made}/cancel`, {
      session: member,
      form: { mode: 'test' },
    });
    expect(canceled.status).to.equal(303);
  });
});
