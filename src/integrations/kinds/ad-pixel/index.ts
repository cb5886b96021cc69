/**
 * The `ad_pixel` kind (docs/ad-conversions.md): the company's sales sent to its ad platform (Meta's
 * Conversions API, GA4's Measurement Protocol) through the delivery engine, as webhooks are (outbox,
 * lane, retries, breaker, delivery log). Live events only: its `receives` is `live`, so a test-mode
 * sale never reaches an ad platform; the one exception is a test conversion (the panel's test send),
 * which goes to Meta with the integration's `test_event_code` and nowhere else.
 */
import type { AppContext } from '../../../shared/context.js';
import { UUID_PATTERN } from '../../../shared/ids.js';
import { checkedAgainst, stringOf } from '../config-values.js';
import {
  nothingSent,
  type AttemptResult,
  type DeliveryEvent,
  type DeliveryTarget,
  type IntegrationKind,
  type StoredConfig,
} from '../kind.js';
import { maskedValues, openValues } from '../sealed.js';
import { AD_PROVIDERS, adPixelConfig, SECRET_OF, type AdProvider } from './config.js';
import { ga4Platform } from './ga4.js';
import { metaPlatform } from './meta.js';
import type { AdPlatform, Sale } from './port.js';
import { sendConversion } from './send.js';
import { visitOf, type VisitKey } from './visits.js';

const PLATFORMS: Record<AdProvider, AdPlatform> = { meta: metaPlatform, google_analytics: ga4Platform };

const providerOf = (config: StoredConfig): AdProvider | undefined =>
  AD_PROVIDERS.find((provider) => provider === config.provider);

type Json = Record<string, unknown>;
const objectAt = (value: unknown): Json | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null;
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const reais = (value: unknown): number | null => {
  const n = typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isFinite(n) ? n : null;
};

/** Where the visit of an event is: its order, the order a lead submitted, a subscription's first order. */
function visitKey(type: string, data: Json): VisitKey | undefined {
  const code = text(objectAt(data.order)?.code);
  if (code && UUID_PATTERN.test(code)) return { orderCode: code };
  const email = text(objectAt(data.lead)?.email);
  if (type === 'lead.created' && email) return { email };
  const subscription = objectAt(data.subscription)?.id;
  if (typeof subscription === 'number') return { subscriptionId: subscription };
  return undefined;
}

/** The sale an event describes, with the visit of its order (read now, of the integration's company). */
async function saleOf(ctx: AppContext, target: DeliveryTarget, event: DeliveryEvent): Promise<Sale> {
  const payload = event.payload;
  const type = String(payload.type);
  const data = objectAt(payload.data) ?? {};
  const order = objectAt(data.order);
  const sold = objectAt(data.offer) ?? objectAt(data.plan);
  const buyer = objectAt(data.customer) ?? objectAt(data.lead);
  const amount = reais(order?.amount);
  const code = text(order?.code);
  const key = payload.test === true ? undefined : visitKey(type, data);
  const visit = key ? await visitOf(ctx.db, target.id, key) : null;
  return {
    eventId: event.id,
    type,
    at: new Date(String(payload.created_at)),
    order: code && amount !== null ? { code, amount } : null,
    items: sold
      ? [{ id: String(sold.code), name: String(sold.name), price: reais(sold.price) ?? amount ?? 0 }]
      : [],
    buyer: buyer
      ? {
          name: text(buyer.name),
          email: text(buyer.email),
          phone: text(buyer.phone),
          document: text(buyer.document),
        }
      : null,
    // A test conversion has no buyer's browser: it names ours, so Meta reads it as a website event.
    visit: visit ?? (payload.test === true ? { user_agent: 'payment-links-test-conversion/1.0' } : {}),
  };
}

/** A delivery the platform has no event for: done, nothing sent (the log says why). */
const notForPlatform = (why: string): AttemptResult => ({
  ...nothingSent(why),
  ok: true,
  error: null,
  responseBody: why,
});

async function attempt(
  ctx: AppContext,
  target: DeliveryTarget,
  event: DeliveryEvent,
): Promise<AttemptResult> {
  const provider = providerOf(target.config);
  if (!provider) return nothingSent('integration has no provider');
  const test = event.payload.test === true || event.payload.livemode !== true;
  // A test-mode sale never reaches an ad platform; a test send reaches Meta only as a test conversion.
  if (test && (provider !== 'meta' || !stringOf(target.config, 'test_event_code')))
    return nothingSent(
      'test events reach an ad platform only as Meta test conversions (set test_event_code)',
    );
  let secret: string | undefined;
  try {
    secret = openValues(ctx.config.credentialsKey, target.id, 'secrets', target.secrets)[SECRET_OF[provider]];
  } catch {
    return nothingSent(
      'the credential did not decrypt (was CREDENTIALS_ENCRYPTION_KEY changed?); nothing was sent',
    );
  }
  if (!secret) return nothingSent(`integration has no ${SECRET_OF[provider]}`);
  const platform = PLATFORMS[provider];
  const type = String(event.payload.type);
  const eventName = platform.eventName(type);
  if (!eventName) return notForPlatform(`${type} has no ${provider} event: nothing sent`);
  const sale = await saleOf(ctx, target, event);
  const settings = { config: target.config, secret, deployment: ctx.config, test };
  return sendConversion(ctx.config, platform.request(settings, sale, eventName));
}

export const adPixelKind: IntegrationKind = {
  types: ['ad_pixel'],
  createConfig: adPixelConfig,
  updateConfig: adPixelConfig,
  /** The provider's ids in the clear, its credential sealed (the mask keeps the stored one). */
  async check(_deps, { type, config }) {
    const checked = checkedAgainst(adPixelConfig, type, config);
    const provider = checked.provider;
    const secretName = SECRET_OF[provider];
    const secret = checked[secretName];
    const clear: StoredConfig =
      provider === 'meta'
        ? {
            provider,
            pixel_id: checked.pixel_id ?? '',
            ...(checked.test_event_code ? { test_event_code: checked.test_event_code } : {}),
            browser_pixel: checked.browser_pixel ?? false,
          }
        : { provider, measurement_id: checked.measurement_id ?? '' };
    return {
      config: clear,
      sealed: { secrets: secret ? { [secretName]: secret } : {} },
      receives: 'live',
    };
  },
  // The credential masked for every caller, owners included: never shown again once stored.
  present: (row) => ({ ...row.config, ...maskedValues(row.secrets) }),
  filterable: true,
  rotatesSecret: false,
  testSends: true,
  destination: { attempt },
};
