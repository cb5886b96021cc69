import { expect } from 'chai';
import { sharedApp, seed, startTestApp, type TestApp } from '../helpers/app.js';
import type { SeedResult } from '../../src/cli/seed.js';
import pg from 'pg';
import { freePort } from '../../src/infra/free-port.js';
import { randomBase62 } from '../../src/shared/ids.js';
import { testEnvironment } from '../helpers/environment.js';

/** A database on the run's server with none of the service's tables (created and dropped here). */
async function emptyDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `plinks_empty_${randomBase62(8).toLowerCase()}`;
  const server = new URL(testEnvironment().databaseUrl);
  server.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: server.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: server.toString() });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

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

  it('answers 503 api_error with Retry-After while PostgreSQL is unreachable, naming nothing internal', async () => {
    const broken = await startTestApp({
      DATABASE_URL: `postgres://nobody@127.0.0.1:${await freePort()}/none`,
    });
    try {
      const res = await broken.http.get('/v1/offers', { auth: tenant.keys.test });
      expect(res.status).to.equal(503);
      expect(res.headers.get('retry-after')).to.match(/^\d+$/);
      expect(res.body).to.have.nested.property('error.type', 'api_error');
      expect(res.body).to.have.nested.property('error.retry_after_seconds').that.is.a('number');
      expect(res.text).to.not.match(/ECONNREFUSED|at .*\.ts|SELECT/);
    } finally {
      await broken.close();
    }
  });

  it('turns an unexpected failure into 500 api_error naming the request id, with nothing internal', async () => {
    // A reachable database without the service's tables: every query fails the way a bug would.
    const empty = await emptyDatabase();
    const broken = await startTestApp({ DATABASE_URL: empty.url });
    try {
      const res = await broken.http.get('/v1/offers', { auth: tenant.keys.test });
      expect(res.status).to.equal(500);
      const requestId = res.headers.get('request-id') ?? '';
      expect(res.body).to.have.nested.property('error.type', 'api_error');
      expect(res.body).to.have.nested.property('error.message').that.includes(requestId);
      expect(res.text).to.not.match(/api_keys|at .*\.ts|SELECT/);
    } finally {
      await broken.close();
      await empty.drop();
    }
  });
});
