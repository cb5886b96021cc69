/**
 * Meta's Conversions API (docs/ad-conversions.md): `POST {META_GRAPH_URL}/{META_GRAPH_VERSION}/
 * {pixel_id}/events` with `data: [event]` and the `access_token`. The buyer's contact data is
 * normalised and SHA-256 hashed as Meta's customer information parameters require; the click id
 * cookie (`fbc`), browser id (`fbp`), IP and user agent go unhashed, as Meta asks.
 */
import { createHash } from 'node:crypto';
import { SECRET_MASK } from '../sealed.js';
import type { AdPlatform, PlatformSettings, Sale } from './port.js';

const EVENT_NAMES: Record<string, string> = {
  'order.paid': 'Purchase',
  'order.created': 'InitiateCheckout',
  'lead.created': 'Lead',
  'subscription.created': 'Subscribe',
};

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** E-mail: trimmed, lower-cased. */
const email = (value: string): string => value.trim().toLowerCase();
/** Phone: digits only, no leading zeros, with the country code (ours are stored `+<country><number>`). */
const phone = (value: string): string => value.replace(/\D/g, '').replace(/^0+/, '');
/** Names: lower-cased, without punctuation or symbols (letters with accents kept, in UTF-8). */
const nameWord = (value: string): string =>
  value
    .normalize('NFC')
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, '')
    .trim();

/** The buyer's `user_data`, each value normalised and hashed; absent values left out. */
export function metaUserData(sale: Sale): Record<string, string> {
  const data: Record<string, string> = {};
  const put = (key: string, value: string | undefined | null): void => {
    if (value) data[key] = sha256(value);
  };
  const buyer = sale.buyer;
  if (buyer?.email) put('em', email(buyer.email));
  if (buyer?.phone) put('ph', phone(buyer.phone));
  const words = (buyer?.name ?? '').split(/\s+/).map(nameWord).filter(Boolean);
  put('fn', words[0]);
  if (words.length > 1) put('ln', words.at(-1));
  // The buyer's CPF/CNPJ, else the e-mail: the same person across orders.
  put('external_id', buyer?.document ?? (buyer?.email ? email(buyer.email) : undefined));
  // Our phones carry their country code: 55 is Brazil (ISO 3166-1 alpha-2, lower case).
  if (buyer?.phone && phone(buyer.phone).startsWith('55')) put('country', 'br');
  const { visit } = sale;
  if (visit.ip) data.client_ip_address = visit.ip;
  if (visit.user_agent) data.client_user_agent = visit.user_agent;
  const fbc =
    visit.fbc ?? (visit.fbclid ? `fb.1.${visit.seen_at ?? sale.at.getTime()}.${visit.fbclid}` : undefined);
  if (fbc) data.fbc = fbc;
  if (visit.fbp) data.fbp = visit.fbp;
  return data;
}

export const metaPlatform: AdPlatform = {
  eventName: (type) => EVENT_NAMES[type],
  request(settings: PlatformSettings, sale: Sale, eventName: string) {
    const { metaGraphUrl, metaGraphVersion } = settings.deployment.adPlatforms;
    const pixelId = String(settings.config.pixel_id ?? '');
    const value = sale.order?.amount ?? sale.items[0]?.price;
    // A website event needs the buyer's browser (Meta requires its user agent); a sale without a
    // visit (a renewal, an order from before tracking) is reported as the system's own.
    const website = sale.visit.user_agent !== undefined;
    const event = {
      event_name: eventName,
      event_time: Math.floor(sale.at.getTime() / 1000),
      event_id: sale.eventId,
      action_source: website ? 'website' : 'system_generated',
      ...(website ? { event_source_url: sale.visit.page_url ?? settings.deployment.urls.checkout } : {}),
      user_data: metaUserData(sale),
      custom_data: {
        ...(value !== undefined ? { value } : {}),
        currency: 'BRL',
        content_ids: sale.items.map((item) => item.id),
        content_type: 'product',
        ...(sale.order ? { order_id: sale.order.code } : {}),
      },
    };
    const testCode = settings.test ? settings.config.test_event_code : undefined;
    const shared = {
      data: [event],
      ...(typeof testCode === 'string' && testCode ? { test_event_code: testCode } : {}),
    };
    return {
      url: `${metaGraphUrl}/${metaGraphVersion}/${encodeURIComponent(pixelId)}/events`,
      body: { ...shared, access_token: settings.secret },
      logged: { ...shared, access_token: SECRET_MASK },
    };
  },
};
