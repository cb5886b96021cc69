/**
 * The webhook kinds: events POSTed as JSON to the company's URL, signed the Standard Webhooks way
 * (docs/webhooks.md), with the company's custom headers. Every event of the company that the
 * integration subscribes to reaches it, test mode's too; its secret can rotate; a test send reaches
 * it at once.
 */
import { randomBytes } from 'node:crypto';
import { webhookBody } from '../../../events/outbox.js';
import type { Config } from '../../../shared/config.js';
import { checkedAgainst, stringOf } from '../config-values.js';
import {
  nothingSent,
  type AttemptResult,
  type DeliveryEvent,
  type DeliveryTarget,
  type IntegrationKind,
  type KindRow,
} from '../kind.js';
import { maskedValues, openValues } from '../sealed.js';
import { WEBHOOK_KIND_TYPES, isWebhookKindType } from '../types.js';
import { webhookConfig, webhookConfigOfCreate, webhookConfigOfPatch } from './config.js';
import { postWebhook } from './post.js';
import { assertSafeWebhookUrl } from './url-guard.js';

/** A generated signing secret in the Standard Webhooks shape: `whsec_` + base64 of 24 random bytes. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/** `whsec_…` + the last 4 characters: enough to tell secrets apart, never enough to sign with. */
export const maskSecret = (secret: string): string =>
  `${secret.startsWith('whsec_') ? 'whsec_' : ''}…${secret.slice(-4)}`;

/** The current signing secret first, then the one a rotation replaced while it still signs. */
export const signingSecrets = (target: Pick<DeliveryTarget, 'config' | 'previousSecret'>): string[] => [
  stringOf(target.config, 'secret') ?? '',
  ...(target.previousSecret ? [target.previousSecret] : []),
];

/**
 * The integration's custom headers opened, or undefined when one does not open (another key, altered
 * bytes, no key at all): sending without it would only be refused, so nothing is sent.
 */
export function openedHeaders(
  config: Pick<Config, 'credentialsKey'>,
  target: Pick<KindRow, 'id' | 'headers'>,
): Record<string, string> | undefined {
  try {
    return openValues(config.credentialsKey, target.id, 'headers', target.headers);
  } catch {
    return undefined;
  }
}

export const UNREADABLE_HEADERS =
  'a custom header did not decrypt (was its key removed from the credentials key ring?); nothing was sent';

/** One signed POST of an event to the integration's URL. */
async function attempt(
  ctx: { config: Config },
  target: DeliveryTarget,
  event: DeliveryEvent,
): Promise<AttemptResult> {
  const url = stringOf(target.config, 'url');
  if (!url) return nothingSent('integration has no url');
  const headers = openedHeaders(ctx.config, target);
  if (headers === undefined) return nothingSent(UNREADABLE_HEADERS);
  return postWebhook(
    ctx.config,
    { url, secrets: signingSecrets(target), headers },
    event.id,
    webhookBody(event.payload),
    event.traceContext,
  );
}

export const webhookKind: IntegrationKind = {
  types: WEBHOOK_KIND_TYPES,
  createConfig: webhookConfigOfCreate,
  updateConfig: webhookConfigOfPatch,
  /**
   * A safe `url` (checked against DNS, as at every delivery), and the signing secret kept (within
   * the webhook family) or generated; custom headers go to the sealed `headers` group.
   */
  async check(deps, { type, config, stored }) {
    const { url, secret, headers } = checkedAgainst(webhookConfig, type, config);
    await assertSafeWebhookUrl(url, deps.config.webhooks.allowPrivateTargets);
    const kept = stored && isWebhookKindType(stored.type) ? stringOf(stored.config, 'secret') : undefined;
    return {
      config: { url, secret: secret ?? kept ?? newWebhookSecret() },
      ...(headers !== undefined ? { sealed: { headers } } : {}),
      receives: 'all',
    };
  },
  present(row, view) {
    const { secret, ...config } = row.config;
    return {
      ...config,
      ...(typeof secret === 'string' ? { secret: view.revealSecret ? secret : maskSecret(secret) } : {}),
      // Masked for every caller, owners included: a header value is never shown again once stored.
      ...(row.headers ? { headers: maskedValues(row.headers) } : {}),
    };
  },
  filterable: true,
  rotatesSecret: true,
  testSends: true,
  destination: { attempt },
};
