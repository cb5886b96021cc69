/**
 * Google Analytics 4's Measurement Protocol (docs/ad-conversions.md): `POST {GA4_MP_URL}/mp/collect
 * ?measurement_id=…&api_secret=…` with the visitor's `client_id` and the `purchase` or `refund` event
 * of the order (`transaction_id` = the order code, so a refund matches its purchase).
 */
import { createHash } from 'node:crypto';
import type { AdPlatform, Sale } from './port.js';

const EVENT_NAMES: Record<string, string> = { 'order.paid': 'purchase', 'order.refunded': 'refund' };

/**
 * The visitor's client id: the `_ga` cookie's last two fields (`GA1.1.<random>.<time>`), else one
 * made from the order code in the same `<number>.<number>` form, the same for its purchase and refund.
 */
export function ga4ClientId(sale: Sale): string {
  const fromCookie = /^GA\d+\.\d+\.(\d+\.\d+)$/.exec(sale.visit.ga ?? '')?.[1];
  if (fromCookie) return fromCookie;
  const hash = createHash('sha256')
    .update(sale.order?.code ?? sale.eventId)
    .digest('hex');
  return `${Number.parseInt(hash.slice(0, 8), 16)}.${Number.parseInt(hash.slice(8, 16), 16)}`;
}

export const ga4Platform: AdPlatform = {
  eventName: (type) => EVENT_NAMES[type],
  request(settings, sale, eventName) {
    const measurementId = String(settings.config.measurement_id ?? '');
    const value = sale.order?.amount ?? 0;
    const body = {
      client_id: ga4ClientId(sale),
      timestamp_micros: sale.at.getTime() * 1000,
      events: [
        {
          name: eventName,
          params: {
            transaction_id: sale.order?.code ?? sale.eventId,
            value,
            currency: 'BRL',
            items: sale.items.map((item) => ({
              item_id: item.id,
              item_name: item.name,
              price: item.price,
              quantity: 1,
            })),
          },
        },
      ],
    };
    const query = (secret: string) =>
      `measurement_id=${encodeURIComponent(measurementId)}&api_secret=${encodeURIComponent(secret)}`;
    return {
      url: `${settings.deployment.adPlatforms.ga4Url}/mp/collect?${query(settings.secret)}`,
      body,
      // The secret travels in the address, which the log does not keep; the body holds none.
      logged: body,
    };
  },
};
