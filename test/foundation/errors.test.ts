import { expect } from 'chai';
import { sharedApp, seed, startTestApp, type TestApp } from '../helpers/app.js';
import type { SeedResult } from '../../src/cli/seed.js';
import { freePort } from '../../src/shared/infra/free-port.js';

describe('error envelope', () => {
  let app: TestApp;
  let tenant: SeedResult;

  before(async () => {
    app = await sharedApp();
    tenant = await seed();
  });

  it('answers an unknown route with 404 not_found in the envelope', async () => {
    const res = await app.http.get('/v1/no-such-thing', { auth: tenant.keys.test, unvalidated: true });
    expect(res.status).to.equal(404);
    expect(res.body).to.deep.include({
      error: { type: 'not_found', message: 'No route for GET /v1/no-such-thing' },
    });
  });

  it('answers an unknown path outside /v1 with 404 not_found', async () => {
    const res = await app.http.get('/nowhere', { unvalidated: true });
    expect(res.status).to.equal(404);
    expect(res.body).to.have.nested.property('error.type', 'not_found');
  });

  it('answers malformed JSON with 400 validation_error', async () => {
    const res = await app.http.post('/v1/offers', {
      auth: tenant.keys.test,
      rawBody: '{"offer_code": ',
      headers: { 'content-type': 'application/json' },
      unvalidated: true,
    });
    expect(res.status).to.equal(400);
    expect(res.body).to.have.nested.property('error.type', 'validation_error');
  });

  it('answers a body over 100 kB with 413 in the same envelope', async () => {
    const res = await app.http.post('/v1/offers', {
      auth: tenant.keys.test,
      body: { padding: 'x'.repeat(101 * 1024) },
      unvalidated: true,
    });
    expect(res.status).to.equal(413);
    expect(res.body).to.have.nested.property('error.type', 'validation_error');
  });

  it('carries a Request-Id header on every response, errors included', async () => {
    const ok = await app.http.get('/v1/offers', { auth: tenant.keys.test });
    const denied = await app.http.get('/v1/offers');
    const missing = await app.http.get('/missing', { unvalidated: true });
    for (const res of [ok, denied, missing])
      expect(res.headers.get('request-id')).to.match(/^req_[0-9A-Za-z]{20}$/);
    expect(ok.headers.get('request-id')).to.not.equal(denied.headers.get('request-id'));
  });

  it('keeps a well-formed incoming Request-Id', async () => {
    const res = await app.http.get('/v1/offers', {
      auth: tenant.keys.test,
      headers: { 'request-id': 'client-trace-12345' },
    });
    expect(res.headers.get('request-id')).to.equal('client-trace-12345');
  });

  it('turns an unexpected failure into 500 api_error naming the request id, with nothing internal', async () => {
    // A database that is not there: the key lookup fails the way any internal fault would.
    const broken = await startTestApp({
      DATABASE_URL: `postgres://nobody@127.0.0.1:${await freePort()}/none`,
    });
    try {
      const res = await broken.http.get('/v1/offers', { auth: tenant.keys.test });
      expect(res.status).to.equal(500);
      const requestId = res.headers.get('request-id') ?? '';
      expect(res.body).to.have.nested.property('error.type', 'api_error');
      expect(res.body).to.have.nested.property('error.message').that.includes(requestId);
      expect(res.text).to.not.match(/ECONNREFUSED|at .*\.ts|SELECT/);
    } finally {
      await broken.close();
    }
  });
});
