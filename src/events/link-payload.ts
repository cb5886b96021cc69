import { eq } from 'drizzle-orm';
import type { Executor } from '../shared/db/index.js';
import { offers, plans, products, type paymentLinks } from '../shared/db/schema.js';

export type LinkRow = typeof paymentLinks.$inferSelect;

/** What a payload is built from: a link, or (orders without one) the same fields of the purchase. */
export type PurchaseSource = Pick<
  LinkRow,
  | 'id'
  | 'type'
  | 'productId'
  | 'offerId'
  | 'planId'
  | 'customerName'
  | 'customerEmail'
  | 'customerPhone'
  | 'customerDocument'
  | 'externalReference'
  | 'metadata'
>;

export interface OrderFacts {
  code: string;
  status: string;
  amount: string;
  payment_method: string | null;
  paid_at: string | null;
  /** Synthetic orders of simulated events carry the same marks as the envelope. */
  test?: boolean;
  sandbox?: boolean;
}

const money = (value: string): string => Number.parseFloat(value).toFixed(2);

/**
 * `data` of an order event about a link (decisions, "Envelope"): order (null when no order exists,
 * e.g. a link that expired unpaid), customer, product, offer or plan, and the purchase block with
 * the link's reference and payment_link object.
 */
export async function linkEventData(
  tx: Executor,
  link: PurchaseSource,
  order: OrderFacts | null,
): Promise<{ productId: number; data: Record<string, unknown>; price: string | null }> {
  const [product] = await tx.select({ id: products.id, name: products.name }).from(products).where(eq(products.id, link.productId));
  let offer: Record<string, unknown> | null = null;
  let plan: Record<string, unknown> | null = null;
  let price: string | null = null;
  if (link.offerId !== null) {
    const [row] = await tx.select().from(offers).where(eq(offers.id, link.offerId));
    if (row) {
      price = money(row.price);
      offer = { code: row.code, name: row.name, price };
    }
  }
  if (link.planId !== null) {
    const [row] = await tx.select().from(plans).where(eq(plans.id, link.planId));
    if (row) {
      price = money(row.price);
      plan = { code: row.code, name: row.name, price, billing_cycle: row.billingCycle };
    }
  }
  const data: Record<string, unknown> = {
    order,
    customer: {
      name: link.customerName,
      email: link.customerEmail,
      phone: link.customerPhone === null ? null : `+${link.customerPhone.replace(/^\+/, '')}`,
      document: link.customerDocument,
    },
    product: { id: link.productId, name: product?.name ?? null },
    ...(link.type === 'plan' ? { plan, subscription: null } : { offer }),
    purchase: {
      tracking: { external_reference: link.externalReference },
      payment_link: { code: link.id, external_reference: link.externalReference, metadata: link.metadata },
    },
  };
  return { productId: link.productId, data, price };
}
