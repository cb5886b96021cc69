import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { capturedLogFile } from '../helpers/captured-logs.js';
import { seed, sharedApp } from '../helpers/app.js';
import { skipBecause } from '../helpers/skip.js';

describe('captured service logs (the log check at the end of the run reads them)', () => {
  it('hold the request lines of the in-process service, with route and status but no credential', async function () {
    if (process.env.TEST_LOG_LEVEL)
      skipBecause(this, 'TEST_LOG_LEVEL is set: the service logs go to stdout, not to the capture file');
    const app = await sharedApp();
    const tenant = await seed();
    const res = await app.http.get('/v1/offers', { auth: tenant.keys.test });
    const requestId = res.headers.get('request-id') ?? '';
    const file = capturedLogFile();
    expect(file, 'a capture file').to.be.a('string');
    const lines = (await readFile(file ?? '', 'utf8')).split('\n').filter((l) => l.includes(requestId));
    expect(lines.length, 'the request is logged').to.be.greaterThan(0);
    expect(lines.join('\n')).to.include('/v1/offers').and.not.include(tenant.keys.test);
  });
});
