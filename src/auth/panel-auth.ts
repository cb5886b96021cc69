import type { RequestHandler } from 'express';
import type { AppContext } from '../shared/context.js';
import type { Executor } from '../shared/db/index.js';
import { AuthenticationError, InactiveCompanyError, PermissionError } from '../shared/errors.js';
import type { PanelPrincipal } from '../shared/http/principal.js';
import { sha256Hex } from '../shared/ids.js';
import { findPanelTokenByHash, touchPanelTokenLastUsed } from '../companies/repository.js';
import { KEY_PATTERN, PANEL_TOKEN_PATTERN } from '../keys/key-format.js';
import { findKeyByHash, touchKeyLastUsed } from '../keys/repository.js';
import { bearerToken } from './bearer.js';
import { LastUsedTracker } from './last-used.js';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A panel credential resolved: who it is, and the token or key row it came from. */
export interface ResolvedPanelCredential {
  principal: PanelPrincipal;
  tokenId: number | null;
}

/**
 * A panel token or a read-only key, as the panel API and the dashboard's sign-in read it: 401 for
 * an unknown or revoked one, 403 for a payments key, 402 for an inactive company.
 */
export async function resolvePanelCredential(
  db: Executor,
  credential: string,
): Promise<ResolvedPanelCredential> {
  const hash = sha256Hex(credential);
  if (PANEL_TOKEN_PATTERN.test(credential)) {
    const token = await findPanelTokenByHash(db, hash);
    if (!token) throw new AuthenticationError('Invalid or revoked panel token');
    if (!token.companyActive) throw new InactiveCompanyError();
    return {
      tokenId: token.tokenId,
      principal: {
        companyId: token.companyId,
        via: 'panel_token',
        role: token.role,
        userId: token.userId,
        keyId: null,
      },
    };
  }
  if (!KEY_PATTERN.test(credential)) throw new AuthenticationError('Invalid panel token');
  const key = await findKeyByHash(db, hash);
  if (!key || key.revoked)
    throw new AuthenticationError(key ? 'This API key has been revoked' : 'Invalid panel token');
  if (key.kind === 'payments') throw new PermissionError('Payments keys cannot use the panel API');
  if (!key.companyActive) throw new InactiveCompanyError();
  return {
    tokenId: null,
    principal: {
      companyId: key.companyId,
      via: 'read_only_key',
      role: 'read_only',
      userId: null,
      keyId: key.id,
    },
  };
}

/**
 * Panel API authentication (docs/api.md, "Authentication and keys"): a user's panel token, or a
 * read-only key for GET requests. A payments key is refused with 403; an inactive company with 402.
 */
export function panelAuth(ctx: AppContext): RequestHandler {
  const tokenUse = new LastUsedTracker((id) => touchPanelTokenLastUsed(ctx.db, id), ctx.logger);
  const keyUse = new LastUsedTracker((id) => touchKeyLastUsed(ctx.db, id), ctx.logger);
  return async (req, res, next) => {
    const { principal, tokenId } = await resolvePanelCredential(ctx.db, bearerToken(req));
    if (principal.via === 'read_only_key' && !READ_METHODS.has(req.method))
      throw new PermissionError('Read-only keys can only read (GET)');
    if (tokenId !== null) tokenUse.touch(tokenId);
    if (principal.keyId !== null) keyUse.touch(principal.keyId);
    res.locals.panel = principal;
    next();
  };
}
