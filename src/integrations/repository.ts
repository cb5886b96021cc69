import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { schema, type Db, type Executor, type Tx } from '../shared/db/index.js';
import { insertedRow } from '../shared/db/inserted.js';

const { integrations, integrationProducts, products } = schema;

export type IntegrationRow = typeof integrations.$inferSelect;
/** What a panel request sets on an integration, at creation or in a PATCH. */
type EditableField =
  | 'type'
  | 'isActive'
  | 'config'
  | 'events'
  | 'sendToAllProducts'
  | 'rateLimitPerSecond'
  | 'filter'
  | 'receives'
  | 'headers'
  | 'secrets';
/** Set after the row exists, or only for some types. */
type LaterField = 'filter' | 'headers' | 'secrets';
export type NewIntegration = Pick<IntegrationRow, 'companyId' | Exclude<EditableField, LaterField>> &
  Partial<Pick<IntegrationRow, LaterField>>;
export type IntegrationChanges = Partial<
  Pick<IntegrationRow, EditableField | 'previousSecret' | 'previousSecretExpiresAt'>
>;

/** A product link with the product facts the wire shape (IntegrationProduct) shows. */
export interface IntegrationProductView {
  id: number;
  integrationId: number;
  productId: number;
  productCode: string;
  productName: string;
  isActive: boolean;
  createdAt: Date;
}

/** One integration of one company; undefined for another company's id, so callers answer 404. */
export async function findIntegration(
  db: Executor,
  companyId: number,
  id: number,
): Promise<IntegrationRow | undefined> {
  const [row] = await db
    .select()
    .from(integrations)
    .where(and(eq(integrations.companyId, companyId), eq(integrations.id, id)));
  return row;
}

export function listIntegrations(db: Executor, companyId: number, type?: string): Promise<IntegrationRow[]> {
  const where = type
    ? and(eq(integrations.companyId, companyId), eq(integrations.type, type))
    : eq(integrations.companyId, companyId);
  return db.select().from(integrations).where(where).orderBy(asc(integrations.id));
}

export async function insertIntegration(db: Executor, values: NewIntegration): Promise<IntegrationRow> {
  return insertedRow(await db.insert(integrations).values(values).returning(), 'integrations');
}

/**
 * Applies changes to one integration of the company. With `reenable`, an integration that is
 * inactive at the moment of the write (the circuit breaker may have just opened) gets its breaker
 * state cleared; an active one keeps its running failure count.
 */
export async function updateIntegration(
  db: Executor,
  companyId: number,
  id: number,
  changes: IntegrationChanges,
  reenable = false,
): Promise<IntegrationRow | undefined> {
  const breaker = reenable
    ? {
        failureCount: sql`CASE WHEN ${integrations.isActive} THEN ${integrations.failureCount} ELSE 0 END`,
        disabledReason: sql`CASE WHEN ${integrations.isActive} THEN ${integrations.disabledReason} ELSE '' END`,
      }
    : {};
  const [row] = await db
    .update(integrations)
    .set({ ...changes, ...breaker, updatedAt: new Date() })
    .where(and(eq(integrations.companyId, companyId), eq(integrations.id, id)))
    .returning();
  return row;
}

export async function deleteIntegration(db: Executor, companyId: number, id: number): Promise<boolean> {
  const rows = await db
    .delete(integrations)
    .where(and(eq(integrations.companyId, companyId), eq(integrations.id, id)))
    .returning({ id: integrations.id });
  return rows.length > 0;
}

const linkView = {
  id: integrationProducts.id,
  integrationId: integrationProducts.integrationId,
  productId: integrationProducts.productId,
  productCode: products.code,
  productName: products.name,
  isActive: integrationProducts.isActive,
  createdAt: integrationProducts.createdAt,
};

/** The product links of some integrations, oldest first (one query for a whole list). */
export async function listLinks(db: Executor, integrationIds: number[]): Promise<IntegrationProductView[]> {
  if (integrationIds.length === 0) return [];
  return db
    .select(linkView)
    .from(integrationProducts)
    .innerJoin(products, eq(products.id, integrationProducts.productId))
    .where(inArray(integrationProducts.integrationId, integrationIds))
    .orderBy(asc(integrationProducts.id));
}

/** The product links of every integration of a company (of one type), in the order `listLinks` gives. */
export function listCompanyLinks(
  db: Executor,
  companyId: number,
  type?: string,
): Promise<IntegrationProductView[]> {
  const own = db
    .select({ id: integrations.id })
    .from(integrations)
    .where(
      type
        ? and(eq(integrations.companyId, companyId), eq(integrations.type, type))
        : eq(integrations.companyId, companyId),
    );
  return db
    .select(linkView)
    .from(integrationProducts)
    .innerJoin(products, eq(products.id, integrationProducts.productId))
    .where(inArray(integrationProducts.integrationId, own))
    .orderBy(asc(integrationProducts.id));
}

export async function findLink(
  db: Executor,
  integrationId: number,
  productId: number,
): Promise<IntegrationProductView | undefined> {
  const [row] = await db
    .select(linkView)
    .from(integrationProducts)
    .innerJoin(products, eq(products.id, integrationProducts.productId))
    .where(
      and(eq(integrationProducts.integrationId, integrationId), eq(integrationProducts.productId, productId)),
    );
  return row;
}

/**
 * Links one of the company's products: `linked`, `already_linked` (the unique pair decides, so races
 * agree), or `no_product` when the company has no such product. One statement.
 */
export async function insertLink(
  db: Executor,
  companyId: number,
  integrationId: number,
  productId: number,
): Promise<'linked' | 'already_linked' | 'no_product'> {
  const result = await db.execute<{ found: boolean; inserted: boolean }>(sql`
    WITH product AS (SELECT id FROM products WHERE id = ${productId} AND company_id = ${companyId}),
    inserted AS (
      INSERT INTO integration_products (integration_id, product_id)
      SELECT ${integrationId}, id FROM product
      ON CONFLICT (integration_id, product_id) DO NOTHING
      RETURNING id
    )
    SELECT EXISTS (SELECT 1 FROM product) AS found, EXISTS (SELECT 1 FROM inserted) AS inserted`);
  const row = result.rows[0];
  if (!row?.found) return 'no_product';
  return row.inserted ? 'linked' : 'already_linked';
}

export async function setLinkActive(
  db: Executor,
  integrationId: number,
  productId: number,
  isActive: boolean,
): Promise<boolean> {
  const rows = await db
    .update(integrationProducts)
    .set({ isActive })
    .where(
      and(eq(integrationProducts.integrationId, integrationId), eq(integrationProducts.productId, productId)),
    )
    .returning({ id: integrationProducts.id });
  return rows.length > 0;
}

export async function deleteLink(db: Executor, integrationId: number, productId: number): Promise<boolean> {
  const rows = await db
    .delete(integrationProducts)
    .where(
      and(eq(integrationProducts.integrationId, integrationId), eq(integrationProducts.productId, productId)),
    )
    .returning({ id: integrationProducts.id });
  return rows.length > 0;
}

/** One integration by id, whatever its company (a gateway account or authorization names only the id). */
export async function findIntegrationById(db: Executor, id: number): Promise<IntegrationRow | undefined> {
  const [row] = await db.select().from(integrations).where(eq(integrations.id, id));
  return row;
}

/** The ids of integrations holding sealed values after `afterId`, in order: a batch of `cli credentials reseal`. */
export async function sealedIntegrationIdsAfter(
  db: Executor,
  afterId: number,
  limit: number,
): Promise<number[]> {
  const rows = await db
    .select({ id: integrations.id })
    .from(integrations)
    .where(
      sql`${integrations.id} > ${afterId} AND (${integrations.headers} IS NOT NULL OR ${integrations.secrets} IS NOT NULL)`,
    )
    .orderBy(asc(integrations.id))
    .limit(limit);
  return rows.map((r) => r.id);
}

/** Writes an integration's sealed columns as re-sealed (nothing else of the row changes). */
export async function setSealedColumns(
  db: Executor,
  id: number,
  values: Partial<Pick<IntegrationRow, 'headers' | 'secrets'>>,
): Promise<void> {
  await db.update(integrations).set(values).where(eq(integrations.id, id));
}

/** One integration by id, locked (its sealed values are resealed under this lock). */
export async function lockIntegration(db: Executor, id: number): Promise<IntegrationRow | undefined> {
  const [row] = await db.select().from(integrations).where(eq(integrations.id, id)).for('update');
  return row;
}

/** The company's active gateway integration, if it has one (at most one: a unique index). */
export async function findActiveGateway(
  db: Executor,
  companyId: number,
): Promise<IntegrationRow | undefined> {
  const [row] = await db
    .select()
    .from(integrations)
    .where(
      and(
        eq(integrations.companyId, companyId),
        eq(integrations.type, 'gateway'),
        eq(integrations.isActive, true),
      ),
    )
    .limit(1);
  return row;
}

/**
 * Serialises the writes that feed `product_ids` within one company (product links, products,
 * `send_to_all_products`). Without it two concurrent transactions could each recompute the cache
 * from a snapshot that misses the other's change. `FOR NO KEY UPDATE` does not conflict with the
 * key-share locks that foreign keys take, so payments traffic of the company is not blocked.
 */
async function lockCompanyIntegrations(tx: Executor, companyId: number): Promise<void> {
  await tx.execute(sql`SELECT id FROM companies WHERE id = ${companyId} FOR NO KEY UPDATE`);
}

/**
 * The one place `integrations.product_ids` is computed (docs/api.md, "Who receives an event"): the ids of the
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

/** Runs `change` in a transaction that holds the company's integration lock (see above). */
export function withCompanyIntegrationsLock<T>(
  db: Db,
  companyId: number,
  change: (tx: Tx) => Promise<T>,
): Promise<T> {
  return db.transaction(async (tx) => {
    await lockCompanyIntegrations(tx, companyId);
    return change(tx);
  });
}
