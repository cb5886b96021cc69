/**
 * The Meta pixel on the buyer pages (docs/ad-conversions.md, "The browser pixel"): an order's page
 * loads it when the order is live and its company's `meta` integration that covers the product has
 * `browser_pixel: true`. The page reports `InitiateCheckout` with the id of the order's
 * `order.created` event and, once paid, `Purchase` with the id of its `order.paid` event: the
 * `event_id`s the Conversions API sent, so Meta counts each once. Only the kinds the integration
 * sends; nothing for another company, nor for a test-mode order.
 */
import { orderConversionIds } from '../events/repository.js';
import { browserPixelOf } from '../integrations/kinds/ad-pixel/browser-pixel.js';
import type { OrderRow } from '../orders/repository.js';
import type { AppContext } from '../shared/context.js';
import { CATALOG_CURRENCY } from './pricing.js';

/** Where the pixel's script comes from and where it reports: what the page's CSP adds. */
export interface PixelSources {
  scriptUrl: string;
  reportOrigin: string;
}

export interface BrowserPixel extends PixelSources {
  pixelId: string;
  /** The event ids to report with; null: not (yet) to report. */
  initiateCheckout: string | null;
  purchase: string | null;
  /** The order's amount in reais (`97.00`) and its currency. */
  value: string;
  currency: string;
}

export async function browserPixel(ctx: AppContext, order: OrderRow): Promise<BrowserPixel | null> {
  if (!order.livemode) return null;
  const setting = await browserPixelOf(ctx.db, order.companyId, order.productId);
  if (!setting) return null;
  const reports = (kind: string): boolean => setting.events.includes(kind);
  if (!reports('order.created') && !reports('order.paid')) return null;
  const ids = await orderConversionIds(ctx.db, order.companyId, order.code);
  const { metaPixelScriptUrl, metaPixelOrigin } = ctx.config.adPlatforms;
  return {
    scriptUrl: metaPixelScriptUrl,
    reportOrigin: metaPixelOrigin,
    pixelId: setting.pixelId,
    initiateCheckout: reports('order.created') ? ids.created : null,
    purchase: reports('order.paid') && order.status === 'paid' ? ids.paid : null,
    value: order.amount,
    currency: CATALOG_CURRENCY,
  };
}
