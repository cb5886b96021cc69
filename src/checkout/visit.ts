/**
 * The tracking a checkout visit carries (src/shared/tracking.ts): the campaign parameters and click
 * ids of the page address, brought from the page to the pay step in hidden fields with the page's
 * own address; at the pay step, the ad platforms' cookies, the buyer's IP and user agent.
 */
import type { Request } from 'express';
import {
  ADDRESS_KEYS,
  pickTracking,
  TRACKING_COOKIES,
  cleanTrackingValue,
  type VisitTracking,
} from '../shared/tracking.js';

/** The hidden fields of the pay form that carry the visit (never validated as the buyer's entries). */
export const CARRIED_FIELDS = [...ADDRESS_KEYS, 'page_url'] as const;
const carried = new Set<string>(CARRIED_FIELDS);

/**
 * What the checkout page carries to its form: the address's tracking keys (each once: a repeated
 * or nested parameter is not a value) and the page's own address.
 */
export function carriedFromAddress(req: Request, checkoutBase: string): Record<string, string> {
  const query: Record<string, unknown> = req.query;
  const fromAddress = pickTracking(ADDRESS_KEYS, query);
  const pageUrl = cleanTrackingValue(`${checkoutBase}${req.url}`, 2048);
  return { ...fromAddress, ...(pageUrl ? { page_url: pageUrl } : {}) };
}

/** The `Cookie` header's pairs (RFC 6265 §5.4: `name=value` separated by `; `); undecodable values kept raw. */
function cookiesOf(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const pair of (header ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const name = pair.slice(0, at).trim();
    const raw = pair
      .slice(at + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    let value = raw;
    try {
      value = decodeURIComponent(raw);
    } catch {
      // A malformed escape: the raw value, as the browser sent it.
    }
    if (!(name in cookies)) cookies[name] = value;
  }
  return cookies;
}

/**
 * The pay step's form split into the buyer's entries and the visit: the carried fields, the ad
 * cookies, IP, user agent, and when the visit reached the pay step.
 */
export function splitVisit(
  req: Request,
  values: Record<string, string>,
  now: Date,
): { form: Record<string, string>; visit: VisitTracking } {
  const form = Object.fromEntries(Object.entries(values).filter(([name]) => !carried.has(name)));
  const cookies = cookiesOf(req.get('cookie'));
  const named: Record<string, string | undefined> = {
    ...Object.fromEntries(Object.entries(TRACKING_COOKIES).map(([cookie, key]) => [key, cookies[cookie]])),
    ip: req.ip,
    user_agent: req.get('user-agent'),
  };
  const visit: VisitTracking = {
    ...pickTracking(CARRIED_FIELDS, values),
    ...pickTracking(['fbp', 'fbc', 'ga', 'ip', 'user_agent'], named),
    seen_at: now.getTime(),
  };
  return { form, visit };
}
