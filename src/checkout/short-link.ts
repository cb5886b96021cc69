import { Router } from 'express';
import type { AppContext } from '../shared/context.js';
import { linkUrl } from '../payment-links/mappers.js';
import { findLinkByShortCode } from '../payment-links/repository.js';

const NOT_FOUND_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Link not found</title></head>' +
  '<body><h1>Link not found</h1><p>This payment link does not exist. Check the address you received.</p></body></html>';

/**
 * `{checkout_url}/r/<short_code>`: the short form of a link for messaging channels. It redirects to
 * the link's url, whatever its status: the checkout is what tells the buyer a link is closed.
 */
export function shortLinkRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/r/:shortCode', async (req, res) => {
    const shortCode = String(req.params.shortCode);
    const link = /^[0-9A-Za-z]{1,32}$/.test(shortCode)
      ? await findLinkByShortCode(ctx.db, shortCode)
      : undefined;
    if (!link) {
      res.status(404).type('html').send(NOT_FOUND_PAGE);
      return;
    }
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(302, linkUrl(ctx.config, link));
  });
  return router;
}
