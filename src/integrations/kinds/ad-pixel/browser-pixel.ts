/**
 * The browser side of `meta` integrations (docs/ad-conversions.md, "The browser pixel"): which pixel,
 * if any, the buyer pages of an order load. The same integrations as delivery would send the
 * order's conversions to (active, live events, the product linked or `send_to_all_products`), of
 * provider `meta` with `browser_pixel: true`; the lowest id, should two.
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../../../shared/db/index.js';

export interface BrowserPixelSetting {
  pixelId: string;
  /** The event kinds the integration sends (the browser reports only those). */
  events: string[];
}

export async function browserPixelOf(
  db: Executor,
  companyId: number,
  productId: number,
): Promise<BrowserPixelSetting | undefined> {
  const result = await db.execute<{ pixel_id: string; events: string[] }>(sql`
    SELECT config ->> 'pixel_id' AS pixel_id, events FROM integrations
     WHERE company_id = ${companyId} AND type = 'ad_pixel' AND is_active AND receives = 'live'
       AND config @> '{"provider": "meta", "browser_pixel": true}'::jsonb
       AND (send_to_all_products OR ${productId}::int = ANY(product_ids))
     ORDER BY id LIMIT 1`);
  const row = result.rows[0];
  return row && /^\d+$/.test(row.pixel_id) ? { pixelId: row.pixel_id, events: row.events } : undefined;
}
