import { and, eq, type SQL } from 'drizzle-orm';
import { schema, type Executor } from '../shared/db/index.js';
import type { BillingCycle } from '../shared/db/schema.js';

const { companies, offers, plans, products } = schema;

/** What the checkout sells: one offer or one plan, with its product. */
export interface CatalogItem {
  kind: 'offer' | 'plan';
  id: number;
  companyId: number;
  code: string;
  name: string;
  price: string;
  /** On sale: the offer or plan, its product and its company are all active. */
  active: boolean;
  billingCycle: BillingCycle | null;
  productId: number;
  productName: string;
}

async function findOffer(db: Executor, where: SQL | undefined): Promise<CatalogItem | undefined> {
  const [row] = await db
    .select({ offer: offers, product: products, companyActive: companies.active })
    .from(offers)
    .innerJoin(products, eq(products.id, offers.productId))
    .innerJoin(companies, eq(companies.id, offers.companyId))
    .where(where);
  if (!row) return undefined;
  const { offer, product } = row;
  return {
    kind: 'offer',
    id: offer.id,
    companyId: offer.companyId,
    code: offer.code,
    name: offer.name,
    price: offer.price,
    active: offer.status === 'active' && product.active && row.companyActive,
    billingCycle: null,
    productId: product.id,
    productName: product.name,
  };
}

async function findPlan(db: Executor, where: SQL | undefined): Promise<CatalogItem | undefined> {
  const [row] = await db
    .select({ plan: plans, product: products, companyActive: companies.active })
    .from(plans)
    .innerJoin(products, eq(products.id, plans.productId))
    .innerJoin(companies, eq(companies.id, plans.companyId))
    .where(where);
  if (!row) return undefined;
  const { plan, product } = row;
  return {
    kind: 'plan',
    id: plan.id,
    companyId: plan.companyId,
    code: plan.code,
    name: plan.name,
    price: plan.price,
    active: plan.status === 'active' && product.active && row.companyActive,
    billingCycle: plan.billingCycle,
    productId: product.id,
    productName: product.name,
  };
}

/** Offer and plan codes are unique across companies: the code in a checkout address names one item. */
export async function findItemByCode(db: Executor, code: string): Promise<CatalogItem | undefined> {
  return (await findOffer(db, eq(offers.code, code))) ?? findPlan(db, eq(plans.code, code));
}

/** The offer or plan a link sells. */
export function findItemOfLink(
  db: Executor,
  link: { companyId: number; offerId: number | null; planId: number | null },
): Promise<CatalogItem | undefined> {
  if (link.offerId !== null)
    return findOffer(db, and(eq(offers.id, link.offerId), eq(offers.companyId, link.companyId)));
  if (link.planId !== null)
    return findPlan(db, and(eq(plans.id, link.planId), eq(plans.companyId, link.companyId)));
  return Promise.resolve(undefined);
}
