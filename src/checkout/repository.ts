import { eq } from 'drizzle-orm';
import { schema, type Executor } from '../shared/db/index.js';
import type { BillingCycle } from '../shared/db/schema.js';

const { offers, plans, products } = schema;

/** What the checkout sells: one offer or one plan, with its product. */
export interface CatalogItem {
  kind: 'offer' | 'plan';
  id: number;
  companyId: number;
  code: string;
  name: string;
  price: string;
  active: boolean;
  billingCycle: BillingCycle | null;
  productId: number;
  productName: string;
}

const offerItem = (row: { offer: typeof offers.$inferSelect; productName: string }): CatalogItem => ({
  kind: 'offer',
  id: row.offer.id,
  companyId: row.offer.companyId,
  code: row.offer.code,
  name: row.offer.name,
  price: row.offer.price,
  active: row.offer.status === 'active',
  billingCycle: null,
  productId: row.offer.productId,
  productName: row.productName,
});

const planItem = (row: { plan: typeof plans.$inferSelect; productName: string }): CatalogItem => ({
  kind: 'plan',
  id: row.plan.id,
  companyId: row.plan.companyId,
  code: row.plan.code,
  name: row.plan.name,
  price: row.plan.price,
  active: row.plan.status === 'active',
  billingCycle: row.plan.billingCycle,
  productId: row.plan.productId,
  productName: row.productName,
});

/** Offer and plan codes are unique across companies: the code in a checkout address names one item. */
export async function findItemByCode(db: Executor, code: string): Promise<CatalogItem | undefined> {
  const [offer] = await db
    .select({ offer: offers, productName: products.name })
    .from(offers)
    .innerJoin(products, eq(products.id, offers.productId))
    .where(eq(offers.code, code));
  if (offer) return offerItem(offer);
  const [plan] = await db
    .select({ plan: plans, productName: products.name })
    .from(plans)
    .innerJoin(products, eq(products.id, plans.productId))
    .where(eq(plans.code, code));
  return plan ? planItem(plan) : undefined;
}

/** The offer or plan a link sells. */
export async function findItemOfLink(
  db: Executor,
  link: { offerId: number | null; planId: number | null },
): Promise<CatalogItem | undefined> {
  if (link.offerId !== null) {
    const [row] = await db
      .select({ offer: offers, productName: products.name })
      .from(offers)
      .innerJoin(products, eq(products.id, offers.productId))
      .where(eq(offers.id, link.offerId));
    return row ? offerItem(row) : undefined;
  }
  if (link.planId === null) return undefined;
  const [row] = await db
    .select({ plan: plans, productName: products.name })
    .from(plans)
    .innerJoin(products, eq(products.id, plans.productId))
    .where(eq(plans.id, link.planId));
  return row ? planItem(row) : undefined;
}
