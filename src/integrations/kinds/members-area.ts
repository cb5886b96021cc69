/**
 * The `members_area` type: what buying a linked product gives access to. With `config.provider:
 * "builtin"` (the one provider so far) the service is the members area itself: the buyer's page
 * (`{checkout_url}/account`) shows the product's `content` to a buyer who holds access, and the
 * events `access.granted` and `access.revoked` let an external members area follow along by
 * webhook. The integration receives no events itself.
 */
import { ValidationError } from '../../shared/errors.js';
import { checkedAgainst, freeFormConfig } from './config-values.js';
import type { IntegrationKind } from './kind.js';
import { presentFreeForm } from './managed.js';

export const MEMBERS_AREA_PROVIDERS = ['builtin'] as const;

export const membersAreaKind: IntegrationKind = {
  types: ['members_area'],
  createConfig: freeFormConfig,
  updateConfig: freeFormConfig,
  async check(_deps, { type, config, stored }) {
    const requested = checkedAgainst(freeFormConfig, type, config);
    const provider =
      requested.provider ?? (stored?.type === 'members_area' ? stored.config.provider : 'builtin');
    if (!(MEMBERS_AREA_PROVIDERS as readonly unknown[]).includes(provider))
      throw ValidationError.field('config.provider', `must be one of ${MEMBERS_AREA_PROVIDERS.join(', ')}`);
    const keys = Object.keys(requested).filter((key) => key !== 'provider');
    if (keys.length > 0)
      throw ValidationError.field(`config.${keys[0] ?? ''}`, 'is not a setting of a builtin members area');
    return { config: { provider: 'builtin' }, receives: 'none' };
  },
  present: presentFreeForm,
  filterable: false,
  rotatesSecret: false,
  testSends: false,
};
