import type { RequestHandler } from 'express';
import type { AppContext } from '../shared/context.js';
import { AuthenticationError, PermissionError } from '../shared/errors.js';
import { sha256Hex } from '../shared/ids.js';
import { KEY_PATTERN } from '../keys/key-format.js';
import { findKeyByHash, touchKeyLastUsed } from '../keys/repository.js';
import { bearerToken } from './bearer.js';
import { LastUsedTracker } from './last-used.js';

/**
 * Payments API authentication (spec section 5): a `vk_test_`/`vk_live_` payments key of an active
 * company. The mode comes from the key.
 */
export function paymentsAuth(ctx: AppContext): RequestHandler {
  const lastUsed = new LastUsedTracker((id) => touchKeyLastUsed(ctx.db, id), ctx.logger);
  return async (req, res, next) => {
    const token = bearerToken(req);
    if (!KEY_PATTERN.test(token)) throw new AuthenticationError('Invalid API key');
    const key = await findKeyByHash(ctx.db, sha256Hex(token));
    if (!key || key.revoked)
      throw new AuthenticationError(key ? 'This API key has been revoked' : 'Invalid API key');
    if (key.kind !== 'payments') throw new PermissionError('Read-only keys cannot use the payments API');
    if (!key.companyActive) throw new PermissionError('The company is not active');
    lastUsed.touch(key.id);
    res.locals.payments = { companyId: key.companyId, keyId: key.id, livemode: !key.test };
    next();
  };
}
