import { sql } from 'drizzle-orm';
import type { Executor } from '../shared/db/index.js';

/**
 * Serialises the writes that feed `product_ids` within one company (product links, products,
 * `send_to_all_products`). Without it two concurrent transactions could each recompute the cache
 * from a snapshot that misses the other's change. `FOR NO KEY UPDATE` does not conflict with the
 * key-share locks that foreign keys take, so payments traffic of the company is not blocked.
 */
export async function lockCompanyIntegrations(tx: Executor, companyId: number): Promise<void> {
  await tx.execute(sql`SELECT id FROM companies WHERE id = ${companyId} FOR NO KEY UPDATE`);
}

/**
 * The one place `integrations.product_ids` is computed (decisions, "Integrations API"): the ids of the
 * company's active products that are linked to the integration with an active link, or every active
 * product when `send_to_all_products` is true; sorted ascending. Call it inside the transaction that
 * changed a link, a product or the flag, after `lockCompanyIntegrations`. Without `integrationId` it
 * refreshes every integration of the company. Only rows whose cache actually changes are written.
 */
export async function refreshProductIds(
  tx: Executor,
  companyId: number,
  integrationId?: number,
): Promise<void> {
  const onlyOne = integrationId === undefined ? sql`` : sql`AND i.id = ${integrationId}`;
  await tx.execute(sql`
    WITH computed AS (
      SELECT i.id,
             COALESCE(array_agg(p.id ORDER BY p.id) FILTER (WHERE p.id IS NOT NULL), '{}')::integer[] AS ids
        FROM integrations i
        LEFT JOIN products p
          ON p.company_id = i.company_id
         AND p.active
         AND (i.send_to_all_products OR EXISTS (
               SELECT 1 FROM integration_products ip
                WHERE ip.integration_id = i.id AND ip.product_id = p.id AND ip.is_active))
       WHERE i.company_id = ${companyId} ${onlyOne}
       GROUP BY i.id
    )
    UPDATE integrations i
       SET product_ids = c.ids, updated_at = now()
      FROM computed c
     WHERE i.id = c.id AND i.product_ids IS DISTINCT FROM c.ids`);
}
