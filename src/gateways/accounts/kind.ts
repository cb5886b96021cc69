/**
 * The `gateway` integration type: the company's connection to its PSP account (docs/mercadopago.md),
 * not an event destination. Its config names the provider; once connected, the connection adds the
 * account's public facts (`account_id`, `public_key`, `connected_at`), which a request cannot set.
 * The integration core knows it only through its port (src/integrations/kinds/connection.ts):
 * `src/gateways/install.ts` provides it, with its connection, at start-up.
 */
import { checkedAgainst, stringOf } from '../../integrations/kinds/config-values.js';
import type { IntegrationKind, KindDeps, StoredConfig } from '../../integrations/kinds/kind.js';
import { presentFreeForm } from '../../integrations/kinds/managed.js';
import { ValidationError } from '../../shared/errors.js';
import { v } from '../../shared/validation/typed.js';

export const GATEWAY_PROVIDERS = ['mercadopago', 'dev'] as const;
export type GatewayProviderName = (typeof GATEWAY_PROVIDERS)[number];

/** Config keys the service sets on a connected gateway; a request cannot set them. */
const CONNECTION_KEYS = ['account_id', 'public_key', 'connected_at', 'oauth_connected_at'] as const;

/** The provider a gateway integration's config names (configs from before providers were dev ones). */
export const providerOf = (config: StoredConfig): GatewayProviderName =>
  config.provider === 'mercadopago' ? 'mercadopago' : 'dev';

/**
 * The stored config of a gateway integration from a request's: `provider` checked against what the
 * deployment offers (MP only with its settings, dev never in production), the connection's own keys
 * kept from the stored config while the provider stays, dropped when it changes.
 */
export function gatewayConfig(
  deps: KindDeps,
  requested: Record<string, string>,
  stored: StoredConfig | undefined,
): StoredConfig {
  const fallback =
    (stored && stringOf(stored, 'provider')) ?? (deps.config.mercadoPago ? 'mercadopago' : 'dev');
  const provider = requested.provider ?? fallback;
  if (provider !== 'mercadopago' && provider !== 'dev')
    throw ValidationError.field('config.provider', `must be one of ${GATEWAY_PROVIDERS.join(', ')}`);
  if (provider === 'mercadopago' && !deps.config.mercadoPago)
    throw ValidationError.field(
      'config.provider',
      'mercadopago needs the deployment settings MERCADOPAGO_CLIENT_ID, MERCADOPAGO_CLIENT_SECRET and MERCADOPAGO_WEBHOOK_SECRET',
    );
  if (provider === 'dev' && deps.config.env === 'production')
    throw ValidationError.field('config.provider', 'dev is not available in production');
  const config: StoredConfig = Object.fromEntries(
    Object.entries(requested).filter(([key]) => !(CONNECTION_KEYS as readonly string[]).includes(key)),
  );
  config.provider = provider;
  if (stored && providerOf(stored) === provider)
    for (const key of CONNECTION_KEYS) if (stored[key] !== undefined) config[key] = stored[key];
  return config;
}

/** Whether a config change means the company must authorize again (another provider). */
export const reconnectNeeded = (before: StoredConfig, after: StoredConfig | undefined): boolean =>
  after !== undefined && providerOf(before) !== providerOf(after);

/**
 * `provider`, among those a deployment can offer (whether this one does: `check`); the connection's
 * own keys may be sent back as they were read, and are ignored.
 */
const gatewayRequestConfig = v.object({
  provider: v.enum(['mercadopago', 'dev'] as const).description('The PSP: `mercadopago` or `dev`'),
  ...Object.fromEntries(
    CONNECTION_KEYS.map((key) => [
      key,
      v.string().allow('').max(2000).description('Set by the service; ignored'),
    ]),
  ),
});

/** The kind without its connection (install.ts adds it). */
export const gatewayKind: IntegrationKind = {
  types: ['gateway'],
  createConfig: gatewayRequestConfig,
  updateConfig: gatewayRequestConfig,
  async check(deps, { type, config, stored }) {
    const requested = checkedAgainst(gatewayRequestConfig, type, config);
    return {
      config: gatewayConfig(deps, requested, stored?.type === 'gateway' ? stored.config : undefined),
      receives: 'none',
    };
  },
  present: presentFreeForm,
  filterable: false,
  rotatesSecret: false,
  testSends: false,
};
