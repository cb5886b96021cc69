/** The company's API keys: the list, and (the owner only, as in the panel API) create and revoke. */
import { Router } from 'express';
import { createKey, listKeys, revokeKey } from '../../keys/service.js';
import type { AppContext } from '../../shared/context.js';
import { NotFoundError } from '../../shared/errors.js';
import { v } from '../../shared/validation/typed.js';
import { dashboardLocale } from '../locale.js';
import { confirmPage, sendPage } from '../page.js';
import { bigId, doneQuery, formOf, mode, pathPart, queryOf } from '../params.js';
import { changing, requireOwner, signedIn } from '../session-guard.js';
import { keysPage } from './views.js';

/** As the panel API's create, with the mode a select instead of `test`. */
const keyForm = v
  .object({
    name: v.required(v.string().trim().max(100)),
    kind: v.required(v.enum(['payments', 'read_only'] as const).trim()),
    mode: v.required(mode().trim()),
  })
  .unknown(true);

export function keysRoutes(ctx: AppContext): Router {
  const router = Router({ caseSensitive: true });

  router.get('/keys', async (req, res) => {
    const chrome = signedIn(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const keys = await listKeys(ctx.db, chrome.principal.companyId);
    sendPage(res, 200, page, keysPage(page, chrome, { keys, done: queryOf(req, doneQuery).done }));
  });

  // The new key's value is in this answer only (no redirect, never cached).
  router.post('/keys', async (req, res) => {
    const chrome = requireOwner(req);
    const { name, kind, mode: keyMode } = formOf(req, keyForm);
    const { companyId } = chrome.principal;
    const created = await createKey(ctx.db, { companyId, name, kind, test: keyMode === 'test' });
    const page = dashboardLocale(req);
    const keys = await listKeys(ctx.db, companyId);
    sendPage(res, 201, page, keysPage(page, chrome, { keys, newKey: created.value }));
  });

  router.get('/keys/:id/revoke', async (req, res) => {
    const chrome = changing(req, res);
    if (!chrome) return;
    requireOwner(req);
    const page = dashboardLocale(req);
    const id = pathPart(bigId(), req.params.id);
    const key = (await listKeys(ctx.db, chrome.principal.companyId)).find((k) => k.id === id && !k.revokedAt);
    if (!key) throw new NotFoundError(`No key ${id} in this company`);
    sendPage(
      res,
      200,
      page,
      confirmPage(page, chrome, {
        title: page.t.keys.revokeLabel(key.name),
        question: page.t.confirm.revokeQuestion(key.name),
        hint: page.t.confirm.revokeHint,
        action: `/keys/${id}/revoke`,
        submit: page.t.keys.revoke,
        back: page.href('/keys'),
      }),
    );
  });

  router.post('/keys/:id/revoke', async (req, res) => {
    const { principal } = requireOwner(req);
    await revokeKey(ctx, principal.companyId, pathPart(bigId(), req.params.id));
    res.redirect(303, dashboardLocale(req).href('/keys', { done: 'revoked' }));
  });

  return router;
}
