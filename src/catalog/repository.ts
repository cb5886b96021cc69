import { and, asc, desc, eq, sql, type SQL } from 'drizzle-orm';
import { schema, statementName, type Db, type Executor } from '../shared/db/index.js';
import { insertedRow } from '../shared/db/inserted.js';
import { preparedOn } from '../shared/db/prepared.js';
import type { BillingCycle } from '../shared/enums/billing-cycles.js';

const { companies, products, offers, plans, coupons } = schema;

export type ProductRow = typeof products.$inferSelect;
export type CouponRow = typeof coupons.$inferSelect;
export type CatalogStatus = 'active' | 'inactive';

/** Offers and plans are the two things a company sells; they differ only by a plan's billing cycle. */
export type ItemKind = 'offer' | 'plan';

/**
 * An offer or a plan with its product, and whether it is on sale. The one read model of "what a
 * link or a checkout sells": link creation, the checkout and the catalog lists all read it.
 */
export interface CatalogItem {
  kind: ItemKind;
  id: number;
  companyId: number;
  code: string;
  name: string;
  /** numeric(12,2) as PostgreSQL returns it: an exact string such as "97.00". */
  price: string;
  status: CatalogStatus;
  billingCycle: BillingCycle | null;
  /** Days after payment within which the buyer may ask for a refund (7–30). */
  guaranteeDays: number;
  productId: number;
  productName: string;
  /** The one "on sale" rule: the offer or plan, its product and its company are all active. */
  onSale: boolean;
  createdAt: Date;
}

/** The table of an offer or a plan. */
export const itemTable = (kind: ItemKind) => (kind === 'offer' ? offers : plans);
const tableOf = itemTable;

/**
 * The one "on sale" rule, over the item's table joined to its product and company: the offer or
 * plan, its product and its company are all active.
 */
export const onSaleSql = (t: ReturnType<typeof itemTable>): SQL<boolean> =>
  sql<boolean>`(${t.status} = 'active' AND ${products.active} AND ${companies.active})`;

function selectItems(db: Executor, kind: ItemKind) {
  const t = tableOf(kind);
  return db
    .select({
      id: t.id,
      companyId: t.companyId,
      code: t.code,
      name: t.name,
      price: t.price,
      status: t.status,
      billingCycle: kind === 'plan' ? plans.billingCycle : sql<BillingCycle | null>`NULL`,
      guaranteeDays: t.guaranteeDays,
      productId: t.productId,
      productName: products.name,
      onSale: onSaleSql(t),
      createdAt: t.createdAt,
    })
    .from(t)
    .innerJoin(products, eq(products.id, t.productId))
    .innerJoin(companies, eq(companies.id, t.companyId));
}

type ItemRow = Omit<CatalogItem, 'kind'>;
const withKind =
  (kind: ItemKind) =>
  (row: ItemRow): CatalogItem => ({ ...row, kind });

const prepareByCode = (kind: ItemKind) => (db: Db) =>
  selectItems(db, kind)
    .where(eq(tableOf(kind).code, sql.placeholder('code')))
    .prepare(statementName(db, `catalog_${kind}_by_code`));
const byCodeStatements = {
  offer: new WeakMap<Db, ReturnType<ReturnType<typeof prepareByCode>>>(),
  plan: new WeakMap<Db, ReturnType<ReturnType<typeof prepareByCode>>>(),
};

/**
 * The offer or plan with this code. Codes are unique across companies (a checkout address names one
 * item), so the statement looks up the code alone, by its unique index, and ownership is the
 * caller's check. A prepared statement: link creation looks items up on every request.
 */
export async function findItemByCode(db: Db, kind: ItemKind, code: string): Promise<CatalogItem | undefined> {
  const [row] = await preparedOn(byCodeStatements[kind], db, prepareByCode(kind)).execute({ code });
  return row ? withKind(kind)(row) : undefined;
}

/** The offer or plan of a company with this code, in any transaction. */
export async function findCompanyItem(
  db: Executor,
  kind: ItemKind,
  companyId: number,
  code: string,
): Promise<CatalogItem | undefined> {
  const t = tableOf(kind);
  const [row] = await selectItems(db, kind).where(and(eq(t.companyId, companyId), eq(t.code, code)));
  return row ? withKind(kind)(row) : undefined;
}

/** The offer or plan a link or an order sells, by id. */
export async function findItemById(
  db: Executor,
  kind: ItemKind,
  id: number,
): Promise<CatalogItem | undefined> {
  const [row] = await selectItems(db, kind).where(eq(tableOf(kind).id, id));
  return row ? withKind(kind)(row) : undefined;
}

/** A company's offers or plans, all statuses, newest first. */
export async function listItems(db: Executor, kind: ItemKind, companyId: number): Promise<CatalogItem[]> {
  const t = tableOf(kind);
  const rows = await selectItems(db, kind)
    .where(eq(t.companyId, companyId))
    .orderBy(desc(t.createdAt), desc(t.id));
  return rows.map(withKind(kind));
}

export interface NewItem {
  companyId: number;
  productId: number;
  code: string;
  name: string;
  price: string;
  status: CatalogStatus;
  /** Plans only. */
  billingCycle: BillingCycle | null;
  /** Absent: the table's default (7). */
  guaranteeDays?: number;
}

export async function insertItem(db: Executor, kind: ItemKind, item: NewItem): Promise<void> {
  const { billingCycle, ...common } = item;
  if (kind === 'offer') await db.insert(offers).values(common);
  else {
    if (billingCycle === null) throw new Error('a plan needs a billing cycle');
    await db.insert(plans).values({ ...common, billingCycle });
  }
}

export type ItemChanges = Partial<Pick<CatalogItem, 'name' | 'price' | 'status' | 'guaranteeDays'>>;

export async function updateItem(
  db: Executor,
  kind: ItemKind,
  companyId: number,
  code: string,
  changes: ItemChanges,
): Promise<boolean> {
  const t = tableOf(kind);
  const values = { ...changes, updatedAt: new Date() };
  const where = and(eq(t.companyId, companyId), eq(t.code, code));
  const rows =
    kind === 'offer'
      ? await db.update(offers).set(values).where(where).returning({ id: offers.id })
      : await db.update(plans).set(values).where(where).returning({ id: plans.id });
  return rows.length > 0;
}

export async function insertProduct(
  db: Executor,
  p: Pick<ProductRow, 'companyId' | 'code' | 'name'> & { active?: boolean; content?: ProductRow['content'] },
): Promise<ProductRow> {
  return insertedRow(await db.insert(products).values(p).returning(), 'products');
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
  changes: Partial<Pick<ProductRow, 'name' | 'active' | 'content'>>,
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

export async function insertCoupon(
  db: Executor,
  c: Pick<CouponRow, 'companyId' | 'code'> & Partial<Pick<CouponRow, 'percentOff' | 'amountOff' | 'active'>>,
): Promise<CouponRow> {
  return insertedRow(await db.insert(coupons).values(c).returning(), 'coupons');
}

const couponWhere = (companyId: unknown, code: unknown): SQL | undefined =>
  and(eq(coupons.companyId, companyId as number), eq(coupons.code, code as string));
const prepareCouponLookup = (db: Db) =>
  db
    .select()
    .from(coupons)
    .where(couponWhere(sql.placeholder('companyId'), sql.placeholder('code')))
    .prepare(statementName(db, 'catalog_coupon_by_code'));
const couponStatements = new WeakMap<Db, ReturnType<typeof prepareCouponLookup>>();

/** A company's coupon by code (a prepared statement: link creation checks coupons per request). */
export async function findCoupon(db: Db, companyId: number, code: string): Promise<CouponRow | undefined> {
  const [row] = await preparedOn(couponStatements, db, prepareCouponLookup).execute({ companyId, code });
  return row;
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
    .where(couponWhere(companyId, code))
    .returning();
  return row;
}
