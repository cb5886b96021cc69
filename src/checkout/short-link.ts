import type { Router } from 'express';
import { allowOnly, caseSensitiveRouter } from '../shared/http/operation.js';
import type { AppContext } from '../shared/context.js';
import { linkUrl } from '../payment-links/mappers.js';
import { findLinkByShortCode } from '../payment-links/repository.js';
import { pageLocale } from './locale.js';
import { notFound } from './page-errors.js';

/**
 * `{checkout_url}/r/<short_code>`: the short form of a link for messaging channels. It redirects to
 * the link's url, whatever its status: the checkout is what tells the buyer a link is closed. The
 * redirect is relative (`../<code>?plink=<id>`), so the buyer stays on the host they opened, and
 * it carries a `lang` the short address chose.
 */
export function shortLinkRouter(ctx: AppContext): Router {
  const router = caseSensitiveRouter();
  router.get('/r/:shortCode', async (req, res) => {
    const shortCode = String(req.params.shortCode);
    const link = /^[0-9A-Za-z]{1,32}$/.test(shortCode)
      ? await findLinkByShortCode(ctx.db, shortCode)
      : undefined;
    if (!link) throw notFound('link_not_found');
    const checkout = ctx.config.urls.checkout;
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(302, pageLocale(req).local(linkUrl(ctx.config, link).slice(checkout.length + 1)));
  });
  allowOnly(router, '/r/:shortCode', ['get']);
  return router;
}
