import { expect } from 'chai';
import { nextDelayMs } from '../../src/webhooks/retry-delays.js';
import { parseRetryAfter } from '../../src/shared/http/retry-after.js';
import { checkUrlShape, isPrivateAddress } from '../../src/integrations/kinds/webhook/url-guard.js';

describe('webhook retry schedule', function () {
  const schedule = [5, 300, 1800];

  it('waits the scheduled delay of the attempt, within ±jitter', () => {
    expect(nextDelayMs(schedule, 0.2, 1, null, () => 0.5)).to.equal(5000);
    expect(nextDelayMs(schedule, 0.2, 2, null, () => 0)).to.equal(240_000);
    expect(nextDelayMs(schedule, 0.2, 2, null, () => 1)).to.equal(360_000);
  });

  it('stops after the last scheduled retry', () => {
    expect(nextDelayMs(schedule, 0.2, 4, null)).to.equal(null);
  });

  it('honours a longer Retry-After up to twice the scheduled delay, never a shorter one', () => {
    expect(nextDelayMs(schedule, 0, 1, 8)).to.equal(8000);
    expect(nextDelayMs(schedule, 0, 1, 60)).to.equal(10_000);
    expect(nextDelayMs(schedule, 0, 1, 1)).to.equal(5000);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('120')).to.equal(120);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).to.equal(30);
    expect(parseRetryAfter('soon')).to.equal(null);
    expect(parseRetryAfter(undefined)).to.equal(null);
  });
});

describe('webhook target guard at delivery', function () {
  it('refuses private IP literals and plain http unless private targets are allowed', () => {
    expect(() => checkUrlShape('https://127.0.0.1/hook', false)).to.throw(/private/);
    expect(() => checkUrlShape('https://[::ffff:10.0.0.1]/hook', false)).to.throw(/private/);
    expect(() => checkUrlShape('http://example.com/hook', false)).to.throw(/https URL/);
    expect(() => checkUrlShape('https://user:pw@example.com/hook', false)).to.throw(/credentials/);
    expect(checkUrlShape('http://127.0.0.1:8080/hook', true).port).to.equal('8080');
    expect(isPrivateAddress('169.254.169.254')).to.equal(true);
    expect(isPrivateAddress('93.184.216.34')).to.equal(false);
  });
});
