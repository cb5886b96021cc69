import { Router } from 'express';
import { celebrate, Joi, Segments } from 'celebrate';
import { panelPrincipal, type PanelPrincipal } from '../auth/principal.js';
import type { AppContext } from '../shared/context.js';
import { PermissionError } from '../shared/errors.js';
import type { ApiKeyRow } from './repository.js';
import { createKey, listKeys, revokeKey } from './service.js';

/** A key as the panel shows it: masked, never the full value (spec 5.4). */
export interface KeyWire {
  id: number;
  name: string;
  kind: ApiKeyRow['kind'];
  test: boolean;
  prefix: string;
  last4: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export const toKeyWire = (row: ApiKeyRow): KeyWire => ({
  id: row.id,
  name: row.name,
  kind: row.kind,
  test: row.test,
  prefix: row.prefix,
  last4: row.last4,
  created_at: row.createdAt.toISOString(),
  last_used_at: row.lastUsedAt ? row.lastUsedAt.toISOString() : null,
  revoked_at: row.revokedAt ? row.revokedAt.toISOString() : null,
});

const createKeySchema = {
  [Segments.BODY]: Joi.object({
    name: Joi.string().trim().min(1).max(100).required(),
    kind: Joi.string().valid('payments', 'read_only').required(),
    test: Joi.boolean().default(false),
  }).required(),
};

const keyIdSchema = {
  [Segments.PARAMS]: Joi.object({
    id: Joi.number().integer().min(1).max(Number.MAX_SAFE_INTEGER).required(),
  }),
};

/** Spec 5.4: only the company owner creates or revokes keys. */
function requireOwner(principal: PanelPrincipal): PanelPrincipal {
  if (principal.role !== 'owner')
    throw new PermissionError('Only the company owner can create or revoke keys');
  return principal;
}

/** `{panel_api_url}/api-keys`: list (masked), create (full value once), revoke. */
export function keysPanelRouter(ctx: AppContext): Router {
  const router = Router();

  router.get('/', async (_req, res) => {
    const rows = await listKeys(ctx.db, panelPrincipal(res).companyId);
    res.json(rows.map(toKeyWire));
  });

  router.post('/', celebrate(createKeySchema), async (req, res) => {
    const { companyId } = requireOwner(panelPrincipal(res));
    const body = req.body as { name: string; kind: ApiKeyRow['kind']; test: boolean };
    const created = await createKey(ctx.db, { companyId, ...body });
    res.status(201).json({ ...toKeyWire(created.row), key: created.value });
  });

  router.delete('/:id', celebrate(keyIdSchema), async (req, res) => {
    const { companyId } = requireOwner(panelPrincipal(res));
    const { id } = req.params as unknown as { id: number };
    await revokeKey(ctx.db, companyId, id);
    res.status(204).end();
  });

  return router;
}
