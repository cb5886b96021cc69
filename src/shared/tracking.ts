/**
 * What a sale's visit carried (docs/api.md, "Tracking"): the campaign parameters a seller puts in
 * the links of its ads (`utm_*`, `src`, `sck`), the ad platforms' click ids and cookies, the buyer's
 * IP, user agent and page address. The payment link keeps the campaign part its creator sent; the
 * order keeps all of it. Webhooks get the campaign part only (`webhookTracking`); the click ids,
 * cookies, IP and user agent go to the company's ad platforms and nowhere else.
 */

/** The campaign parameters: sent in webhooks, accepted by `POST /v1/payment-links`. */
export const CAMPAIGN_KEYS = [
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_content',
  'utm_term',
  'src',
  'sck',
] as const;
export type CampaignKey = (typeof CAMPAIGN_KEYS)[number];

/** Ad click ids, read from the page address beside the campaign parameters. */
export const CLICK_ID_KEYS = ['fbclid', 'gclid', 'ttclid'] as const;

/** Everything the checkout page address may carry that the pay form brings back. */
export const ADDRESS_KEYS = [...CAMPAIGN_KEYS, ...CLICK_ID_KEYS] as const;
export type AddressKey = (typeof ADDRESS_KEYS)[number];

/** The ad platforms' cookies the checkout reads, by the name each is kept under. */
export const TRACKING_COOKIES = { _fbp: 'fbp', _fbc: 'fbc', _ga: 'ga' } as const;

/** Longest value kept; a user agent and a page address may be longer (see `cleanTrackingValue`). */
export const TRACKING_VALUE_MAX = 255;
const LONGER: Partial<Record<keyof VisitTracking, number>> = { user_agent: 512, page_url: 2048 };

export type CampaignTracking = Partial<Record<CampaignKey, string>>;

/** What an order keeps (jsonb), each key only when known. */
export interface VisitTracking extends CampaignTracking {
  fbclid?: string;
  gclid?: string;
  ttclid?: string;
  fbp?: string;
  fbc?: string;
  ga?: string;
  ip?: string;
  user_agent?: string;
  page_url?: string;
  /** When the visit reached the pay step (ms since the epoch): the click time of a built `fbc`. */
  seen_at?: number;
}

// C0 and C1 control characters (tab and newline included): never part of a campaign name.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

// A lone UTF-16 surrogate: jsonb refuses its escape, so it is never stored.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * A value as kept: control characters and lone surrogates dropped, trimmed, cut to its limit in
 * characters (a pair of surrogates is one, never split); blank or not a string: none.
 */
export function cleanTrackingValue(value: unknown, max: number = TRACKING_VALUE_MAX): string | undefined {
  if (typeof value !== 'string') return undefined;
  const characters = Array.from(value.replace(CONTROL, '').replace(LONE_SURROGATE, '').trim());
  const kept = characters.slice(0, max).join('').trim();
  return kept === '' ? undefined : kept;
}

/** The known keys of `source` with their cleaned values (unknown keys and blank values dropped). */
export function pickTracking<K extends keyof VisitTracking & string>(
  keys: readonly K[],
  source: Record<string, unknown>,
): Partial<Record<K, string>> {
  const picked: Partial<Record<K, string>> = {};
  for (const key of keys) {
    const value = cleanTrackingValue(source[key], LONGER[key] ?? TRACKING_VALUE_MAX);
    if (value !== undefined) picked[key] = value;
  }
  return picked;
}

/**
 * An order's tracking: what the visit carried, and for each campaign key the visit lacks, the
 * link's (a link sent by message names its campaign when created; an ad's address names it too).
 */
export const orderTracking = (visit: VisitTracking, link: CampaignTracking | null): VisitTracking => ({
  ...(link ?? {}),
  ...visit,
});

export type CampaignWire = Record<CampaignKey, string | null>;

/** The campaign keys as answers show them: every key, null where unknown. */
export function campaignWire(tracking: CampaignTracking | null): CampaignWire {
  return Object.fromEntries(CAMPAIGN_KEYS.map((key) => [key, tracking?.[key] ?? null])) as CampaignWire;
}

export type WebhookTracking = { external_reference: string | null } & CampaignWire;

/** `data.purchase.tracking` of an event: the link's reference and the campaign keys (null where unknown). */
export const webhookTracking = (
  externalReference: string | null,
  tracking: CampaignTracking | null,
): WebhookTracking => ({ external_reference: externalReference, ...campaignWire(tracking) });
