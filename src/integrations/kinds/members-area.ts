/**
 * The `members_area` type: what buying a linked product gives access to. With `config.provider:
 * "builtin"` (the one provider so far) the service is the members area itself: the buyer's page
 * (`{checkout_url}/account`) shows the product's `content` to a buyer who holds access, and the
 * events `access.granted` and `access.revoked` let an external members area follow along by
 * webhook. The integration receives no events itself.
 */
import { v } from '../../shared/validation/typed.js';
import { checkedAgainst } from './config-values.js';
import type { IntegrationKind } from './kind.js';
import { presentFreeForm } from './managed.js';

export const MEMBERS_AREA_PROVIDERS = ['builtin'] as const;

/** Its one setting: the provider (`builtin`, the default). */
const membersAreaConfig = v.object({
  provider: v.enum(MEMBERS_AREA_PROVIDERS).description('Who serves the content: `builtin`, the buyer’s page'),
});

export const membersAreaKind: IntegrationKind = {
  types: ['members_area'],
  createConfig: membersAreaConfig,
  updateConfig: membersAreaConfig,
  async check(_deps, { type, config }) {
    checkedAgainst(membersAreaConfig, type, config);
    return { config: { provider: 'builtin' }, receives: 'none' };
  },
  present: presentFreeForm,
  filterable: false,
  rotatesSecret: false,
  testSends: false,
};
