import { and, asc, desc, eq, getTableColumns, sql } from 'drizzle-orm';
import { schema, type Executor } from '../shared/db/index.js';

const { products, offers, plans, coupons } = schema;

export type ProductRow = typeof products.$inferSelect;
export type OfferRow = typeof offers.$inferSelect;
export type PlanRow = typeof plans.$inferSelect;
export type CouponRow = typeof coupons.$inferSelect;

export interface OfferWithProduct extends OfferRow {
  productName: string;
}
export interface PlanWithProduct extends PlanRow {
  productName: string;
}

export async function insertProduct(
  db: Executor,
  p: Pick<ProductRow, 'companyId' | 'code' | 'name'> & { active?: boolean },
): Promise<ProductRow> {
  const [row] = await db.insert(products).values(p).returning();
  if (!row) throw new Error('insert into products returned no row');
  return row;
}

export async function insertOffer(
  db: Executor,
  o: Pick<OfferRow, 'companyId' | 'productId' | 'code' | 'name' | 'price'> & { status?: OfferRow['status'] },
): Promise<OfferRow> {
  const [row] = await db.insert(offers).values(o).returning();
  if (!row) throw new Error('insert into offers returned no row');
  return row;
}

export async function insertPlan(
  db: Executor,
  p: Pick<PlanRow, 'companyId' | 'productId' | 'code' | 'name' | 'price' | 'billingCycle'> & {
    status?: PlanRow['status'];
  },
): Promise<PlanRow> {
  const [row] = await db.insert(plans).values(p).returning();
  if (!row) throw new Error('insert into plans returned no row');
  return row;
}

export async function insertCoupon(
  db: Executor,
  c: Pick<CouponRow, 'companyId' | 'code'> & Partial<Pick<CouponRow, 'percentOff' | 'amountOff' | 'active'>>,
): Promise<CouponRow> {
  const [row] = await db.insert(coupons).values(c).returning();
  if (!row) throw new Error('insert into coupons returned no row');
  return row;
}

export function listOffers(db: Executor, companyId: number): Promise<OfferWithProduct[]> {
  return db
    .select({ ...getTableColumns(offers), productName: products.name })
    .from(offers)
    .innerJoin(products, eq(products.id, offers.productId))
    .where(eq(offers.companyId, companyId))
    .orderBy(desc(offers.createdAt), desc(offers.id));
}

export function listPlans(db: Executor, companyId: number): Promise<PlanWithProduct[]> {
  return db
    .select({ ...getTableColumns(plans), productName: products.name })
    .from(plans)
    .innerJoin(products, eq(products.id, plans.productId))
    .where(eq(plans.companyId, companyId))
    .orderBy(desc(plans.createdAt), desc(plans.id));
}

export async function findOfferByCode(
  db: Executor,
  companyId: number,
  code: string,
): Promise<OfferRow | undefined> {
  const [row] = await db
    .select()
    .from(offers)
    .where(and(eq(offers.companyId, companyId), eq(offers.code, code)));
  return row;
}

export async function findPlanByCode(
  db: Executor,
  companyId: number,
  code: string,
): Promise<PlanRow | undefined> {
  const [row] = await db
    .select()
    .from(plans)
    .where(and(eq(plans.companyId, companyId), eq(plans.code, code)));
  return row;
}

export async function findCouponByCode(
  db: Executor,
  companyId: number,
  code: string,
): Promise<CouponRow | undefined> {
  const [row] = await db
    .select()
    .from(coupons)
    .where(and(eq(coupons.companyId, companyId), eq(coupons.code, code)));
  return row;
}

export async function findProduct(
  db: Executor,
  companyId: number,
  id: number,
): Promise<ProductRow | undefined> {
  const [row] = await db
    .select()
    .from(products)
    .where(and(eq(products.companyId, companyId), eq(products.id, id)));
  return row;
}

export function listProducts(db: Executor, companyId: number): Promise<ProductRow[]> {
  return db.select().from(products).where(eq(products.companyId, companyId)).orderBy(asc(products.id));
}

export async function updateProduct(
  db: Executor,
  companyId: number,
  id: number,
  changes: Partial<Pick<ProductRow, 'name' | 'active'>>,
): Promise<ProductRow | undefined> {
  const [row] = await db
    .update(products)
    .set({ ...changes, updatedAt: new Date() })
    .where(and(eq(products.companyId, companyId), eq(products.id, id)))
    .returning();
  return row;
}

/** Whether links, orders or subscriptions refer to the product (then it can only be deactivated). */
export async function productHasHistory(db: Executor, productId: number): Promise<boolean> {
  const result = await db.execute<{ used: boolean }>(sql`
    SELECT EXISTS (SELECT 1 FROM payment_links WHERE product_id = ${productId})
        OR EXISTS (SELECT 1 FROM orders WHERE product_id = ${productId})
        OR EXISTS (SELECT 1 FROM subscriptions s JOIN plans p ON p.id = s.plan_id WHERE p.product_id = ${productId})
        AS used`);
  return result.rows[0]?.used === true;
}

/** Removes a product with its offers, plans and integration links (all cascade). */
export async function deleteProduct(db: Executor, companyId: number, id: number): Promise<boolean> {
  const rows = await db
    .delete(products)
    .where(and(eq(products.companyId, companyId), eq(products.id, id)))
    .returning({ id: products.id });
  return rows.length > 0;
}

export async function findOfferWithProduct(
  db: Executor,
  companyId: number,
  code: string,
): Promise<OfferWithProduct | undefined> {
  const [row] = await db
    .select({ ...getTableColumns(offers), productName: products.name })
    .from(offers)
    .innerJoin(products, eq(products.id, offers.productId))
    .where(and(eq(offers.companyId, companyId), eq(offers.code, code)));
  return row;
}

export async function findPlanWithProduct(
  db: Executor,
  companyId: number,
  code: string,
): Promise<PlanWithProduct | undefined> {
  const [row] = await db
    .select({ ...getTableColumns(plans), productName: products.name })
    .from(plans)
    .innerJoin(products, eq(products.id, plans.productId))
    .where(and(eq(plans.companyId, companyId), eq(plans.code, code)));
  return row;
}

export async function updateOffer(
  db: Executor,
  companyId: number,
  code: string,
  changes: Partial<Pick<OfferRow, 'name' | 'price' | 'status'>>,
): Promise<boolean> {
  const rows = await db
    .update(offers)
    .set({ ...changes, updatedAt: new Date() })
    .where(and(eq(offers.companyId, companyId), eq(offers.code, code)))
    .returning({ id: offers.id });
  return rows.length > 0;
}

export async function updatePlan(
  db: Executor,
  companyId: number,
  code: string,
  changes: Partial<Pick<PlanRow, 'name' | 'price' | 'status'>>,
): Promise<boolean> {
  const rows = await db
    .update(plans)
    .set({ ...changes, updatedAt: new Date() })
    .where(and(eq(plans.companyId, companyId), eq(plans.code, code)))
    .returning({ id: plans.id });
  return rows.length > 0;
}

export function listCoupons(db: Executor, companyId: number): Promise<CouponRow[]> {
  return db
    .select()
    .from(coupons)
    .where(eq(coupons.companyId, companyId))
    .orderBy(desc(coupons.createdAt), desc(coupons.id));
}

export async function updateCoupon(
  db: Executor,
  companyId: number,
  code: string,
  changes: Partial<Pick<CouponRow, 'active'>>,
): Promise<CouponRow | undefined> {
  const [row] = await db
    .update(coupons)
    .set({ ...changes, updatedAt: new Date() })
    .where(and(eq(coupons.companyId, companyId), eq(coupons.code, code)))
    .returning();
  return row;
}
