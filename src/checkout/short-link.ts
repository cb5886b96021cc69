import type { Router } from 'express';
import { allowOnly, caseSensitiveRouter } from '../shared/http/operation.js';
import type { AppContext } from '../shared/context.js';
import { NotFoundError } from '../shared/errors.js';
import { linkUrl } from '../payment-links/mappers.js';
import { findLinkByShortCode } from '../payment-links/repository.js';

/**
 * `{checkout_url}/r/<short_code>`: the short form of a link for messaging channels. It redirects to
 * the link's url, whatever its status: the checkout is what tells the buyer a link is closed.
 */
export function shortLinkRouter(ctx: AppContext): Router {
  const router = caseSensitiveRouter();
  router.get('/r/:shortCode', async (req, res) => {
    const shortCode = String(req.params.shortCode);
    const link = /^[0-9A-Za-z]{1,32}$/.test(shortCode)
      ? await findLinkByShortCode(ctx.db, shortCode)
      : undefined;
    if (!link) throw new NotFoundError('This payment link does not exist. Check the address you received.');
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(302, linkUrl(ctx.config, link));
  });
  allowOnly(router, '/r/:shortCode', ['get']);
  return router;
}
