import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
import { seed, sharedApp, type TestApp } from '../helpers/app.js';
import { activeOffer, createLink } from './helpers.js';

describe('GET {checkout_url}/r/:short_code', () => {
  let app: TestApp;
  let tenant: SeedResult;

  before(async () => {
    app = await sharedApp();
    tenant = await seed();
  });

  const follow = (shortUrl: string) =>
    fetch(shortUrl.replace(app.ctx.config.urls.checkout, `${app.url}/pay`), { redirect: 'manual' });

  it("redirects with 302 to a live link's checkout url", async () => {
    const link = await createLink(app, tenant.keys.live, { offer_code: activeOffer(tenant) });
    const res = await follow(link.short_url);
    expect(res.status).to.equal(302);
    expect(res.headers.get('location')).to.equal(link.url);
  });

  it("redirects a test link's short url to its simulation page", async () => {
    const link = await createLink(app, tenant.keys.test, { offer_code: activeOffer(tenant) });
    const res = await follow(link.short_url);
    expect(res.headers.get('location')).to.equal(link.url);
    expect(link.url).to.include('/teste/');
  });

  it('answers 404 with a page for an unknown short code', async () => {
    const res = await fetch(`${app.url}/pay/r/ZZZZZZZZ`, { redirect: 'manual' });
    expect(res.status).to.equal(404);
    expect(res.headers.get('content-type')).to.include('text/html');
    expect(await res.text()).to.include('Link not found');
  });
});
