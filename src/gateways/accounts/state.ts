/**
 * The dashboard's Connect Mercado Pago section: where the company's connection stands, and the start
 * of a connection (the gateway integration created or moved to Mercado Pago through the integration
 * core, then the address of MP's consent page).
 */
import { stringOf } from '../../integrations/kinds/config-values.js';
import { createIntegration, updateIntegration, type EditDeps } from '../../integrations/service.js';
import type { AppContext } from '../../shared/context.js';
import { activeGateway, authorizationAddress } from './connection.js';
import { findAuthorization } from './authorizations.js';

type Deps = Pick<AppContext, 'db' | 'config'>;

/** Where a company's Mercado Pago connection stands, for the dashboard. */
export type MercadoPagoState =
  | { state: 'unavailable' }
  | { state: 'none' }
  | { state: 'pending'; integrationId: number; reconnect: boolean }
  | { state: 'connected'; integrationId: number; accountId: string; connectedAt: string | null }
  | { state: 'other'; integrationId: number; provider: string };

/** The company's gateway as the dashboard's Connect Mercado Pago section shows it. */
export async function mercadoPagoState(deps: Deps, companyId: number): Promise<MercadoPagoState> {
  if (!deps.config.mercadoPago) return { state: 'unavailable' };
  const gateway = await activeGateway(deps.db, companyId);
  if (!gateway) return { state: 'none' };
  const { integration: row, pending } = gateway;
  const provider = stringOf(row.config, 'provider');
  if (provider !== 'mercadopago')
    return { state: 'other', integrationId: row.id, provider: provider ?? 'dev' };
  if (pending)
    return { state: 'pending', integrationId: row.id, reconnect: row.config.account_id !== undefined };
  return {
    state: 'connected',
    integrationId: row.id,
    accountId: stringOf(row.config, 'account_id') ?? '',
    connectedAt: stringOf(row.config, 'connected_at') ?? null,
  };
}

/**
 * The dashboard's Connect Mercado Pago: the company's gateway made a Mercado Pago one waiting for its
 * authorization (created, moved from another provider, or as it is when it waits already), and the
 * address of MP's consent page. Undefined when it is connected already.
 */
export async function startMercadoPagoConnection(
  deps: EditDeps,
  companyId: number,
): Promise<string | undefined> {
  const current = await activeGateway(deps.db, companyId);
  let row = current?.integration;
  if (!current) {
    row = (
      await createIntegration(deps, companyId, {
        type: 'gateway',
        config: { provider: 'mercadopago' },
        events: [],
      })
    ).row;
  } else if (stringOf(current.integration.config, 'provider') !== 'mercadopago') {
    row = (
      await updateIntegration(deps, companyId, current.integration.id, {
        config: { provider: 'mercadopago' },
      })
    ).row;
  } else if (!current.pending) {
    return undefined;
  }
  if (!row) return undefined;
  const pending = await findAuthorization(deps.db, row.id);
  return pending ? authorizationAddress(deps, row, pending) : undefined;
}
