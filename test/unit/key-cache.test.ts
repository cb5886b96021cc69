import { once } from 'node:events';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { KeyCache } from '../../src/auth/key-cache.js';
import { announceCompanyChange, announceKeyChange, KEY_CHANGES_CHANNEL } from '../../src/keys/key-changes.js';
import type { KeyLookup } from '../../src/keys/repository.js';
import { sha256Hex } from '../../src/shared/ids.js';
import { eventually } from '../events/helpers.js';
import { testEnvironment } from '../helpers/environment.js';
import { LaggingProxy } from '../helpers/lagging-proxy.js';

/** A valid key's lookup, of a company no test creates. */
const VALID: KeyLookup = {
  id: 1,
  companyId: 2_000_000_001,
  kind: 'payments',
  test: true,
  revoked: false,
  companyActive: true,
};

const untilLive = (cache: KeyCache): Promise<true> =>
  eventually(async () => (cache.isLive ? true : undefined), 10_000, 'live');

/**
 * The key cache against a real Redis: each test plays one lookup (read, then `set`) and forces the
 * order in which an announcement is handled relative to it, by waiting for this process's
 * subscriber to have delivered the message before the lookup "returns".
 */
describe('KeyCache: a lookup never caches an answer a revoke made stale', () => {
  let subscriber: Redis;
  let publisher: Redis;
  let cache: KeyCache;
  const hash = sha256Hex(`key-cache-test-${process.pid}`);
  const valid = VALID;

  const live = (): Promise<true> => untilLive(cache);
  /** Resolves once this process's subscriber delivered the next announcement (to the cache first). */
  const handled = (): Promise<unknown> => once(subscriber, 'message');

  beforeEach(async () => {
    const url = testEnvironment().redis.url;
    subscriber = new Redis(url, { maxRetriesPerRequest: null });
    publisher = new Redis(url);
    cache = new KeyCache(subscriber, 60_000);
    await live();
  });
  afterEach(() => {
    cache.close();
    publisher.disconnect();
  });

  it('caches a lookup when nothing was announced during the read', async () => {
    const mark = cache.beginRead();
    cache.set(hash, valid, mark);
    expect(cache.get(hash)?.lookup).to.deep.equal(valid);
  });

  it('does not cache a read made before a revoke committed and returned after its announcement was handled', async () => {
    // The lookup starts: its read sees the key valid (the revoke has not committed yet).
    const mark = cache.beginRead();
    const read = valid;
    // The revoke commits and is announced; this process handles the announcement.
    const delivered = handled();
    await announceKeyChange(publisher, hash);
    await delivered;
    // Only now does the lookup return with what it read.
    cache.set(hash, read, mark);
    expect(cache.get(hash), 'a revoked key cached as valid').to.equal(null);
  });

  it('does not cache a read during which the company’s keys changed', async () => {
    const mark = cache.beginRead();
    const delivered = handled();
    await announceCompanyChange(publisher, valid.companyId);
    await delivered;
    cache.set(hash, valid, mark);
    expect(cache.get(hash)).to.equal(null);
  });

  it('does not cache a read during which the subscription dropped and came back (messages may be lost)', async () => {
    const mark = cache.beginRead();
    const reconnected = once(subscriber, 'ready');
    subscriber.disconnect(true);
    await reconnected;
    await live();
    cache.set(hash, valid, mark);
    expect(cache.get(hash)).to.equal(null);
  });

  it('drops a cached lookup when its revoke is announced later', async () => {
    cache.set(hash, valid, cache.beginRead());
    const delivered = handled();
    await announceKeyChange(publisher, hash);
    await delivered;
    expect(cache.get(hash)).to.equal(null);
  });
});

/**
 * Redis answers a PUBLISH before it writes the message to other subscribers, so a client told "key
 * revoked" may send its next request to a web before that web's subscription has the message. Here
 * the subscription runs through a proxy that delivers everything Redis writes to it 150 ms late.
 */
describe('KeyCache: a revoke announced before a request is handled before that request trusts the cache', () => {
  const LAG_MS = 150;
  let proxy: LaggingProxy;
  let subscriber: Redis;
  let publisher: Redis;
  let cache: KeyCache;
  const hash = sha256Hex(`key-cache-lag-test-${process.pid}`);
  const valid = VALID;

  beforeEach(async () => {
    const redis = new URL(testEnvironment().redis.url);
    proxy = await LaggingProxy.start({ host: redis.hostname, port: Number(redis.port) }, LAG_MS);
    subscriber = new Redis(proxy.url, { maxRetriesPerRequest: null });
    publisher = new Redis(testEnvironment().redis.url);
    cache = new KeyCache(subscriber, 60_000);
    await untilLive(cache);
    cache.set(hash, valid, cache.beginRead());
  });
  afterEach(async () => {
    cache.close();
    publisher.disconnect();
    await proxy.stop();
  });

  it('drops the entry of a key revoked elsewhere even when its message reaches this process late', async () => {
    // Another process revokes the key; Redis has answered its PUBLISH.
    expect(await publisher.publish(KEY_CHANGES_CHANNEL, hash)).to.be.at.least(1);
    // The message is not here yet: a plain read of the cache, even a turn later, still sees the key.
    await new Promise((resolve) => setImmediate(resolve));
    expect(cache.get(hash)?.lookup, 'the message arrived too early to test anything').to.deep.equal(valid);
    expect(await cache.getConfirmed(hash), 'a revoked key answered from the cache').to.equal(null);
  });

  it('answers from the cache, after the barrier, when nothing was announced', async () => {
    const pings = (): number => proxy.sent.toLowerCase().split('ping').length - 1;
    const before = pings();
    const answers = await Promise.all([cache.getConfirmed(hash), cache.getConfirmed(hash)]);
    expect(answers.map((entry) => entry?.lookup)).to.deep.equal([valid, valid]);
    // Both requests of this turn waited on one round trip on the subscription.
    expect(pings() - before).to.equal(1);
  });

  it('reads the key instead when the subscription drops while a request waits on the barrier', async () => {
    // The barrier's PING has gone out; its answer is held LAG_MS by the proxy when the link drops.
    const pinged = proxy.nextSent(/ping/i);
    const waiting = cache.getConfirmed(hash);
    await pinged;
    subscriber.disconnect(true);
    expect(await waiting).to.equal(null);
  });
});
