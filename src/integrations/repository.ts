import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { schema, type Executor } from '../shared/db/index.js';

const { integrations, integrationProducts, products } = schema;

export type IntegrationRow = typeof integrations.$inferSelect;
export type NewIntegration = Pick<
  IntegrationRow,
  | 'companyId'
  | 'type'
  | 'isActive'
  | 'config'
  | 'events'
  | 'sendToAllProducts'
  | 'oauthPending'
  | 'oauthState'
>;
export type IntegrationChanges = Partial<
  Pick<
    IntegrationRow,
    'type' | 'isActive' | 'config' | 'events' | 'sendToAllProducts' | 'oauthPending' | 'oauthState'
  >
>;

/** A product link with the product facts the wire shape (spec 2.9) shows. */
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
  const [row] = await db.insert(integrations).values(values).returning();
  if (!row) throw new Error('insert into integrations returned no row');
  return row;
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

/** Links a product; false when it was already linked (the unique pair decides, so races agree). */
export async function insertLink(db: Executor, integrationId: number, productId: number): Promise<boolean> {
  const rows = await db
    .insert(integrationProducts)
    .values({ integrationId, productId })
    .onConflictDoNothing({ target: [integrationProducts.integrationId, integrationProducts.productId] })
    .returning({ id: integrationProducts.id });
  return rows.length > 0;
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

/** The company's active gateway still waiting for its OAuth authorization, if any. */
export async function findPendingGateway(
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
        eq(integrations.oauthPending, true),
      ),
    )
    .orderBy(asc(integrations.id))
    .limit(1);
  return row;
}

/** The integration waiting for the OAuth callback that carries `state`, locked for the completion. */
export async function findByOauthStateForUpdate(
  db: Executor,
  state: string,
): Promise<IntegrationRow | undefined> {
  const [row] = await db
    .select()
    .from(integrations)
    .where(and(eq(integrations.oauthState, state), eq(integrations.oauthPending, true)))
    .for('update');
  return row;
}
