import { mkdtemp, rm } from 'node:fs/promises';
import { expect } from 'chai';
import os from 'node:os';
import path from 'node:path';
import { sharedApp, startTestApp } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { PrivateRedis } from '../../src/infra/private-redis.js';

describe('health and readiness', () => {
  it('GET /healthz answers 200 while the process is up', async () => {
    const app = await sharedApp();
    const res = await app.http.get('/healthz');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ status: 'ok' });
  });

  it('GET /readyz answers 200 when PostgreSQL and Redis are reachable', async () => {
    const app = await sharedApp();
    const res = await app.http.get('/readyz');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ status: 'ok', checks: { postgres: 'ok', redis: 'ok' } });
  });

  it('GET /readyz answers 503 naming Redis when Redis is down, and 200 once it is back', async function () {
    this.timeout(30_000);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'plinks-ready-'));
    const redis = new PrivateRedis({ dir });
    await redis.start();
    const app = await startTestApp({ REDIS_URL: redis.url });
    try {
      expect((await app.http.get('/readyz')).status).to.equal(200);
      await redis.stop();
      const down = await app.http.get('/readyz');
      expect(down.status).to.equal(503);
      expect(down.body).to.have.nested.property('error.type', 'api_error');
      expect(down.body).to.have.nested.property('checks.redis', 'down');
      expect(down.body).to.have.nested.property('checks.postgres', 'ok');
      await redis.start();
      let back = 0;
      await eventually(
        async () => ((back = (await app.http.get('/readyz')).status) === 200 ? true : undefined),
        10_000,
        () => `/readyz to answer 200 again (last ${back})`,
        100,
      );
    } finally {
      await app.close();
      await redis.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
