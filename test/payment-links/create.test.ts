import { generateCnpj } from '@brazilian-utils/brazilian-utils';
import { expect } from 'chai';
import fc from 'fast-check';
import type { SeedResult } from '../../src/cli/seed.js';
import { seed, sharedApp, type TestApp } from '../helpers/app.js';
import {
  activeOffer,
  activePlan,
  backdateExpiry,
  countLinks,
  createLink,
  inactiveOffer,
  inactivePlan,
  VALID_CNPJ,
  VALID_CPF,
  type ErrorBody,
  type LinkBody,
} from './helpers.js';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('POST /v1/payment-links', () => {
  let app: TestApp;
  let tenant: SeedResult;
  let other: SeedResult;

  before(async () => {
    app = await sharedApp();
    tenant = await seed();
    other = await seed();
  });

  const post = (body: unknown, headers: Record<string, string> = {}, key = tenant.keys.test) =>
    app.http.post<LinkBody & ErrorBody>('/v1/payment-links', { auth: key, body, headers });

  /** Posts and expects 400 naming exactly `field` (among possibly others). */
  async function rejects(body: unknown, field: string): Promise<ErrorBody> {
    const res = await post(body);
    expect(res.status, res.text).to.equal(400);
    expect(res.body.error.type).to.equal('validation_error');
    expect(res.body.error.fields, res.text).to.have.property(field);
    return res.body;
  }

  describe('success', () => {
    it('creates an active link for an active offer with 201 and the full PaymentLink', async () => {
      const res = await post({ offer_code: activeOffer(tenant) }, {}, tenant.keys.live);
      expect(res.status).to.equal(201);
      const link = res.body;
      expect(link).to.include({
        object: 'payment_link',
        livemode: true,
        status: 'active',
        type: 'offer',
        offer_code: activeOffer(tenant),
        plan_code: null,
        external_reference: null,
        coupon_code: null,
        single_use: true,
        paid_at: null,
        canceled_at: null,
        order: null,
      });
      expect(link.id).to.match(/^plink_[0-9A-Za-z]{24}$/);
      expect(link.customer).to.deep.equal({ name: null, email: null, phone: null, document: null });
      expect(link.metadata).to.deep.equal({});
    });

    it('gives a live link the checkout url of its offer carrying only the link id', async () => {
      const link = await createLink(app, tenant.keys.live, {
        offer_code: activeOffer(tenant),
        customer: { email: 'a@b.co' },
      });
      expect(link.url).to.equal(`${app.ctx.config.urls.checkout}/${activeOffer(tenant)}?plink=${link.id}`);
      expect(link.url).to.not.include('a@b.co');
    });

    it('gives a test link the simulation page url and livemode false', async () => {
      const link = await createLink(app, tenant.keys.test, { offer_code: activeOffer(tenant) });
      expect(link.livemode).to.equal(false);
      expect(link.url).to.equal(`${app.ctx.config.urls.checkout}/teste/${link.id}`);
    });

    it('gives a short_url of the form {checkout_url}/r/<8 base62 characters>', async () => {
      const link = await createLink(app, tenant.keys.test, { offer_code: activeOffer(tenant) });
      expect(link.short_url).to.match(new RegExp(`^${app.ctx.config.urls.checkout}/r/[0-9A-Za-z]{8}$`));
    });

    it('creates a plan link with type plan and the plan checkout url', async () => {
      const link = await createLink(app, tenant.keys.live, { plan_code: activePlan(tenant) });
      expect(link).to.include({ type: 'plan', plan_code: activePlan(tenant), offer_code: null });
      expect(link.url).to.equal(`${app.ctx.config.urls.checkout}/${activePlan(tenant)}?plink=${link.id}`);
    });

    it('defaults expires_at to 7 days after created_at, in UTC', async () => {
      const link = await createLink(app, tenant.keys.test, { offer_code: activeOffer(tenant) });
      expect(link.expires_at).to.match(/Z$/);
      const validity = Date.parse(link.expires_at ?? '') - Date.parse(link.created_at);
      expect(Math.abs(validity - 7 * DAY_MS)).to.be.below(1000);
    });

    it('returns an expires_at given with an offset in UTC', async () => {
      const at = new Date(Date.now() + 3 * DAY_MS);
      at.setUTCMilliseconds(0);
      const local = new Date(at.getTime() - 3 * 3600 * 1000)
        .toISOString()
        .replace('Z', '-03:00')
        .replace('.000', '');
      const link = await createLink(app, tenant.keys.test, {
        offer_code: activeOffer(tenant),
        expires_at: local,
      });
      expect(link.expires_at).to.equal(at.toISOString());
    });

    it('accepts expires_at just under 90 days ahead', async () => {
      const at = new Date(Date.now() + 90 * DAY_MS - 60_000).toISOString();
      const link = await createLink(app, tenant.keys.test, {
        offer_code: activeOffer(tenant),
        expires_at: at,
      });
      expect(link.expires_at).to.equal(at);
    });

    it('keeps external_reference, metadata, coupon_code and single_use false', async () => {
      const metadata = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, `v${i}`]));
      const link = await createLink(app, tenant.keys.test, {
        offer_code: activeOffer(tenant),
        external_reference: 'r'.repeat(128),
        metadata,
        coupon_code: tenant.coupons[0]?.code,
        single_use: false,
      });
      expect(link.external_reference).to.equal('r'.repeat(128));
      expect(link.metadata).to.deep.equal(metadata);
      expect(link.coupon_code).to.equal(tenant.coupons[0]?.code);
      expect(link.single_use).to.equal(false);
    });

    it('accepts metadata keys of 40 and values of 500 characters', async () => {
      const metadata = { ['k'.repeat(40)]: 'v'.repeat(500) };
      const link = await createLink(app, tenant.keys.test, { offer_code: activeOffer(tenant), metadata });
      expect(link.metadata).to.deep.equal(metadata);
    });
  });

  describe('customer prefill', () => {
    it('normalises the phone to + and digits', async () => {
      const link = await createLink(app, tenant.keys.test, {
        offer_code: activeOffer(tenant),
        customer: { phone: '+55 (11) 98765-4321' },
      });
      expect(link.customer.phone).to.equal('+5511987654321');
    });

    it('adds the plus sign to a phone sent as bare digits', async () => {
      const link = await createLink(app, tenant.keys.test, {
        offer_code: activeOffer(tenant),
        customer: { phone: '5511987654321' },
      });
      expect(link.customer.phone).to.equal('+5511987654321');
    });

    it('returns a formatted CPF as digits only', async () => {
      const link = await createLink(app, tenant.keys.test, {
        offer_code: activeOffer(tenant),
        customer: { document: VALID_CPF },
      });
      expect(link.customer.document).to.equal('52998224725');
    });

    it('returns a formatted CNPJ as digits only', async () => {
      const link = await createLink(app, tenant.keys.test, {
        offer_code: activeOffer(tenant),
        customer: { document: VALID_CNPJ },
      });
      expect(link.customer.document).to.equal('11222333000181');
    });

    it('takes an alphanumeric CNPJ (2026) with separators, returned without them and upper-cased', async () => {
      // The Receita Federal's published example, typed in lower case with its mask.
      const link = await createLink(app, tenant.keys.test, {
        offer_code: activeOffer(tenant),
        customer: { document: '12.abc.345/01de-35' },
      });
      expect(link.customer.document).to.equal('12ABC34501DE35');
      const generated = generateCnpj(2);
      const other = await createLink(app, tenant.keys.test, {
        offer_code: activeOffer(tenant),
        customer: { document: generated },
      });
      expect(other.customer.document).to.equal(generated);
      const read = await app.http.get<{ customer: { document: string } }>(`/v1/payment-links/${link.id}`, {
        auth: tenant.keys.test,
      });
      expect(read.body.customer.document).to.equal('12ABC34501DE35');
    });

    it('lower-cases the e-mail domain and keeps the local part', async () => {
      const link = await createLink(app, tenant.keys.test, {
        offer_code: activeOffer(tenant),
        customer: { name: 'Ana Souza', email: 'Ana.Souza@Example.COM' },
      });
      expect(link.customer).to.deep.include({ name: 'Ana Souza', email: 'Ana.Souza@example.com' });
    });

    it('rejects a phone with fewer than 10 digits', () =>
      rejects({ offer_code: activeOffer(tenant), customer: { phone: '11 9876-543' } }, 'customer.phone'));
    it('rejects a phone with more than 15 digits', () =>
      rejects(
        { offer_code: activeOffer(tenant), customer: { phone: '+55 11 98765 43210 99' } },
        'customer.phone',
      ));
    it('rejects a phone with letters', () =>
      rejects({ offer_code: activeOffer(tenant), customer: { phone: '+55 11 CALL-NOW' } }, 'customer.phone'));
    it('rejects a CPF with a wrong check digit', () =>
      rejects(
        { offer_code: activeOffer(tenant), customer: { document: '529.982.247-24' } },
        'customer.document',
      ));
    it('rejects a CPF made of one repeated digit', () =>
      rejects(
        { offer_code: activeOffer(tenant), customer: { document: '111.111.111-11' } },
        'customer.document',
      ));
    it('rejects a CNPJ with a wrong check digit', () =>
      rejects(
        { offer_code: activeOffer(tenant), customer: { document: '11.222.333/0001-80' } },
        'customer.document',
      ));
    it('rejects an alphanumeric CNPJ with a wrong check digit', () =>
      rejects(
        { offer_code: activeOffer(tenant), customer: { document: '12.ABC.345/01DE-36' } },
        'customer.document',
      ));
    it('rejects an alphanumeric CNPJ with a letter among its check digits', () =>
      rejects(
        { offer_code: activeOffer(tenant), customer: { document: '12ABC34501DE3A' } },
        'customer.document',
      ));
    it('rejects a CNPJ with a character outside 0-9 and A-Z', () =>
      rejects(
        { offer_code: activeOffer(tenant), customer: { document: '12ÁBC34501DE35' } },
        'customer.document',
      ));
    it('rejects letters in a CPF-length document', () =>
      rejects(
        { offer_code: activeOffer(tenant), customer: { document: '529982247AB' } },
        'customer.document',
      ));
    it('rejects a document that is neither 11 nor 14 digits', () =>
      rejects(
        { offer_code: activeOffer(tenant), customer: { document: '1234567890' } },
        'customer.document',
      ));
    it('rejects an invalid e-mail', () =>
      rejects({ offer_code: activeOffer(tenant), customer: { email: 'not-an-email' } }, 'customer.email'));
    it('rejects unknown customer fields', () =>
      rejects({ offer_code: activeOffer(tenant), customer: { cpf: VALID_CPF } }, 'customer.cpf'));
  });

  describe('validation', () => {
    it('rejects a body with neither offer_code nor plan_code, naming both', async () => {
      const body = await rejects({}, 'offer_code');
      expect(body.error.fields).to.have.property('plan_code');
    });

    it('rejects a request without a body, naming offer_code and plan_code', async () => {
      const res = await app.http.post<ErrorBody>('/v1/payment-links', { auth: tenant.keys.test });
      expect(res.status).to.equal(400);
      expect(res.body.error.fields).to.have.keys('offer_code', 'plan_code');
    });

    it('rejects a body with both offer_code and plan_code, naming both', async () => {
      const body = await rejects(
        { offer_code: activeOffer(tenant), plan_code: activePlan(tenant) },
        'offer_code',
      );
      expect(body.error.fields).to.have.property('plan_code');
    });

    it('rejects an unknown offer under offer_code', () =>
      rejects({ offer_code: 'of_doesnotexist' }, 'offer_code'));
    it('rejects an inactive offer under offer_code', () =>
      rejects({ offer_code: inactiveOffer(tenant) }, 'offer_code'));
    it("rejects another company's offer under offer_code", () =>
      rejects({ offer_code: activeOffer(other) }, 'offer_code'));
    it('rejects an unknown plan under plan_code', () =>
      rejects({ plan_code: 'pl_doesnotexist' }, 'plan_code'));
    it('rejects an inactive plan under plan_code', () =>
      rejects({ plan_code: inactivePlan(tenant) }, 'plan_code'));
    it("rejects another company's plan under plan_code", () =>
      rejects({ plan_code: activePlan(other) }, 'plan_code'));
    it('rejects a non-string offer_code', () => rejects({ offer_code: 42 }, 'offer_code'));

    it('rejects an external_reference over 128 characters', () =>
      rejects(
        { offer_code: activeOffer(tenant), external_reference: 'r'.repeat(129) },
        'external_reference',
      ));

    it('rejects metadata with 21 pairs', () =>
      rejects(
        {
          offer_code: activeOffer(tenant),
          metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])),
        },
        'metadata',
      ));
    it('rejects metadata with a non-string value', () =>
      rejects({ offer_code: activeOffer(tenant), metadata: { n: 1 } }, 'metadata'));
    it('rejects metadata with a key over 40 characters', () =>
      rejects({ offer_code: activeOffer(tenant), metadata: { ['k'.repeat(41)]: 'v' } }, 'metadata'));
    it('rejects metadata with a value over 500 characters', () =>
      rejects({ offer_code: activeOffer(tenant), metadata: { k: 'v'.repeat(501) } }, 'metadata'));
    it('rejects metadata that is not an object', () =>
      rejects({ offer_code: activeOffer(tenant), metadata: ['a'] }, 'metadata'));

    it('rejects an unknown coupon under coupon_code', () =>
      rejects({ offer_code: activeOffer(tenant), coupon_code: 'NOPE' }, 'coupon_code'));
    it('rejects an inactive coupon under coupon_code', async () => {
      const own = await seed();
      await app.ctx.pool.query('UPDATE coupons SET active = false WHERE company_id = $1', [own.company.id]);
      const res = await post(
        { offer_code: activeOffer(own), coupon_code: own.coupons[0]?.code },
        {},
        own.keys.test,
      );
      expect(res.status).to.equal(400);
      expect(res.body.error.fields).to.have.property('coupon_code');
    });

    it("rejects another company's coupon under coupon_code", () =>
      rejects({ offer_code: activeOffer(tenant), coupon_code: other.coupons[0]?.code }, 'coupon_code'));

    it('rejects single_use that is not a boolean', () =>
      rejects({ offer_code: activeOffer(tenant), single_use: 'true' }, 'single_use'));

    it('rejects expires_at in the past', () =>
      rejects(
        { offer_code: activeOffer(tenant), expires_at: new Date(Date.now() - 60_000).toISOString() },
        'expires_at',
      ));
    it('rejects expires_at more than 90 days ahead', () =>
      rejects(
        {
          offer_code: activeOffer(tenant),
          expires_at: new Date(Date.now() + 90 * DAY_MS + 60_000).toISOString(),
        },
        'expires_at',
      ));
    it('rejects expires_at without an offset', () =>
      rejects({ offer_code: activeOffer(tenant), expires_at: '2031-01-01T10:00:00' }, 'expires_at'));
    it('rejects expires_at that is not a date', () =>
      rejects({ offer_code: activeOffer(tenant), expires_at: 'tomorrow' }, 'expires_at'));

    for (const [field, body] of [
      ['offer_code', { offer_code: 'of_\u0000' }],
      ['external_reference', { external_reference: 'ref\u0000' }],
      ['coupon_code', { coupon_code: 'C\u0000' }],
      ['customer.name', { customer: { name: 'Ana\u0000' } }],
      ['metadata', { metadata: { key: 'value\u0000' } }],
      ['metadata', { metadata: { 'key\u0000': 'value' } }],
    ] as const) {
      it(`rejects the NUL character in ${field} (${JSON.stringify(body).slice(0, 40)})`, () =>
        rejects(Object.assign({ offer_code: activeOffer(tenant) }, body), field));
    }

    it('rejects unknown body fields under their name', () =>
      rejects({ offer_code: activeOffer(tenant), amount: 10 }, 'amount'));

    it('answers 415 for a body in a charset other than UTF-8', async () => {
      const res = await app.http.post<ErrorBody>('/v1/payment-links', {
        auth: tenant.keys.test,
        rawBody: JSON.stringify({ offer_code: activeOffer(tenant) }),
        headers: { 'content-type': 'application/json; charset=latin1' },
      });
      expect(res.status).to.equal(415);
      expect(res.body.error.type).to.equal('validation_error');
    });

    it('reports every invalid field at once', async () => {
      const res = await post({
        offer_code: activeOffer(tenant),
        external_reference: '',
        single_use: 1,
        color: 'red',
      });
      expect(res.status).to.equal(400);
      expect(res.body.error.fields).to.include.keys('external_reference', 'single_use', 'color');
    });

    it('creates nothing when the request is rejected', async () => {
      const own = await seed();
      await post({ offer_code: activeOffer(own), coupon_code: 'NOPE' }, {}, own.keys.test);
      await post({ offer_code: inactiveOffer(own) }, {}, own.keys.test);
      expect(await countLinks(app, own.company.id)).to.equal(0);
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the same link with 200 and Idempotent-Replayed: true', async () => {
      const body = { offer_code: activeOffer(tenant), external_reference: 'order-1' };
      const first = await post(body, { 'Idempotency-Key': 'replay-1' });
      const second = await post(
        { external_reference: 'order-1', offer_code: activeOffer(tenant) },
        { 'Idempotency-Key': 'replay-1' },
      );
      expect(first.status).to.equal(201);
      expect(first.headers.get('idempotent-replayed')).to.equal(null);
      expect(second.status).to.equal(200);
      expect(second.headers.get('idempotent-replayed')).to.equal('true');
      expect(second.body).to.deep.equal(first.body);
    });

    it('answers 409 conflict for the same key with another body, and creates nothing', async () => {
      const own = await seed();
      await post({ offer_code: activeOffer(own) }, { 'Idempotency-Key': 'mismatch' }, own.keys.test);
      const res = await post(
        { offer_code: activeOffer(own), external_reference: 'x' },
        { 'Idempotency-Key': 'mismatch' },
        own.keys.test,
      );
      expect(res.status).to.equal(409);
      expect(res.body.error.type).to.equal('conflict');
      expect(await countLinks(app, own.company.id)).to.equal(1);
    });

    it('creates exactly one link for 50 concurrent requests with one key, and all of them get it', async () => {
      const own = await seed();
      const body = { offer_code: activeOffer(own), external_reference: 'concurrent' };
      const responses = await Promise.all(
        Array.from({ length: 50 }, () => post(body, { 'Idempotency-Key': 'concurrent-key' }, own.keys.test)),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).to.have.length(1);
      expect(statuses.filter((s) => s === 200)).to.have.length(49);
      expect(new Set(responses.map((r) => r.body.id)).size).to.equal(1);
      expect(await countLinks(app, own.company.id)).to.equal(1);
    });

    it('rejects a key over 64 characters under Idempotency-Key', async () => {
      const res = await post({ offer_code: activeOffer(tenant) }, { 'Idempotency-Key': 'k'.repeat(65) });
      expect(res.status).to.equal(400);
      expect(res.body.error.fields).to.have.property('Idempotency-Key');
    });

    it('accepts a key of exactly 64 characters', async () => {
      const res = await post({ offer_code: activeOffer(tenant) }, { 'Idempotency-Key': 'k'.repeat(64) });
      expect(res.status).to.equal(201);
    });

    it('scopes keys per mode: the same key in test and live creates two links', async () => {
      const body = { offer_code: activeOffer(tenant) };
      const test = await post(body, { 'Idempotency-Key': 'per-mode' }, tenant.keys.test);
      const live = await post(body, { 'Idempotency-Key': 'per-mode' }, tenant.keys.live);
      expect([test.status, live.status]).to.deep.equal([201, 201]);
      expect(test.body.id).to.not.equal(live.body.id);
    });

    it('scopes keys per company: another company using the same key gets its own link', async () => {
      const mine = await post(
        { offer_code: activeOffer(tenant) },
        { 'Idempotency-Key': 'per-company' },
        tenant.keys.test,
      );
      const theirs = await post(
        { offer_code: activeOffer(other) },
        { 'Idempotency-Key': 'per-company' },
        other.keys.test,
      );
      expect([mine.status, theirs.status]).to.deep.equal([201, 201]);
      expect(mine.body.id).to.not.equal(theirs.body.id);
    });

    it('replays the link as it is now: canceled after a cancel, expired once past expires_at', async () => {
      const body = { offer_code: activeOffer(tenant) };
      const canceled = await post(body, { 'Idempotency-Key': 'now-canceled' });
      await app.http.post(`/v1/payment-links/${canceled.body.id}/cancel`, { auth: tenant.keys.test });
      expect((await post(body, { 'Idempotency-Key': 'now-canceled' })).body.status).to.equal('canceled');
      const expired = await post(body, { 'Idempotency-Key': 'now-expired' });
      await backdateExpiry(app, expired.body.id);
      const replayed = await post(body, { 'Idempotency-Key': 'now-expired' });
      expect(replayed.status).to.equal(200);
      expect(replayed.body.status).to.equal('expired');
    });

    it('does not use up a key on a rejected request', async () => {
      const bad = await post({ offer_code: 'of_doesnotexist' }, { 'Idempotency-Key': 'after-error' });
      const good = await post({ offer_code: activeOffer(tenant) }, { 'Idempotency-Key': 'after-error' });
      expect([bad.status, good.status]).to.deep.equal([400, 201]);
    });
  });

  describe('random bodies (property)', () => {
    it('never answers 500 and never creates a link unless it answers 201', async () => {
      const own = await seed();
      const value = fc.oneof(
        fc.constantFrom(activeOffer(own), inactiveOffer(own), activePlan(own), own.coupons[0]?.code ?? ''),
        fc.string(),
        // Any code point, U+0000 and lone surrogates included: PostgreSQL text refuses U+0000.
        fc.string({ unit: 'binary', maxLength: 30 }),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        fc.dictionary(fc.string({ maxLength: 50 }), fc.oneof(fc.string({ maxLength: 600 }), fc.integer()), {
          maxKeys: 25,
        }),
        fc.anything(),
      );
      const key = fc.constantFrom(
        'offer_code',
        'plan_code',
        'customer',
        'external_reference',
        'metadata',
        'coupon_code',
        'single_use',
        'expires_at',
        'name',
        'email',
        'phone',
        'document',
        '__proto__',
        'constructor',
      );
      const body = fc.oneof(
        fc.dictionary(key, value, { maxKeys: 6 }),
        fc
          .record({ offer_code: fc.constant(activeOffer(own)) })
          .chain((base) => fc.dictionary(key, value, { maxKeys: 4 }).map((extra) => ({ ...extra, ...base }))),
        fc.jsonValue(),
      );
      let created = 0;
      await fc.assert(
        fc.asyncProperty(body, async (payload) => {
          const before = await countLinks(app, own.company.id);
          const res = await app.http.post<LinkBody>('/v1/payment-links', {
            auth: own.keys.test,
            rawBody: JSON.stringify(payload) ?? 'null',
            headers: { 'content-type': 'application/json' },
          });
          const after = await countLinks(app, own.company.id);
          expect(res.status, res.text).to.be.oneOf([201, 400]);
          expect(after - before, res.text).to.equal(res.status === 201 ? 1 : 0);
          if (res.status === 201) created++;
        }),
        { numRuns: 150 },
      );
      // Make sure the generator reaches the success path at all, or the property would say little.
      expect(created).to.be.greaterThan(0);
    });
  });
});
