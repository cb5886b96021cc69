import type { Db, Executor, Tx } from '../shared/db/index.js';
import type { ProductContentItem } from '../shared/db/schema.js';
import { isForeignKeyViolation, isUniqueViolation } from '../shared/db/errors.js';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import { newCatalogCode, newUuid } from '../shared/ids.js';
import * as catalog from './repository.js';
import type { CatalogItem, ItemKind } from './repository.js';
import {
  GUARANTEE_DAYS,
  type CouponInput,
  type ItemInput,
  type ItemUpdate,
  type ProductInput,
} from './schemas.js';

export type { CatalogItem, ItemKind };

/**
 * How a product change commits: `change` runs in a transaction this opens, and what follows the
 * catalog and is computed from its products (every integration's product_ids cache) is brought up
 * to date in that same transaction. The panel app passes the integrations' one.
 */
export type ProductChanges = <T>(db: Db, companyId: number, change: (tx: Tx) => Promise<T>) => Promise<T>;

export const listProducts = (db: Db, companyId: number): Promise<catalog.ProductRow[]> =>
  catalog.listProducts(db, companyId);

export function createProduct(
  db: Db,
  companyId: number,
  input: { name: string; status?: catalog.CatalogStatus; content?: ContentInput },
  inTransaction: ProductChanges,
) {
  return inTransaction(db, companyId, (tx) =>
    catalog.insertProduct(tx, {
      companyId,
      code: newUuid(),
      name: input.name,
      active: input.status !== 'inactive',
      ...(input.content ? { content: contentOf(input.content) } : {}),
    }),
  );
}

type ContentInput = Array<{ title: string; url: string; description?: string | undefined }>;

/** A product's content as stored: every item with its description ('' when none was given). */
const contentOf = (items: ContentInput): ProductContentItem[] =>
  items.map((item) => ({ title: item.title, url: item.url, description: item.description ?? '' }));

/** Renames, deactivates or reactivates a product, or replaces its content. */
export function updateProduct(
  db: Db,
  companyId: number,
  id: number,
  input: ProductInput,
  inTransaction: ProductChanges,
) {
  return inTransaction(db, companyId, async (tx) => {
    const row = await catalog.updateProduct(tx, companyId, id, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.status !== undefined ? { active: input.status === 'active' } : {}),
      ...(input.content !== undefined ? { content: contentOf(input.content) } : {}),
    });
    if (!row) throw new NotFoundError(`No product ${id} in this company`);
    return row;
  });
}

/**
 * Removes a product that never sold: its offers, plans and integration links go with it. A product
 * that links, orders or subscriptions refer to is kept for their history (409; deactivate it instead).
 */
export function removeProduct(
  db: Db,
  companyId: number,
  id: number,
  inTransaction: ProductChanges,
): Promise<void> {
  return inTransaction(db, companyId, async (tx) => {
    if (!(await catalog.findProduct(tx, companyId, id)))
      throw new NotFoundError(`No product ${id} in this company`);
    if (await catalog.productHasHistory(tx, id)) {
      throw new ConflictError(`Product ${id} has payment links or orders; deactivate it instead`);
    }
    // A link created for the product after the check above still makes the delete fail: same answer.
    await catalog.deleteProduct(tx, companyId, id).catch((err: unknown) => {
      if (isForeignKeyViolation(err))
        throw new ConflictError(`Product ${id} is in use; deactivate it instead`);
      throw err;
    });
  });
}

async function requireActiveProduct(db: Executor, companyId: number, productId: number): Promise<void> {
  const product = await catalog.findProduct(db, companyId, productId);
  if (!product) throw ValidationError.field('product_id', `no product ${productId} in this company`);
  if (!product.active) throw ValidationError.field('product_id', `product ${productId} is inactive`);
}

async function requireItem(
  db: Executor,
  kind: ItemKind,
  companyId: number,
  code: string,
): Promise<CatalogItem> {
  const item = await catalog.findCompanyItem(db, kind, companyId, code);
  if (!item) throw new NotFoundError(`No ${kind} ${code} in this company`);
  return item;
}

export const listItems = (db: Db, kind: ItemKind, companyId: number): Promise<CatalogItem[]> =>
  catalog.listItems(db, kind, companyId);

/** A new offer or plan, for an active product of the company. */
export async function createItem(
  db: Db,
  kind: ItemKind,
  companyId: number,
  input: ItemInput,
): Promise<CatalogItem> {
  await requireActiveProduct(db, companyId, input.product_id);
  const code = newCatalogCode(kind === 'offer' ? 'of' : 'pl');
  await catalog.insertItem(db, kind, {
    companyId,
    productId: input.product_id,
    code,
    name: input.name,
    price: input.price,
    status: input.status ?? 'active',
    billingCycle: input.billing_cycle ?? null,
    guaranteeDays: input.guarantee_days ?? GUARANTEE_DAYS.default,
  });
  return requireItem(db, kind, companyId, code);
}

/** Renames, reprices or (de)activates an offer or plan; one that is not on sale accepts no new links. */
export async function updateItem(
  db: Db,
  kind: ItemKind,
  companyId: number,
  code: string,
  changes: ItemUpdate,
): Promise<CatalogItem> {
  const { guarantee_days: guaranteeDays, ...rest } = changes;
  const stored = { ...rest, ...(guaranteeDays === undefined ? {} : { guaranteeDays }) };
  if (!(await catalog.updateItem(db, kind, companyId, code, stored))) {
    throw new NotFoundError(`No ${kind} ${code} in this company`);
  }
  return requireItem(db, kind, companyId, code);
}

export const listCoupons = (db: Db, companyId: number): Promise<catalog.CouponRow[]> =>
  catalog.listCoupons(db, companyId);

/** A coupon takes exactly one of `percent_off` (0–100] or `amount_off` (> 0); the schema says which. */
export async function createCoupon(
  db: Db,
  companyId: number,
  input: CouponInput,
): Promise<catalog.CouponRow> {
  try {
    return await catalog.insertCoupon(db, {
      companyId,
      code: input.code,
      percentOff: input.percent_off ?? null,
      amountOff: input.amount_off ?? null,
      active: input.status !== 'inactive',
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError(`The company already has a coupon ${input.code}`);
    throw err;
  }
}

export async function updateCoupon(
  db: Db,
  companyId: number,
  code: string,
  status: catalog.CatalogStatus,
): Promise<catalog.CouponRow> {
  const row = await catalog.updateCoupon(db, companyId, code, { active: status === 'active' });
  if (!row) throw new NotFoundError(`No coupon ${code} in this company`);
  return row;
}
