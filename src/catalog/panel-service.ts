import type { Db, Executor } from '../shared/db/index.js';
import type { BillingCycle } from '../shared/db/schema.js';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import { newCatalogCode, newUuid } from '../shared/ids.js';
import { isForeignKeyViolation, isUniqueViolation } from '../shared/db/errors.js';
import { lockCompanyIntegrations, refreshProductIds } from '../integrations/product-ids.js';
import * as catalog from './repository.js';

type Status = 'active' | 'inactive';

export interface ProductInput {
  name?: string;
  status?: Status;
}
export interface OfferInput {
  product_id: number;
  name: string;
  price: string;
  status?: Status;
}
export interface PlanInput extends OfferInput {
  billing_cycle: BillingCycle;
}
export interface PriceChanges {
  name?: string;
  price?: string;
  status?: Status;
}
export interface CouponInput {
  code: string;
  percent_off?: string;
  amount_off?: string;
  status?: Status;
}

// Products feed every integration's product_ids cache, so each product change takes the company's
// integration lock and refreshes the cache in its own transaction.

export const listProducts = (db: Db, companyId: number): Promise<catalog.ProductRow[]> =>
  catalog.listProducts(db, companyId);

export async function createProduct(
  db: Db,
  companyId: number,
  input: ProductInput,
): Promise<catalog.ProductRow> {
  return db.transaction(async (tx) => {
    await lockCompanyIntegrations(tx, companyId);
    const row = await catalog.insertProduct(tx, {
      companyId,
      code: newUuid(),
      name: input.name ?? '',
      active: input.status !== 'inactive',
    });
    await refreshProductIds(tx, companyId);
    return row;
  });
}

/** Renames, deactivates or reactivates a product. */
export async function updateProduct(
  db: Db,
  companyId: number,
  id: number,
  input: ProductInput,
): Promise<catalog.ProductRow> {
  return db.transaction(async (tx) => {
    await lockCompanyIntegrations(tx, companyId);
    const row = await catalog.updateProduct(tx, companyId, id, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.status !== undefined ? { active: input.status === 'active' } : {}),
    });
    if (!row) throw new NotFoundError(`No product ${id} in this company`);
    await refreshProductIds(tx, companyId);
    return row;
  });
}

/**
 * Removes a product that never sold: its offers, plans and integration links go with it. A product
 * that links, orders or subscriptions refer to is kept for their history (409; deactivate it instead).
 */
export async function removeProduct(db: Db, companyId: number, id: number): Promise<void> {
  await db.transaction(async (tx) => {
    await lockCompanyIntegrations(tx, companyId);
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
    await refreshProductIds(tx, companyId);
  });
}

async function requireActiveProduct(db: Executor, companyId: number, productId: number): Promise<void> {
  const product = await catalog.findProduct(db, companyId, productId);
  if (!product) throw ValidationError.field('product_id', `no product ${productId} in this company`);
  if (!product.active) throw ValidationError.field('product_id', `product ${productId} is inactive`);
}

export const listOffers = (db: Db, companyId: number): Promise<catalog.OfferWithProduct[]> =>
  catalog.listOffers(db, companyId);

export async function createOffer(
  db: Db,
  companyId: number,
  input: OfferInput,
): Promise<catalog.OfferWithProduct> {
  await requireActiveProduct(db, companyId, input.product_id);
  const row = await catalog.insertOffer(db, {
    companyId,
    productId: input.product_id,
    code: newCatalogCode('of'),
    name: input.name,
    price: input.price,
    status: input.status ?? 'active',
  });
  return requireOffer(db, companyId, row.code);
}

async function requireOffer(
  db: Executor,
  companyId: number,
  code: string,
): Promise<catalog.OfferWithProduct> {
  const offer = await catalog.findOfferWithProduct(db, companyId, code);
  if (!offer) throw new NotFoundError(`No offer ${code} in this company`);
  return offer;
}

/** Renames, reprices or (de)activates an offer; an inactive offer accepts no new links. */
export async function updateOffer(
  db: Db,
  companyId: number,
  code: string,
  changes: PriceChanges,
): Promise<catalog.OfferWithProduct> {
  if (!(await catalog.updateOffer(db, companyId, code, changes))) {
    throw new NotFoundError(`No offer ${code} in this company`);
  }
  return requireOffer(db, companyId, code);
}

export const listPlans = (db: Db, companyId: number): Promise<catalog.PlanWithProduct[]> =>
  catalog.listPlans(db, companyId);

export async function createPlan(
  db: Db,
  companyId: number,
  input: PlanInput,
): Promise<catalog.PlanWithProduct> {
  await requireActiveProduct(db, companyId, input.product_id);
  const row = await catalog.insertPlan(db, {
    companyId,
    productId: input.product_id,
    code: newCatalogCode('pl'),
    name: input.name,
    price: input.price,
    billingCycle: input.billing_cycle,
    status: input.status ?? 'active',
  });
  return requirePlan(db, companyId, row.code);
}

async function requirePlan(db: Executor, companyId: number, code: string): Promise<catalog.PlanWithProduct> {
  const plan = await catalog.findPlanWithProduct(db, companyId, code);
  if (!plan) throw new NotFoundError(`No plan ${code} in this company`);
  return plan;
}

/** Renames, reprices or (de)activates a plan; an inactive plan accepts no new links. */
export async function updatePlan(
  db: Db,
  companyId: number,
  code: string,
  changes: PriceChanges,
): Promise<catalog.PlanWithProduct> {
  if (!(await catalog.updatePlan(db, companyId, code, changes))) {
    throw new NotFoundError(`No plan ${code} in this company`);
  }
  return requirePlan(db, companyId, code);
}

export const listCoupons = (db: Db, companyId: number): Promise<catalog.CouponRow[]> =>
  catalog.listCoupons(db, companyId);

/** A coupon takes exactly one of `percent_off` (0–100] or `amount_off` (> 0). */
export async function createCoupon(
  db: Db,
  companyId: number,
  input: CouponInput,
): Promise<catalog.CouponRow> {
  const { percent_off: percentOff, amount_off: amountOff } = input;
  if ((percentOff === undefined) === (amountOff === undefined)) {
    const message = 'send exactly one of percent_off and amount_off';
    throw new ValidationError(message, { percent_off: [message], amount_off: [message] });
  }
  if (percentOff !== undefined && !(Number(percentOff) > 0 && Number(percentOff) <= 100)) {
    throw ValidationError.field('percent_off', 'must be above 0 and at most 100');
  }
  if (amountOff !== undefined && !(Number(amountOff) > 0)) {
    throw ValidationError.field('amount_off', 'must be above 0');
  }
  try {
    return await catalog.insertCoupon(db, {
      companyId,
      code: input.code,
      percentOff: percentOff ?? null,
      amountOff: amountOff ?? null,
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
  status: Status,
): Promise<catalog.CouponRow> {
  const row = await catalog.updateCoupon(db, companyId, code, { active: status === 'active' });
  if (!row) throw new NotFoundError(`No coupon ${code} in this company`);
  return row;
}
