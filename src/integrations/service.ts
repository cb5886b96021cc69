import type { ProductChanges } from '../catalog/service.js';
import { LISTED_EVENT_KINDS } from '../events/kinds.js';
import type { AppContext } from '../shared/context.js';
import type { Db, Executor } from '../shared/db/index.js';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import { isUniqueViolation, withoutParameters } from '../shared/db/errors.js';
import * as repo from './repository.js';
import { refreshProductIds, withCompanyIntegrationsLock } from './repository.js';
import type { IntegrationInput, RotateSecretInput } from './schemas.js';
import { checkFilterPaths, storedFilter, type EventPathCheck, type WebhookFilter } from './filters.js';
import { stringOf } from './kinds/config-values.js';
import type { Alert } from './kinds/connection.js';
import { SEALED_GROUPS, type CheckedConfig, type SealedGroup } from './kinds/kind.js';
import { connectionOf, gatewayConnection, kindOf } from './kinds/registry.js';
import { sealValues } from './kinds/sealed.js';
import { newWebhookSecret } from './kinds/webhook/index.js';

type Deps = Pick<AppContext, 'db' | 'config'>;
/** What a create or update needs: the check of a filter's paths against the event schemas too. */
export type EditDeps = Deps & { eventPaths: EventPathCheck };

export interface IntegrationWithLinks {
  row: repo.IntegrationRow;
  links: repo.IntegrationProductView[];
}

export type { Alert } from './kinds/connection.js';

const ONE_GATEWAY_INDEX = 'integrations_one_active_gateway_idx';

/**
 * The filter to store: only kinds whose events a filter can select take one, and every path must be
 * one some event kind has. Null or `{}` is no filter.
 */
function filterFor(deps: EditDeps, type: string, filter: WebhookFilter | null): WebhookFilter | null {
  const stored = storedFilter(filter);
  if (stored === null) return null;
  if (!kindOf(type).filterable)
    throw ValidationError.field('filter', `an integration of type ${type} receives no webhooks to filter`);
  checkFilterPaths(stored, deps.eventPaths);
  return stored;
}

/**
 * A kind that receives events without a destination (an invoice integration) acts on them through a
 * queue of its own, never through webhook deliveries: its `events` stay empty, so the fan-out makes
 * none for it. Undefined: nothing to check.
 */
function eventsFor(type: string, checked: CheckedConfig | undefined, events: string[] | undefined): void {
  const kind = kindOf(type);
  if (kind.destination || (checked?.receives ?? 'none') === 'none' || !events?.length) return;
  throw ValidationError.field(
    'events',
    `must be empty: an integration of type ${type} acts on its own trigger and receives no webhooks`,
  );
}

/** The kind's sealed groups as the row stores them: given values sealed, masks kept from `stored`. */
function sealedColumns(
  deps: Deps,
  id: number,
  sealed: CheckedConfig['sealed'],
  stored: Pick<repo.IntegrationRow, SealedGroup> | undefined,
): Partial<Pick<repo.IntegrationRow, SealedGroup>> {
  const columns: Partial<Pick<repo.IntegrationRow, SealedGroup>> = {};
  for (const group of SEALED_GROUPS) {
    const given = sealed?.[group];
    if (given !== undefined)
      columns[group] = sealValues(deps.config.credentialsKey, id, group, given, stored?.[group] ?? null);
  }
  return columns;
}

/** Unique violations of the one-active-gateway index are the 409 of a second active `gateway` integration of a company. */
function writeError(err: unknown): Error {
  if (isUniqueViolation(err, ONE_GATEWAY_INDEX)) {
    return new ConflictError('The company already has an active gateway integration; deactivate it first');
  }
  return withoutParameters(err);
}

async function withLinks(db: Executor, row: repo.IntegrationRow): Promise<IntegrationWithLinks> {
  return { row, links: await repo.listLinks(db, [row.id]) };
}

async function requireIntegration(db: Executor, companyId: number, id: number): Promise<repo.IntegrationRow> {
  const row = await repo.findIntegration(db, companyId, id);
  if (!row) throw new NotFoundError(`No integration ${id} in this company`);
  return row;
}

export async function listIntegrations(
  db: Db,
  companyId: number,
  type: string | undefined,
): Promise<IntegrationWithLinks[]> {
  // The links by company, beside the rows: one round of statements (docs/dashboard.md).
  const [rows, links] = await Promise.all([
    repo.listIntegrations(db, companyId, type),
    repo.listCompanyLinks(db, companyId, type),
  ]);
  return rows.map((row) => ({ row, links: links.filter((l) => l.integrationId === row.id) }));
}

/** The row and its links side by side (one round of statements); another company's links are dropped with the 404. */
export async function getIntegration(db: Db, companyId: number, id: number): Promise<IntegrationWithLinks> {
  const [row, links] = await Promise.all([requireIntegration(db, companyId, id), repo.listLinks(db, [id])]);
  return { row, links };
}

/** Creates an integration; a gateway starts waiting for its OAuth authorization (its connection port). */
export async function createIntegration(
  deps: EditDeps,
  companyId: number,
  input: Required<Pick<IntegrationInput, 'type' | 'config' | 'events'>> & IntegrationInput,
  linkedProducts?: number[],
): Promise<IntegrationWithLinks> {
  const filter = filterFor(deps, input.type, input.filter ?? null);
  const checked = await kindOf(input.type).check(deps, {
    type: input.type,
    config: input.config,
    stored: undefined,
  });
  eventsFor(input.type, checked, input.events);
  const connection = connectionOf(input.type);
  return withCompanyIntegrationsLock(deps.db, companyId, async (tx) => {
    const created = await repo
      .insertIntegration(tx, {
        companyId,
        type: input.type,
        isActive: input.is_active ?? true,
        config: checked.config,
        receives: checked.receives,
        events: input.events,
        sendToAllProducts: input.send_to_all_products ?? false,
        rateLimitPerSecond: input.rate_limit_per_second ?? null,
        filter,
      })
      .catch((err: unknown) => {
        throw writeError(err);
      });
    // The id is part of each sealed value's purpose, so they are sealed once the row exists.
    const sealed = sealedColumns(deps, created.id, checked.sealed, undefined);
    if (Object.keys(sealed).length > 0) await repo.updateIntegration(tx, companyId, created.id, sealed);
    await connection?.requireAuthorization(deps, tx, created);
    if (linkedProducts) await linkExactly(tx, companyId, created.id, linkedProducts);
    await refreshProductIds(tx, companyId, created.id);
    return withLinks(tx, await requireIntegration(tx, companyId, created.id));
  });
}

/**
 * PATCH: the creation fields, all optional. `is_active: true` re-enables an inactive integration,
 * e.g. one the circuit breaker disabled: `disabled_reason` is cleared and the failure
 * count starts again at 0. Sent to an active integration it changes nothing there.
 */
export async function updateIntegration(
  deps: EditDeps,
  companyId: number,
  id: number,
  input: IntegrationInput,
  linkedProducts?: number[],
): Promise<IntegrationWithLinks> {
  // Read, validate and write under the company's integration lock: two concurrent PATCHes of one
  // integration each see the other's committed change (type, secret), never a stale copy.
  return withCompanyIntegrationsLock(deps.db, companyId, async (tx) => {
    const current = await requireIntegration(tx, companyId, id);
    const type = input.type ?? current.type;
    const typeChanged = type !== current.type;
    const kind = kindOf(type);
    const sameKind = kind === kindOf(current.type);
    // A config left out is kept; moving to another kind carries none of it across.
    const given = input.config ?? (typeChanged ? (sameKind ? current.config : {}) : undefined);
    const checked =
      given === undefined ? undefined : await kind.check(deps, { type, config: given, stored: current });
    const config = checked?.config;

    const changes: repo.IntegrationChanges = {};
    const connection = connectionOf(type);
    const reconnect =
      connection !== undefined && (typeChanged || connection.reconnectNeeded(current.config, config));
    if (typeChanged || reconnect) {
      changes.type = type;
      // Another provider: a new authorization; no longer connecting: the old account stops charging.
      if (connection) await connection.requireAuthorization(deps, tx, current);
      else await connectionOf(current.type)?.release(tx, id);
    }
    if (checked !== undefined) {
      changes.config = checked.config;
      changes.receives = checked.receives;
    }
    // A secret set by hand replaces the rotation too: the secret it overlapped with stops signing.
    if (config !== undefined && config.secret !== current.config.secret) {
      changes.previousSecret = null;
      changes.previousSecretExpiresAt = null;
    }
    eventsFor(type, checked, input.events);
    if (input.events !== undefined) changes.events = input.events;
    // A row saved before its kind acted on its own trigger (an invoice integration that was managed)
    // drops the webhook events it listed.
    else if (checked && !kind.destination && checked.receives !== 'none' && current.events.length > 0)
      changes.events = [];
    if (input.send_to_all_products !== undefined) changes.sendToAllProducts = input.send_to_all_products;
    if (input.is_active !== undefined) changes.isActive = input.is_active;
    if (input.rate_limit_per_second !== undefined) changes.rateLimitPerSecond = input.rate_limit_per_second;
    // Sealed values a config leaves out are kept (within the kind); the mask keeps one stored value.
    Object.assign(changes, sealedColumns(deps, id, checked?.sealed, sameKind ? current : undefined));
    if (!sameKind) for (const group of SEALED_GROUPS) changes[group] ??= null;
    if (input.filter !== undefined) changes.filter = filterFor(deps, type, input.filter);
    // Moving to a kind without filters leaves nothing to filter.
    else if (typeChanged && !kind.filterable) changes.filter = null;
    const reenable = input.is_active === true;
    const updated = await repo
      .updateIntegration(tx, companyId, id, changes, reenable)
      .catch((err: unknown) => {
        throw writeError(err);
      });
    if (!updated) throw new NotFoundError(`No integration ${id} in this company`);
    if (linkedProducts) await linkExactly(tx, companyId, id, linkedProducts);
    await refreshProductIds(tx, companyId, id);
    return withLinks(tx, await requireIntegration(tx, companyId, id));
  });
}

/**
 * Secret rotation (docs/api.md, "Webhook operations"): a new generated secret signs from now on; the
 * replaced one keeps signing beside it until it expires. Only the replaced secret is kept, so a
 * rotation during an overlap ends the older secret at once.
 */
export async function rotateSecret(
  db: Db,
  companyId: number,
  id: number,
  input: RotateSecretInput,
): Promise<IntegrationWithLinks> {
  return withCompanyIntegrationsLock(db, companyId, async (tx) => {
    const current = await requireIntegration(tx, companyId, id);
    const replaced = stringOf(current.config, 'secret');
    if (!kindOf(current.type).rotatesSecret || replaced === undefined) {
      throw new ConflictError(`An integration of type ${current.type} has no signing secret to rotate`);
    }
    const overlapMs = input.old_secret_expires_in_seconds * 1000;
    await repo.updateIntegration(tx, companyId, id, {
      config: { ...current.config, secret: newWebhookSecret() },
      previousSecret: overlapMs > 0 ? replaced : null,
      previousSecretExpiresAt: overlapMs > 0 ? new Date(Date.now() + overlapMs) : null,
    });
    return withLinks(tx, await requireIntegration(tx, companyId, id));
  });
}

export async function deleteIntegration(db: Db, companyId: number, id: number): Promise<void> {
  const deleted = await repo.deleteIntegration(db, companyId, id);
  if (!deleted) throw new NotFoundError(`No integration ${id} in this company`);
}

/** Every kind the panel list offers, with its label; `order.payment_declined` is API-only. */
export const panelEventTypes = (): Array<{ value: string; label: string }> =>
  LISTED_EVENT_KINDS.map(({ value, label }) => ({ value, label }));

export const oauthCallbackUrl = (deps: Deps, state: string, code: string): string =>
  `${deps.config.urls.panel}/integrations/oauth/callback?state=${encodeURIComponent(state)}&code=${encodeURIComponent(code)}`;

/** Whether the company's gateway waits for its authorization: the gateway's connection port answers. */
export const pendingAlert = (
  deps: Deps,
  companyId: number,
  options: { withOauthUrl: boolean },
): Promise<Alert> => gatewayConnection().alert(deps, companyId, options);

/**
 * The gateway's OAuth redirect (the connection port: src/gateways/accounts/connection.ts): the code
 * exchanged, the tokens stored sealed, the alert cleared. Answers the company's alert as it is
 * afterwards, and which integration was connected.
 */
export async function completeOauth(
  deps: Deps,
  state: string,
  code: string,
): Promise<{ alert: Alert; integrationId: number }> {
  const { integrationId, companyId } = await gatewayConnection().complete(deps, state, code);
  return { alert: await pendingAlert(deps, companyId, { withOauthUrl: false }), integrationId };
}

export async function listProductLinks(
  db: Db,
  companyId: number,
  id: number,
): Promise<repo.IntegrationProductView[]> {
  await requireIntegration(db, companyId, id);
  return repo.listLinks(db, [id]);
}

/** Links one of the company's products; 409 when it is already linked. */
/**
 * Leaves the integration linked to exactly these products (the dashboard's settings form sends the
 * whole list), in the caller's transaction, so the integration and its links change together.
 */
async function linkExactly(tx: Executor, companyId: number, id: number, productIds: number[]): Promise<void> {
  const wanted = new Set(productIds);
  const linked = new Set((await repo.listLinks(tx, [id])).map((l) => l.productId));
  for (const productId of linked) if (!wanted.has(productId)) await repo.deleteLink(tx, id, productId);
  for (const productId of wanted) {
    if (linked.has(productId)) continue;
    if ((await repo.insertLink(tx, companyId, id, productId)) === 'no_product')
      throw ValidationError.field('product_ids', `no product ${productId} in this company`);
  }
}

export async function linkProduct(
  db: Db,
  companyId: number,
  id: number,
  productId: number,
): Promise<repo.IntegrationProductView> {
  return withCompanyIntegrationsLock(db, companyId, async (tx) => {
    await requireIntegration(tx, companyId, id);
    const outcome = await repo.insertLink(tx, companyId, id, productId);
    if (outcome === 'no_product')
      throw ValidationError.field('product_id', `no product ${productId} in this company`);
    if (outcome === 'already_linked') {
      throw new ConflictError(`Product ${productId} is already linked to integration ${id}`);
    }
    await refreshProductIds(tx, companyId, id);
    return requireLink(tx, id, productId);
  });
}

async function requireLink(
  db: Executor,
  id: number,
  productId: number,
): Promise<repo.IntegrationProductView> {
  const link = await repo.findLink(db, id, productId);
  if (!link) throw new NotFoundError(`Product ${productId} is not linked to integration ${id}`);
  return link;
}

/**
 * A change to an existing product link, under the company's integration lock, with the product_ids
 * cache refreshed in the same transaction; 404 when the product is not linked.
 */
function changeProductLink<T>(
  db: Db,
  companyId: number,
  id: number,
  productId: number,
  change: (tx: Executor) => Promise<boolean>,
  result: (tx: Executor) => Promise<T>,
): Promise<T> {
  return withCompanyIntegrationsLock(db, companyId, async (tx) => {
    await requireIntegration(tx, companyId, id);
    if (!(await change(tx)))
      throw new NotFoundError(`Product ${productId} is not linked to integration ${id}`);
    await refreshProductIds(tx, companyId, id);
    return result(tx);
  });
}

export const setProductLinkActive = (
  db: Db,
  companyId: number,
  id: number,
  productId: number,
  isActive: boolean,
): Promise<repo.IntegrationProductView> =>
  changeProductLink(
    db,
    companyId,
    id,
    productId,
    (tx) => repo.setLinkActive(tx, id, productId, isActive),
    (tx) => requireLink(tx, id, productId),
  );

export const unlinkProduct = (db: Db, companyId: number, id: number, productId: number): Promise<void> =>
  changeProductLink(
    db,
    companyId,
    id,
    productId,
    (tx) => repo.deleteLink(tx, id, productId),
    async () => undefined,
  );

/**
 * The catalog's product changes as the integrations need them: under the company's integration
 * lock, with every integration's product_ids refreshed in the same transaction.
 */
export const productChanges: ProductChanges = (db, companyId, change) =>
  withCompanyIntegrationsLock(db, companyId, async (tx) => {
    const result = await change(tx);
    await refreshProductIds(tx, companyId);
    return result;
  });
