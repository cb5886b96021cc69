import { Router, type RequestHandler } from 'express';
import { celebrate } from 'celebrate';
import { paymentsPrincipal } from '../auth/principal.js';
import type { AppContext } from '../shared/context.js';
import { scheduleLinkExpiry } from '../events/publisher.js';
import { toPaymentLinkWire } from './mappers.js';
import { createLinkRules, listLinksRules, type CreateLinkBody, type ListLinksQuery } from './schemas.js';
import { cancelPaymentLink, createPaymentLink, getPaymentLink, listPaymentLinks } from './service.js';

export interface PaymentLinksRouterOptions {
  /** Runs before create and cancel: the tighter per-key limit on writes (spec section 8). */
  writeLimit: RequestHandler;
}

// Every field is checked, unknown ones included, and all problems are reported at once.
const joiOptions = { abortEarly: false, convert: true };

/** The payment-links endpoints of the payments API (spec 4.1), mounted under `/v1`. */
export function paymentLinksRouter(ctx: AppContext, options: PaymentLinksRouterOptions): Router {
  const router = Router();
  const wire = toPaymentLinkWire.bind(null, ctx.config);

  router.post(
    '/payment-links',
    options.writeLimit,
    celebrate(createLinkRules, joiOptions),
    async (req, res) => {
      const key = req.get('idempotency-key');
      const created = await createPaymentLink(
        ctx.db,
        paymentsPrincipal(res),
        req.body as CreateLinkBody,
        key,
      );
      if (created.replayed) res.setHeader('Idempotent-Replayed', 'true');
      else scheduleLinkExpiry(ctx, created.link);
      res.status(created.replayed ? 200 : 201).json(wire(created.link, created.order));
    },
  );

  router.get('/payment-links', celebrate(listLinksRules, joiOptions), async (req, res) => {
    const page = await listPaymentLinks(
      ctx.db,
      paymentsPrincipal(res),
      req.query as unknown as ListLinksQuery,
    );
    res.json({ object: 'list', data: page.links.map((l) => wire(l.link, l.order)), has_more: page.hasMore });
  });

  // The id needs no schema: the service answers 404 for anything that is not a link of the caller.
  router.get('/payment-links/:id', async (req, res) => {
    const { companyId, livemode } = paymentsPrincipal(res);
    const found = await getPaymentLink(ctx.db, { companyId, livemode, linkId: String(req.params.id) });
    res.json(wire(found.link, found.order));
  });

  router.post('/payment-links/:id/cancel', options.writeLimit, async (req, res) => {
    const { companyId, livemode } = paymentsPrincipal(res);
    const canceled = await cancelPaymentLink(ctx.db, { companyId, livemode, linkId: String(req.params.id) });
    res.json(wire(canceled.link, canceled.order));
  });

  return router;
}
