import { randomBase62 } from '../shared/ids.js';

export const KEY_PATTERN = /^vk_(test|live)_[0-9A-Za-z]{32,}$/;
export const PANEL_TOKEN_PATTERN = /^pt_[0-9A-Za-z]{32,}$/;

export interface GeneratedSecret {
  value: string;
  prefix: string;
  last4: string;
}

const describe = (value: string): GeneratedSecret => ({
  value,
  prefix: value.slice(0, 12),
  last4: value.slice(-4),
});

/** `vk_test_` / `vk_live_` + 40 base62 characters (about 238 bits). */
export const generateApiKey = (test: boolean): GeneratedSecret =>
  describe(`vk_${test ? 'test' : 'live'}_${randomBase62(40)}`);

export const generatePanelToken = (): GeneratedSecret => describe(`pt_${randomBase62(40)}`);
