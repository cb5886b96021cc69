import { expect } from 'chai';
import { sharedApp } from '../helpers/app.js';

describe('API reference pages (/docs)', () => {
  it('serves an index and one interactive page per API, with their scripts from this service only', async () => {
    const app = await sharedApp();
    const index = await fetch(`${app.url}/docs`);
    expect(index.status).to.equal(200);
    const html = await index.text();
    expect(html).to.include('/docs/payments').and.to.include('/docs/panel');
    for (const [name, document] of [
      ['payments', '/v1/openapi.json'],
      ['panel', '/panel/v1/openapi.json'],
    ] as const) {
      const res = await fetch(`${app.url}/docs/${name}`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-security-policy')).to.include("script-src 'self'");
      const page = await res.text();
      expect(page).to.include(`data-url="${document}"`);
      // Every script and style the page loads is served here (no CDN).
      for (const [, src] of page.matchAll(/(?:src|href)="([^"]+)"/g)) {
        expect(src, 'a local address').to.match(/^\/docs\//);
        const asset = await fetch(`${app.url}${src}`);
        expect(asset.status, src).to.equal(200);
      }
      expect((await fetch(`${app.url}${document}`)).status).to.equal(200);
    }
  });
});
