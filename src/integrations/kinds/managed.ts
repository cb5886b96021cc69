/**
 * The managed types as the panel has always kept them: CRUD and product links, a config of free-form
 * string values (possibly none), and no events received. A kind that learns to deliver (an ad
 * platform, a fiscal provider, the members area) replaces its type here with a room of its own.
 */
import { checkedAgainst, freeFormConfig } from './config-values.js';
import type { IntegrationKind, KindRow, KindView, WireConfig } from './kind.js';
import type { IntegrationType } from './types.js';
import { maskSecret } from './webhook/index.js';

/** The config as stored, a value named `secret` masked for read-only keys (as a webhook's is). */
export function presentFreeForm(row: KindRow, view: KindView): WireConfig {
  const { secret, ...config } = row.config;
  return typeof secret === 'string'
    ? { ...config, secret: view.revealSecret ? secret : maskSecret(secret) }
    : config;
}

export const managedKind = (types: readonly IntegrationType[]): IntegrationKind => ({
  types,
  createConfig: freeFormConfig,
  updateConfig: freeFormConfig,
  async check(_deps, { type, config }) {
    return { config: checkedAgainst(freeFormConfig, type, config), receives: 'none' };
  },
  present: presentFreeForm,
  filterable: false,
  rotatesSecret: false,
  testSends: false,
});
