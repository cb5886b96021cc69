/**
 * Which gateway charges, reads and refunds: the one place an adapter is chosen (docs/architecture.md,
 * "Writing a gateway adapter"). A new charge goes through the company's own connected gateway (its
 * active `gateway` integration, authorized, with a live account), else through the deployment's
 * default: the dev gateway outside production, the signed callback otherwise. An existing charge
 * always goes back to the account it was made in, whatever became of the integration since.
 */
import { findActiveGateway } from '../integrations/repository.js';
import type { Config } from '../shared/config.js';
import type { AppContext } from '../shared/context.js';
import type { GatewayProvider } from '../shared/db/schema.js';
import { connectedAccountOf, findAccount } from './accounts/repository.js';
import { providerOf } from './accounts/kind.js';
import { devGateway, LOCAL_CHECKOUT } from './dev.js';
import { mercadoPagoGateway, MP_NOTIFICATIONS_PATH } from './mercadopago/gateway.js';
import { readMpNotification } from './mercadopago/notifications.js';
import { AccountDisconnectedError, type GatewayNotifications, type PaymentGateway } from './port.js';
import { readSignedCallback } from './signed-callback.js';

export type { PaymentGateway } from './port.js';

/** Mercado Pago's notifications endpoint (docs/mercadopago.md, "Notifications and reconciliation"). */
export const mercadoPagoNotifications: GatewayNotifications = {
  path: MP_NOTIFICATIONS_PATH,
  read: readMpNotification,
};

type Deps = Pick<AppContext, 'db' | 'config' | 'logger'>;

/**
 * Without the dev gateway, payments are made elsewhere and reported through the signed callback: the
 * checkout gives no instructions, and every order waits for its callback.
 */
function callbackOnlyGateway(callbackSecret: string | undefined): PaymentGateway {
  return {
    provider: 'callback',
    accountId: null,
    checkout: LOCAL_CHECKOUT,
    createCharge: () => Promise.resolve({ status: 'pending', reference: null, pix: null, boleto: null }),
    ...(callbackSecret === undefined
      ? {}
      : { readCallback: (callback) => readSignedCallback(callbackSecret, callback) }),
  };
}

const chosen = new WeakMap<Config, PaymentGateway>();

/** The deployment's default gateway (one per process): the dev gateway, or the signed callback alone. */
export function defaultGateway(config: Config): PaymentGateway {
  let gateway = chosen.get(config);
  if (!gateway) {
    gateway = config.devGateway
      ? devGateway(config.gatewayWebhookSecret)
      : callbackOnlyGateway(config.gatewayWebhookSecret);
    chosen.set(config, gateway);
  }
  return gateway;
}

/** The adapter of one stored PSP account. */
async function accountGateway(deps: Deps, accountId: number): Promise<PaymentGateway> {
  const account = await findAccount(deps.db, deps.config.credentialsKey, accountId);
  if (!account) throw new AccountDisconnectedError(`no gateway account ${accountId}`);
  return mercadoPagoGateway(deps, account);
}

/**
 * The gateway a new charge of the company goes through, read at the moment of the charge: a
 * gateway integration deactivated, deleted or waiting for its authorization charges nothing more.
 */
export async function gatewayOfCompany(deps: Deps, companyId: number): Promise<PaymentGateway> {
  const integration = await findActiveGateway(deps.db, companyId);
  if (integration && providerOf(integration.config) === 'mercadopago' && deps.config.mercadoPago) {
    // None while the integration waits for its authorization.
    const accountId = await connectedAccountOf(deps.db, integration.id);
    if (accountId !== undefined) return accountGateway(deps, accountId);
  }
  return defaultGateway(deps.config);
}

/** The gateway an existing charge was made through (its notifications, reconciliation, refund). */
export function gatewayOfCharge(
  deps: Deps,
  charge: { provider: GatewayProvider; accountId: number | null },
): Promise<PaymentGateway> {
  if (charge.provider === 'mercadopago' && charge.accountId !== null)
    return accountGateway(deps, charge.accountId);
  return Promise.resolve(defaultGateway(deps.config));
}

/** The gateway of one PSP account row (a notification names the account, not the charge). */
export const gatewayOfAccount = (deps: Deps, accountId: number): Promise<PaymentGateway> =>
  accountGateway(deps, accountId);
