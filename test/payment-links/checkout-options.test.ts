import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
import { seed, sharedApp, startTestApp, type TestApp } from '../helpers/app.js';
import { activeOffer, countLinks, createLink, type ErrorBody, type LinkBody } from './helpers.js';

/** The checkout options of a link, with the defaults a link gets when it names none. */
const DEFAULTS = {
  payment_methods: ['credit_card', 'pix', 'boleto'],
  pix_expires_in_seconds: 1800,
  boleto_due_days: 3,
  max_installments: 1,
  success_url: null,
};

/** Each bounded option: the smallest and largest value it takes. */
const BOUNDS = [
  ['pix_expires_in_seconds', 60, 1_209_600],
  ['boleto_due_days', 1, 30],
  ['max_installments', 1, 12],
] as const;

describe('POST /v1/payment-links: checkout options', () => {
  let app: TestApp;
  let tenant: SeedResult;

  before(async () => {
    app = await sharedApp();
    tenant = await seed();
  });

  const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    app.http.post<LinkBody & ErrorBody>('/v1/payment-links', {
      auth: tenant.keys.live,
      body: { offer_code: activeOffer(tenant), ...body },
      headers,
    });

  /** Posts and expects 400 naming `field` (or an item of it, `payment_methods.1`), and no link written. */
  async function rejects(body: Record<string, unknown>, field: string): Promise<void> {
    const before = await countLinks(app, tenant.company.id);
    const res = await post(body);
    expect(res.status, `${JSON.stringify(body)}: ${res.text}`).to.equal(400);
    expect(res.body.error.type).to.equal('validation_error');
    const named = Object.keys(res.body.error.fields ?? {});
    expect(
      named.some((name) => name === field || name.startsWith(`${field}.`)),
      res.text,
    ).to.equal(true);
    expect(await countLinks(app, tenant.company.id)).to.equal(before);
  }

  const options = (link: LinkBody) => ({
    payment_methods: link.payment_methods,
    pix_expires_in_seconds: link.pix_expires_in_seconds,
    boleto_due_days: link.boleto_due_days,
    max_installments: link.max_installments,
    success_url: link.success_url,
  });

  it('gives a link that names none the defaults, and shows them on every read', async () => {
    const link = await createLink(app, tenant.keys.live, { offer_code: activeOffer(tenant) });
    expect(options(link)).to.deep.equal(DEFAULTS);
    const read = await app.http.get<LinkBody>(`/v1/payment-links/${link.id}`, { auth: tenant.keys.live });
    expect(options(read.body)).to.deep.equal(DEFAULTS);
    const list = await app.http.get<{ data: LinkBody[] }>('/v1/payment-links?limit=1', {
      auth: tenant.keys.live,
    });
    expect(list.body.data[0]?.id).to.equal(link.id);
    expect(options(list.body.data[0] ?? link)).to.deep.equal(DEFAULTS);
  });

  it('echoes every option as given, the methods in the checkout’s order', async () => {
    const given = {
      payment_methods: ['boleto', 'pix'],
      pix_expires_in_seconds: 600,
      boleto_due_days: 5,
      max_installments: 6,
      success_url: 'https://shop.example.com/obrigado?utm_source=pix',
    };
    const res = await post(given);
    expect(res.status, res.text).to.equal(201);
    expect(options(res.body)).to.deep.equal({ ...given, payment_methods: ['pix', 'boleto'] });
    const read = await app.http.get<LinkBody>(`/v1/payment-links/${res.body.id}`, {
      auth: tenant.keys.live,
    });
    expect(options(read.body)).to.deep.equal(options(res.body));
  });

  for (const [field, min, max] of BOUNDS) {
    it(`takes ${field} from ${min} to ${max} and refuses anything else with 400 naming it`, async () => {
      for (const value of [min, max]) {
        const res = await post({ [field]: value });
        expect(res.status, res.text).to.equal(201);
        expect(res.body[field]).to.equal(value);
      }
      for (const value of [min - 1, max + 1, 2.5, '10', null, true, -1])
        await rejects({ [field]: value }, field);
    });
  }

  it('takes any non-empty set of the three methods, and refuses an empty, repeated or unknown one', async () => {
    for (const methods of [['credit_card'], ['pix'], ['boleto'], ['pix', 'credit_card']]) {
      const res = await post({ payment_methods: methods });
      expect(res.status, res.text).to.equal(201);
      expect(res.body.payment_methods).to.have.members(methods);
    }
    for (const methods of [[], ['pix', 'pix'], ['debit_card'], ['PIX'], 'pix', null, [1]])
      await rejects({ payment_methods: methods }, 'payment_methods');
  });

  it('takes an absolute http(s) URL as success_url (null for none), and refuses anything else', async () => {
    for (const url of ['https://shop.example.com/ok', 'http://localhost:8080/thanks?a=1#top', null]) {
      const res = await post({ success_url: url });
      expect(res.status, res.text).to.equal(201);
      expect(res.body.success_url).to.equal(url);
    }
    for (const url of [
      '',
      '/relative/path',
      'shop.example.com/ok',
      'ftp://shop.example.com/ok',
      'javascript:alert(1)',
      'https:shop.example.com',
      'https://user:secret@shop.example.com/',
      ' https://shop.example.com/',
      'https://shop.example.com/a b',
      'https://shop.example.com/\nSet-Cookie: a=b',
      `https://shop.example.com/${'a'.repeat(2048)}`,
      42,
    ])
      await rejects({ success_url: url }, 'success_url');
  });

  it('reports every bad option at once', async () => {
    const res = await post({
      payment_methods: [],
      pix_expires_in_seconds: 1,
      boleto_due_days: 0,
      max_installments: 13,
      success_url: 'nope',
    });
    expect(res.status).to.equal(400);
    expect(Object.keys(res.body.error.fields ?? {})).to.include.members([
      'payment_methods',
      'pix_expires_in_seconds',
      'boleto_due_days',
      'max_installments',
      'success_url',
    ]);
  });

  it('counts the options in the Idempotency-Key’s body: the same options replay, other options conflict', async () => {
    const key = `options-${Date.now()}`;
    const body = { payment_methods: ['pix'], pix_expires_in_seconds: 120 };
    const first = await post(body, { 'Idempotency-Key': key });
    expect(first.status).to.equal(201);
    const replay = await post(
      { pix_expires_in_seconds: 120, payment_methods: ['pix'] },
      { 'Idempotency-Key': key },
    );
    expect(replay.status).to.equal(200);
    expect(replay.body.id).to.equal(first.body.id);
    const other = await post({ ...body, pix_expires_in_seconds: 121 }, { 'Idempotency-Key': key });
    expect(other.status).to.equal(409);
  });

  it('in production, refuses a plain-http success_url', async () => {
    const production = await startTestApp({
      NODE_ENV: 'production',
      DEV_GATEWAY: 'false',
      GATEWAY_WEBHOOK_SECRET: 'production-gateway-secret-0123',
    });
    try {
      const other = await seed();
      const send = (success_url: string) =>
        production.http.post<LinkBody & ErrorBody>('/v1/payment-links', {
          auth: other.keys.live,
          body: { offer_code: activeOffer(other), success_url },
        });
      const plain = await send('http://shop.example.com/ok');
      expect(plain.status, plain.text).to.equal(400);
      expect(plain.body.error.fields).to.deep.equal({ success_url: ['must be an https URL'] });
      const secure = await send('https://shop.example.com/ok');
      expect(secure.status, secure.text).to.equal(201);
    } finally {
      await production.close();
    }
  });
});
