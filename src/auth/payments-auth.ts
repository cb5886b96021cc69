import type { RequestHandler } from 'express';
import type { AppContext } from '../shared/context.js';
import { AuthenticationError, PermissionError } from '../shared/errors.js';
import { routeMatcher, type Route } from '../shared/http/operation.js';
import { sha256Hex } from '../shared/ids.js';
import { KEY_PATTERN } from '../keys/key-format.js';
import { findKeyByHash, touchKeyLastUsed, type KeyLookup } from '../keys/repository.js';
import { closeWith, isCluster, patientConnection } from '../../queues/index.js';
import { KeyCache } from './key-cache.js';
import { bearerToken } from './bearer.js';
import { LastUsedTracker } from './last-used.js';

/**
 * Payments API authentication (docs/api.md, "Authentication and keys"): a `vk_test_`/`vk_live_` payments key of an active
 * company. The mode comes from the key. A read-only key passes only on the routes marked
 * `readOnlyKeys` (the events API), with the mode of its own `test` flag.
 */
export function paymentsAuth(ctx: AppContext, routes: Route[]): RequestHandler {
  const readOnlyAllowed = routeMatcher(routes.filter((r) => r.readOnlyKeys));
  const lastUsed = new LastUsedTracker((id) => touchKeyLastUsed(ctx.db, id), ctx.logger);
  const cache = newKeyCache(ctx);
  const lookup = async (keyHash: string): Promise<KeyLookup | undefined> => {
    const cached = await cache.getConfirmed(keyHash);
    if (cached) return cached.lookup;
    const mark = cache.beginRead();
    const found = await findKeyByHash(ctx.db, keyHash);
    cache.set(keyHash, found, mark);
    return found;
  };
  return async (req, res, next) => {
    const token = bearerToken(req);
    if (!KEY_PATTERN.test(token)) throw new AuthenticationError('Invalid API key');
    const key = await lookup(sha256Hex(token));
    if (!key || key.revoked)
      throw new AuthenticationError(key ? 'This API key has been revoked' : 'Invalid API key');
    if (key.kind !== 'payments' && !readOnlyAllowed(req))
      throw new PermissionError('Read-only keys cannot use the payments API (but for GET /v1/events)');
    if (!key.companyActive) throw new PermissionError('The company is not active');
    lastUsed.touch(key.id);
    res.locals.payments = { companyId: key.companyId, keyId: key.id, livemode: !key.test };
    next();
  };
}

/**
 * The process's cache of key lookups, subscribed on a connection of its own (a subscribed
 * connection can do nothing else), closed with the connection it was made from.
 */
function newKeyCache(ctx: AppContext): KeyCache {
  // A Redis Cluster hands a PUBLISH to the other nodes over its bus after it has answered the
  // publisher, so a revoke could reach a web subscribed elsewhere after that web's next request:
  // on a cluster every request reads its key (ttl 0 caches nothing).
  const ttlMs = isCluster(ctx.redis) ? 0 : ctx.config.limits.keyCacheTtlMs;
  const cache = new KeyCache(patientConnection(ctx.redis), ttlMs);
  closeWith(ctx.redis, () => cache.close());
  return cache;
}
