/**
 * The ad platform port: one adapter per provider (`meta.ts`, `ga4.ts`) turns a sale event into that
 * platform's request; the `ad_pixel` kind sends it through the delivery engine like any delivery.
 * Another platform (TikTok…) is one more adapter and one more `provider`.
 */
import type { Config } from '../../../shared/config.js';
import type { VisitTracking } from '../../../shared/tracking.js';
import type { StoredConfig } from '../kind.js';

/** What an adapter knows of one event: the sale, its buyer and the visit that made it. */
export interface Sale {
  /** Our event id: the platforms deduplicate by it (Meta's `event_id`). */
  eventId: string;
  type: string;
  at: Date;
  order: { code: string; amount: number } | null;
  /** What was bought (an offer or a plan), priced in reais. */
  items: { id: string; name: string; price: number }[];
  buyer: { name: string | null; email: string | null; phone: string | null; document: string | null } | null;
  /** The order's visit (src/shared/tracking.ts); `{}` when unknown. */
  visit: VisitTracking;
}

/** The settings of one integration an adapter reads: its config, its credential opened, the deployment's. */
export interface PlatformSettings {
  config: StoredConfig;
  secret: string;
  deployment: Pick<Config, 'adPlatforms' | 'urls'>;
  /** A test conversion (the dashboard's button): Meta's `test_event_code` goes with it. */
  test: boolean;
}

/** One request to a platform: where, the JSON body, and the body as the delivery log shows it (masked). */
export interface ConversionRequest {
  url: string;
  body: Record<string, unknown>;
  logged: Record<string, unknown>;
}

export interface AdPlatform {
  /** The platform's event for one of ours, or undefined when it has none (the delivery sends nothing). */
  eventName(type: string): string | undefined;
  request(settings: PlatformSettings, sale: Sale, eventName: string): ConversionRequest;
}
