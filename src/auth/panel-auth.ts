import type { RequestHandler } from 'express';
import type { AppContext } from '../shared/context.js';
import { AuthenticationError, InactiveCompanyError, PermissionError } from '../shared/errors.js';
import { sha256Hex } from '../shared/ids.js';
import { findPanelTokenByHash, touchPanelTokenLastUsed } from '../companies/repository.js';
import { KEY_PATTERN, PANEL_TOKEN_PATTERN } from '../keys/key-format.js';
import { findKeyByHash, touchKeyLastUsed } from '../keys/repository.js';
import { bearerToken } from './bearer.js';
import { LastUsedTracker } from './last-used.js';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Panel API authentication (docs/api.md, "Authentication and keys"): a user's panel token, or a
 * read-only key for GET requests. A payments key is refused with 403; an inactive company with 402.
 */
export function panelAuth(ctx: AppContext): RequestHandler {
  const tokenUse = new LastUsedTracker((id) => touchPanelTokenLastUsed(ctx.db, id), ctx.logger);
  const keyUse = new LastUsedTracker((id) => touchKeyLastUsed(ctx.db, id), ctx.logger);
  return async (req, res, next) => {
    const credential = bearerToken(req);
    const hash = sha256Hex(credential);
    if (PANEL_TOKEN_PATTERN.test(credential)) {
      const token = await findPanelTokenByHash(ctx.db, hash);
      if (!token) throw new AuthenticationError('Invalid or revoked panel token');
      if (!token.companyActive) throw new InactiveCompanyError();
      tokenUse.touch(token.tokenId);
      res.locals.panel = {
        companyId: token.companyId,
        via: 'panel_token',
        role: token.role,
        userId: token.userId,
        keyId: null,
      };
      next();
      return;
    }
    if (!KEY_PATTERN.test(credential)) throw new AuthenticationError('Invalid panel token');
    const key = await findKeyByHash(ctx.db, hash);
    if (!key || key.revoked)
      throw new AuthenticationError(key ? 'This API key has been revoked' : 'Invalid panel token');
    if (key.kind === 'payments') throw new PermissionError('Payments keys cannot use the panel API');
    if (!key.companyActive) throw new InactiveCompanyError();
    if (!READ_METHODS.has(req.method)) throw new PermissionError('Read-only keys can only read (GET)');
    keyUse.touch(key.id);
    res.locals.panel = {
      companyId: key.companyId,
      via: 'read_only_key',
      role: 'read_only',
      userId: null,
      keyId: key.id,
    };
    next();
  };
}
