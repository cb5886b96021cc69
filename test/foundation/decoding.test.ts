import http from 'node:http';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
import { seed, sharedApp, startTestApp, type TestApp } from '../helpers/app.js';

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** A request exactly as written: bytes a fetch() client would refuse to send (bad escapes, lying encodings). */
function raw(
  app: TestApp,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: Buffer | string,
): Promise<RawResponse> {
  const url = new URL(app.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, method, path, headers: { ...headers, connection: 'close' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const envelopeType = (res: RawResponse): unknown =>
  (JSON.parse(res.text) as { error?: { type?: unknown } }).error?.type;

describe('requests that cannot be decoded', () => {
  let app: TestApp;
  let tenant: SeedResult;

  before(async () => {
    app = await sharedApp();
    tenant = await seed();
  });

  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

  it('answers bad percent-encoding with 400 on every surface, never 500', async () => {
    const pay = await raw(app, 'GET', '/pay/teste/%E0%A4%A');
    expect(pay.status).to.equal(400);
    expect(pay.headers['content-type']).to.include('text/html');
    const v1 = await raw(app, 'GET', '/v1/payment-links/%E0%A4%A', bearer(tenant.keys.test));
    expect([v1.status, envelopeType(v1)]).to.deep.equal([400, 'validation_error']);
    const panel = await raw(app, 'GET', '/panel/v1/integrations/%E0%A4%A', bearer(tenant.panel_token));
    expect([panel.status, envelopeType(panel)]).to.deep.equal([400, 'validation_error']);
  });

  it('answers a gzip or br body that is not what it claims with 400, an unknown encoding with 415', async () => {
    const json = { 'content-type': 'application/json', ...bearer(tenant.keys.test) };
    for (const encoding of ['gzip', 'br', 'deflate']) {
      const res = await raw(
        app,
        'POST',
        '/v1/payment-links',
        { ...json, 'content-encoding': encoding },
        'garbage!',
      );
      expect([res.status, envelopeType(res)], encoding).to.deep.equal([400, 'validation_error']);
    }
    const unknown = await raw(
      app,
      'POST',
      '/v1/payment-links',
      { ...json, 'content-encoding': 'zstd-ish' },
      '{}',
    );
    expect([unknown.status, envelopeType(unknown)]).to.deep.equal([415, 'validation_error']);
    // A well-formed gzip body is read as usual.
    const body = gzipSync(JSON.stringify({ offer_code: tenant.offers[0]?.code }));
    const ok = await raw(app, 'POST', '/v1/payment-links', { ...json, 'content-encoding': 'gzip' }, body);
    expect(ok.status).to.equal(201);
  });

  it('answers a body that is not JSON with 415 naming the expected type', async () => {
    const res = await raw(
      app,
      'POST',
      '/v1/payment-links',
      { 'content-type': 'application/x-www-form-urlencoded', ...bearer(tenant.keys.test) },
      'offer_code=x',
    );
    expect(res.status).to.equal(415);
    expect(res.text).to.include('application/json');
  });

  it('answers JSON nested deeper than 64 levels with 400, on both JSON APIs', async () => {
    const deep = `${'['.repeat(2000)}${']'.repeat(2000)}`;
    const nested = `{"name":"x","status":${deep}}`;
    const panel = await raw(
      app,
      'POST',
      '/panel/v1/products',
      { 'content-type': 'application/json', ...bearer(tenant.panel_token) },
      nested,
    );
    expect([panel.status, envelopeType(panel)]).to.deep.equal([400, 'validation_error']);
    const v1 = await raw(
      app,
      'POST',
      '/v1/payment-links',
      { 'content-type': 'application/json', ...bearer(tenant.keys.test) },
      `{"metadata":${deep}}`,
    );
    expect([v1.status, envelopeType(v1)]).to.deep.equal([400, 'validation_error']);
  });

  it('refuses a "__proto__" key anywhere in a JSON body with 400 naming it, and creates nothing', async () => {
    const res = await raw(
      app,
      'POST',
      '/v1/payment-links',
      { 'content-type': 'application/json', ...bearer(tenant.keys.test) },
      `{"offer_code":"${tenant.offers[0]?.code ?? ''}","customer":{"__proto__":{"polluted":"yes"}}}`,
    );
    expect(res.status).to.equal(400);
    const body = JSON.parse(res.text) as { error: { fields: Record<string, string[]> } };
    expect(Object.keys(body.error.fields)).to.deep.equal(['customer.__proto__']);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
  });

  it('answers a buyer form with more than 1,000 fields with 413', async () => {
    const form = Array.from({ length: 1100 }, (_, i) => `f${i}=x`).join('&');
    const res = await raw(
      app,
      'POST',
      `/pay/${tenant.offers[0]?.code ?? ''}/pay`,
      { 'content-type': 'application/x-www-form-urlencoded' },
      form,
    );
    expect(res.status).to.equal(413);
    expect(res.headers['content-type']).to.include('text/html');
  });

  it('marks JSON API responses no-store and nosniff', async () => {
    const res = await app.http.get('/v1/offers', { auth: tenant.keys.test });
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
    const panel = await app.http.get('/panel/v1/api-keys', { auth: tenant.panel_token });
    expect(panel.headers.get('cache-control')).to.equal('no-store');
  });

  it('answers a method a path does not support with 405 and Allow; OPTIONS lists that path only', async () => {
    const res = await raw(app, 'DELETE', '/v1/payment-links', bearer(tenant.keys.test));
    expect([res.status, envelopeType(res)]).to.deep.equal([405, 'validation_error']);
    expect(res.headers.allow).to.equal('POST, GET, HEAD, OPTIONS');
    const alerts = await raw(app, 'OPTIONS', '/panel/v1/integrations/alerts', bearer(tenant.panel_token));
    expect(alerts.status).to.equal(204);
    expect(alerts.headers.allow).to.equal('GET, HEAD, OPTIONS');
    const patchAlerts = await raw(app, 'PATCH', '/panel/v1/integrations/alerts', bearer(tenant.panel_token));
    expect(patchAlerts.status).to.equal(405);
    const unknown = await raw(app, 'GET', '/v1/nothing-here', bearer(tenant.keys.test));
    expect(unknown.status).to.equal(404);
  });
});

describe('slow requests', () => {
  it('answers 408 when headers and body have not arrived within the request timeout', async () => {
    const app = await startTestApp({ REQUEST_TIMEOUT_MS: '500' });
    try {
      const url = new URL(app.url);
      const started = Date.now();
      const answer = await new Promise<string>((resolve) => {
        const socket = net.connect({ host: url.hostname, port: Number(url.port) }, () => {
          // Headers promise 100 bytes of body; one arrives, the rest never does.
          socket.write(
            'POST /v1/payment-links HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
          );
        });
        let received = '';
        socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
        socket.on('close', () => resolve(received));
        socket.on('error', () => resolve(received));
      });
      expect(Date.now() - started).to.be.lessThan(5000);
      // docs/api.md promises a 408, not a silently closed connection.
      expect(answer).to.match(/^HTTP\/1\.1 408/);
    } finally {
      await app.close();
    }
  });
});
