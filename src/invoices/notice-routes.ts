import express, { Router } from 'express';
import type { AppContext } from '../shared/context.js';
import { errorHandler } from '../shared/http/errors.js';
import { allowOnly } from '../shared/http/operation.js';
import { FOCUSNFE_NOTICES_PATH } from './hook-registration.js';
import { receiveNotice } from './notices.js';

const PATH = `${FOCUSNFE_NOTICES_PATH}/:integration`;

/**
 * `POST {checkout_url}/invoices/focusnfe/notifications/{integration_id}`: Focus NFe's webhook notices
 * (docs/invoices.md). Read from the raw body before any parser of the buyer pages; answered in JSON
 * with the error envelope (401 a wrong or missing Authorization, or an integration without a hook;
 * 400 a body that is not a notice; 404 a path naming no integration, or a reference that is not one of
 * the integration's invoices).
 */
export function focusNfeNoticesRouter(ctx: AppContext): Router {
  const router = Router();
  router.post(
    PATH,
    express.raw({ type: () => true, limit: ctx.config.limits.bodyBytes }),
    async (req, res) => {
      res.json(
        await receiveNotice(ctx, {
          integration: String(req.params.integration),
          authorization: req.get('authorization'),
          rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
        }),
      );
    },
  );
  allowOnly(router, PATH, ['post']);
  // Focus NFe is an API client: its errors are JSON envelopes, not buyer pages.
  router.use(FOCUSNFE_NOTICES_PATH, errorHandler(ctx.logger));
  return router;
}
