import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
import { seed, sharedApp, type TestApp } from '../helpers/app.js';
import {
  activeOffer,
  backdateExpiry,
  createLink,
  storedStatus,
  type ErrorBody,
  type LinkBody,
  type ListBody,
} from './helpers.js';

describe('GET /v1/payment-links', () => {
  let app: TestApp;
  let tenant: SeedResult;
  /** Ids of the 45 test links, newest first. */
  let created: string[];

  before(async () => {
    app = await sharedApp();
    tenant = await seed();
    created = [];
    for (let i = 0; i < 45; i++) {
      const link = await createLink(app, tenant.keys.test, {
        offer_code: activeOffer(tenant),
        external_reference: i % 3 === 0 ? 'every-third' : `ref-${i}`,
      });
      created.unshift(link.id);
    }
  });

  const list = (query: string, key = tenant.keys.test) =>
    app.http.get<ListBody & ErrorBody>(`/v1/payment-links${query}`, { auth: key });

  it('walks 45 links in pages of 20 newest first, without gaps or duplicates, has_more right on every page', async () => {
    const seen: string[] = [];
    const pages: Array<{ size: number; hasMore: boolean }> = [];
    let cursor: string | undefined;
    for (let guard = 0; guard < 5; guard++) {
      const res = await list(`?limit=20${cursor ? `&starting_after=${cursor}` : ''}`);
      expect(res.status).to.equal(200);
      expect(res.body.object).to.equal('list');
      seen.push(...res.body.data.map((l) => l.id));
      pages.push({ size: res.body.data.length, hasMore: res.body.has_more });
      if (!res.body.has_more) break;
      cursor = res.body.data.at(-1)?.id;
    }
    expect(pages).to.deep.equal([
      { size: 20, hasMore: true },
      { size: 20, hasMore: true },
      { size: 5, hasMore: false },
    ]);
    expect(seen).to.deep.equal(created);
  });

  it('says has_more false when the last page is exactly full', async () => {
    const res = await list(`?limit=5&starting_after=${created[39]}`);
    expect(res.body.data.map((l) => l.id)).to.deep.equal(created.slice(40));
    expect(res.body.has_more).to.equal(false);
  });

  it('returns 20 links by default', async () => {
    const res = await list('');
    expect(res.body.data).to.have.length(20);
    expect(res.body.data[0]?.id).to.equal(created[0]);
  });

  it('accepts limit 1 and limit 100', async () => {
    expect((await list('?limit=1')).body.data).to.have.length(1);
    const all = await list('?limit=100');
    expect(all.body.data).to.have.length(45);
    expect(all.body.has_more).to.equal(false);
  });

  it('filters by external_reference', async () => {
    const res = await list('?external_reference=every-third&limit=100');
    expect(res.status).to.equal(200);
    expect(res.body.data).to.have.length(15);
    for (const link of res.body.data) expect(link.external_reference).to.equal('every-third');
  });

  it('paginates within a filter', async () => {
    const first = await list('?external_reference=every-third&limit=10');
    const second = await list(
      `?external_reference=every-third&limit=10&starting_after=${first.body.data.at(-1)?.id}`,
    );
    expect(first.body.has_more).to.equal(true);
    expect(second.body.data).to.have.length(5);
    expect(second.body.has_more).to.equal(false);
    const ids = [...first.body.data, ...second.body.data].map((l) => l.id);
    expect(new Set(ids).size).to.equal(15);
  });

  it('filters by status', async () => {
    const own = await seed();
    const keep = await createLink(app, own.keys.test, { offer_code: activeOffer(own) });
    const gone = await createLink(app, own.keys.test, { offer_code: activeOffer(own) });
    await app.http.post(`/v1/payment-links/${gone.id}/cancel`, { auth: own.keys.test });
    const canceled = await app.http.get<ListBody>('/v1/payment-links?status=canceled', {
      auth: own.keys.test,
    });
    const active = await app.http.get<ListBody>('/v1/payment-links?status=active', { auth: own.keys.test });
    expect(canceled.body.data.map((l) => l.id)).to.deep.equal([gone.id]);
    expect(active.body.data.map((l) => l.id)).to.deep.equal([keep.id]);
  });

  it('never lists a link past expires_at as active, and lists it under status=expired', async () => {
    const own = await seed();
    const late = await createLink(app, own.keys.test, { offer_code: activeOffer(own) });
    const fresh = await createLink(app, own.keys.test, { offer_code: activeOffer(own) });
    await backdateExpiry(app, late.id);
    const active = await app.http.get<ListBody>('/v1/payment-links?status=active', { auth: own.keys.test });
    const expired = await app.http.get<ListBody>('/v1/payment-links?status=expired', { auth: own.keys.test });
    const all = await app.http.get<ListBody>('/v1/payment-links', { auth: own.keys.test });
    expect(active.body.data.map((l) => l.id)).to.deep.equal([fresh.id]);
    expect(expired.body.data.map((l) => [l.id, l.status])).to.deep.equal([[late.id, 'expired']]);
    expect(all.body.data.find((l) => l.id === late.id)?.status).to.equal('expired');
    expect(await storedStatus(app, late.id)).to.equal('expired');
  });

  it('shows test links to test keys only and live links to live keys only', async () => {
    const own = await seed();
    const test = await createLink(app, own.keys.test, { offer_code: activeOffer(own) });
    const live = await createLink(app, own.keys.live, { offer_code: activeOffer(own) });
    const asTest = await app.http.get<ListBody>('/v1/payment-links', { auth: own.keys.test });
    const asLive = await app.http.get<ListBody>('/v1/payment-links', { auth: own.keys.live });
    expect(asTest.body.data.map((l: LinkBody) => l.id)).to.deep.equal([test.id]);
    expect(asLive.body.data.map((l: LinkBody) => l.id)).to.deep.equal([live.id]);
  });

  it("never lists another company's links", async () => {
    const own = await seed();
    const res = await app.http.get<ListBody>('/v1/payment-links?limit=100', { auth: own.keys.test });
    expect(res.body.data).to.deep.equal([]);
    expect(res.body.has_more).to.equal(false);
  });

  for (const [query, param] of [
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?limit=ten', 'limit'],
    ['?limit=1.5', 'limit'],
    ['?status=open', 'status'],
    ['?status=active&status=paid', 'status'],
    ['?sort=asc', 'sort'],
    [`?external_reference=${'r'.repeat(129)}`, 'external_reference'],
    ['?external_reference=%00', 'external_reference'],
    ['?starting_after=plink_%00', 'starting_after'],
  ] as const) {
    it(`rejects ${query.slice(0, 40)} with 400 naming ${param}`, async () => {
      const res = await list(query);
      expect(res.status).to.equal(400);
      expect(res.body.error.type).to.equal('validation_error');
      expect(res.body.error.fields).to.have.property(param);
    });
  }

  it('rejects a starting_after that is not a link of this company and mode', async () => {
    const own = await seed();
    const live = await createLink(app, own.keys.live, { offer_code: activeOffer(own) });
    for (const cursor of ['plink_doesnotexist000000000000', live.id, created[0] ?? '']) {
      const res = await app.http.get<ErrorBody>(`/v1/payment-links?starting_after=${cursor}`, {
        auth: own.keys.test,
      });
      expect(res.status, cursor).to.equal(400);
      expect(res.body.error.fields).to.have.property('starting_after');
    }
  });

  it('answers an empty page, not an error, after the last link', async () => {
    const res = await list(`?starting_after=${created.at(-1)}`);
    expect(res.status).to.equal(200);
    expect(res.body.data).to.deep.equal([]);
    expect(res.body.has_more).to.equal(false);
  });

  it('orders links created in the same millisecond by id, so pages never skip one', async () => {
    const own = await seed();
    // Same created_at down to the microsecond: only the id can order them.
    const links = await Promise.all(
      Array.from({ length: 6 }, () => createLink(app, own.keys.test, { offer_code: activeOffer(own) })),
    );
    await app.ctx.pool.query(
      "UPDATE payment_links SET created_at = '2030-01-01T00:00:00.123456Z' WHERE company_id = $1",
      [own.company.id],
    );
    const seen: string[] = [];
    let cursor = '';
    for (let guard = 0; guard < 10; guard++) {
      const res = await app.http.get<ListBody>(`/v1/payment-links?limit=2${cursor}`, { auth: own.keys.test });
      seen.push(...res.body.data.map((l) => l.id));
      if (!res.body.has_more) break;
      cursor = `&starting_after=${res.body.data.at(-1)?.id}`;
    }
    const whole = await app.http.get<ListBody>('/v1/payment-links?limit=100', { auth: own.keys.test });
    expect(seen).to.deep.equal(whole.body.data.map((l) => l.id));
    expect([...seen].sort()).to.deep.equal(links.map((l) => l.id).sort());
  });
});
