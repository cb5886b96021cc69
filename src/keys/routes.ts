import type { AppContext } from '../shared/context.js';
import { PermissionError } from '../shared/errors.js';
import { operation, route, type Route } from '../shared/http/operation.js';
import { panelPrincipal, type PanelPrincipal } from '../shared/http/principal.js';
import { arrayOf, errors, json, noContent, ref } from '../shared/openapi/builders.js';
import { references } from '../shared/validation/references.js';
import { v } from '../shared/validation/typed.js';
import type { ApiKeyRow } from './repository.js';
import { createKey, listKeys, revokeKey } from './service.js';

/** A key as the panel shows it: masked, never the full value (it is shown once, at creation). */
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

const createKeyBody = v.required(
  v.object({
    name: v.required(v.string().trim().min(1).max(100)),
    kind: v.required(v.enum(['payments', 'read_only'] as const)),
    test: v.defaulted(v.strictBoolean(), false),
  }),
);

const keyParams = v.object({
  id: v
    .required(v.integer().min(1).max(Number.MAX_SAFE_INTEGER))
    .description('Key id')
    .meta(references({ operationId: 'listApiKeys', property: 'id' })),
});

/** Only the company owner creates or revokes keys. */
function requireOwner(principal: PanelPrincipal): PanelPrincipal {
  if (principal.role !== 'owner')
    throw new PermissionError('Only the company owner can create or revoke keys');
  return principal;
}

const tags = ['API keys'];

/** `{panel_api_url}/api-keys`: list (masked), create (full value once), revoke. */
export function keysRoutes(ctx: AppContext): Route[] {
  return [
    route(
      operation({
        method: 'get',
        path: '/api-keys',
        operationId: 'listApiKeys',
        summary: "The company's keys, masked (revoked ones included)",
        tags,
        request: {},
        responses: { '200': arrayOf('ApiKey', 'Keys') },
      }),
      async (_input, res) => {
        res.json((await listKeys(ctx.db, panelPrincipal(res).companyId)).map(toKeyWire));
      },
    ),
    route(
      operation({
        method: 'post',
        path: '/api-keys',
        operationId: 'createApiKey',
        summary: 'Create a key (owner only); the full value is returned this once',
        tags,
        request: { body: createKeyBody },
        responses: {
          '201': json(ref('CreatedApiKey'), 'Created; `key` is the full value'),
          ...errors('409'),
        },
      }),
      async ({ body }, res) => {
        const { companyId } = requireOwner(panelPrincipal(res));
        const created = await createKey(ctx.db, { companyId, ...body });
        res.status(201).json({ ...toKeyWire(created.row), key: created.value });
      },
    ),
    route(
      operation({
        method: 'delete',
        path: '/api-keys/{id}',
        operationId: 'revokeApiKey',
        summary: 'Revoke a key (owner only); refused from the next request on',
        tags,
        request: { params: keyParams },
        responses: { '204': noContent('Revoked (also when it was already revoked)'), ...errors('404') },
      }),
      async ({ params }, res) => {
        const { companyId } = requireOwner(panelPrincipal(res));
        await revokeKey(ctx, companyId, params.id);
        res.status(204).end();
      },
    ),
  ];
}
