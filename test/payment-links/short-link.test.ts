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

  /** The short url opened under the app's own address, which is not PUBLIC_BASE_URL's host. */
  const opened = (shortUrl: string, query = ''): string =>
    shortUrl.replace(app.ctx.config.urls.checkout, `${app.url}/pay`) + query;
  const follow = (url: string) => fetch(url, { redirect: 'manual' });
  /** Where the browser goes: the Location resolved against the address it opened. */
  const target = (res: Response, opened: string): URL => new URL(res.headers.get('location') ?? '', opened);
  const pathAndQuery = (url: URL): string => `${url.pathname}${url.search}`;

  it("redirects with 302 to a live link's checkout url, relative so the buyer stays on the host they opened", async () => {
    const link = await createLink(app, tenant.keys.live, { offer_code: activeOffer(tenant) });
    const url = opened(link.short_url);
    const res = await follow(url);
    expect(res.status).to.equal(302);
    expect(res.headers.get('location')).to.match(/^\.\.\//);
    const goes = target(res, url);
    expect(goes.origin).to.equal(new URL(app.url).origin);
    expect(pathAndQuery(goes)).to.equal(pathAndQuery(new URL(link.url)));
  });

  it("redirects a test link's short url to its simulation page", async () => {
    const link = await createLink(app, tenant.keys.test, { offer_code: activeOffer(tenant) });
    const url = opened(link.short_url);
    const goes = target(await follow(url), url);
    expect(goes.pathname).to.equal(new URL(link.url).pathname);
    expect(link.url).to.include('/teste/');
  });

  it('carries the language a short url chose to the page it redirects to', async () => {
    const link = await createLink(app, tenant.keys.live, { offer_code: activeOffer(tenant) });
    const url = opened(link.short_url, '?lang=en');
    const goes = target(await follow(url), url);
    expect(goes.searchParams.get('lang')).to.equal('en');
    expect(goes.searchParams.get('plink')).to.equal(link.id);
    const page = await fetch(goes);
    expect(await page.text()).to.include('<html lang="en">');
  });

  it('answers 404 with a page in the buyer pages layout (viewport included) for an unknown short code', async () => {
    for (const [language, sentence] of [
      ['en', 'This payment link does not exist'],
      ['pt-BR', 'Este link de pagamento não existe'],
    ] as const) {
      const res = await fetch(`${app.url}/pay/r/ZZZZZZZZ`, {
        redirect: 'manual',
        headers: { 'accept-language': language },
      });
      expect(res.status).to.equal(404);
      expect(res.headers.get('content-type')).to.include('text/html');
      expect(res.headers.get('content-language')).to.equal(language);
      const page = await res.text();
      expect(page).to.include(sentence).and.include(`<html lang="${language}">`);
      expect(page).to.include('name="viewport"');
    }
  });
});
