import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PrivateRedis } from '../../src/infra/private-redis.js';
import { seed, startTestApp, type TestApp } from '../helpers/app.js';
import { activeOffer, createLink, type ErrorBody } from './helpers.js';

describe('payments API rate limits', () => {
  let a: TestApp;
  let b: TestApp;

  before(async () => {
    // Two web processes on one Redis, with small limits: 5 requests and 2 writes per minute per key.
    const env = { RATE_LIMIT_PER_MINUTE: '5', RATE_LIMIT_WRITES_PER_MINUTE: '2' };
    [a, b] = await Promise.all([startTestApp(env), startTestApp(env)]);
  });
  after(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it('carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset on every response', async () => {
    const tenant = await seed();
    const first = await a.http.get('/v1/offers', { auth: tenant.keys.test });
    const second = await a.http.get('/v1/payment-links', { auth: tenant.keys.test });
    expect(first.headers.get('ratelimit-limit')).to.equal('5');
    expect(first.headers.get('ratelimit-remaining')).to.equal('4');
    expect(second.headers.get('ratelimit-remaining')).to.equal('3');
    expect(Number(first.headers.get('ratelimit-reset'))).to.be.within(1, 60);
  });

  it('answers 429 rate_limited after 5 requests, with retry_after_seconds and Retry-After until the window ends', async () => {
    const tenant = await seed();
    const started = Date.now();
    for (let i = 0; i < 5; i++)
      expect((await a.http.get('/v1/offers', { auth: tenant.keys.test })).status).to.equal(200);
    const res = await a.http.get<ErrorBody>('/v1/offers', { auth: tenant.keys.test });
    expect(res.status).to.equal(429);
    expect(res.body.error.type).to.equal('rate_limited');
    const retry = res.body.error.retry_after_seconds ?? -1;
    const windowLeft = 60 - (Date.now() - started) / 1000;
    expect(retry).to.be.within(Math.floor(windowLeft) - 1, Math.ceil(windowLeft) + 1);
    expect(res.headers.get('retry-after')).to.equal(String(retry));
    expect(res.headers.get('ratelimit-remaining')).to.equal('0');
  });

  it('limits create and cancel to 2 per minute while reads go on', async () => {
    const tenant = await seed();
    const link = await createLink(a, tenant.keys.test, { offer_code: activeOffer(tenant) });
    const write = await a.http.post('/v1/payment-links/' + link.id + '/cancel', { auth: tenant.keys.test });
    expect(write.headers.get('ratelimit-limit')).to.equal('2');
    expect(write.headers.get('ratelimit-remaining')).to.equal('0');
    const third = await a.http.post<ErrorBody>('/v1/payment-links', {
      auth: tenant.keys.test,
      body: { offer_code: activeOffer(tenant) },
    });
    expect(third.status).to.equal(429);
    expect(third.body.error.retry_after_seconds).to.be.within(1, 60);
    expect((await a.http.get(`/v1/payment-links/${link.id}`, { auth: tenant.keys.test })).status).to.equal(
      200,
    );
  });

  it('counts per key: another key of the same company has its own allowance', async () => {
    const tenant = await seed();
    for (let i = 0; i < 6; i++) await a.http.get('/v1/offers', { auth: tenant.keys.test });
    expect((await a.http.get('/v1/offers', { auth: tenant.keys.test })).status).to.equal(429);
    expect((await a.http.get('/v1/offers', { auth: tenant.keys.live })).status).to.equal(200);
  });

  it('holds across web processes sharing Redis', async () => {
    const tenant = await seed();
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await a.http.get('/v1/offers', { auth: tenant.keys.test })).status);
      statuses.push((await b.http.get('/v1/offers', { auth: tenant.keys.test })).status);
    }
    expect(statuses).to.deep.equal([200, 200, 200, 200, 200, 429]);
  });

  it('keeps serving and still limits, per process, while Redis is unreachable', async function () {
    this.timeout(20_000);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'plinks-rl-'));
    const redis = new PrivateRedis({ dir });
    await redis.start();
    const app = await startTestApp({ REDIS_URL: redis.url, RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const tenant = await seed();
      expect((await app.http.get('/v1/offers', { auth: tenant.keys.test })).status).to.equal(200);
      await redis.stop();
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await app.http.get('/v1/offers', { auth: tenant.keys.test })).status);
      expect(statuses).to.deep.equal([200, 200, 200, 429]);
    } finally {
      await app.close();
      await redis.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
