import { and, desc, eq, getTableColumns } from 'drizzle-orm';
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
