import { findItemById } from '../catalog/repository.js';
import type { Executor } from '../shared/db/index.js';
import { formatMoney } from '../shared/money.js';
import type { LinkRow } from './repository.js';

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

/** How an order is paid: card instalments, or what the gateway gave the buyer to pay with. */
export interface PaymentDetails {
  installments: number | null;
  pix: { copy_paste: string; expires_at: string } | null;
  boleto: { digitable_line: string; barcode: string; due_date: string; url: string } | null;
}

export interface OrderFacts extends PaymentDetails {
  code: string;
  status: string;
  amount: string;
  payment_method: string | null;
  paid_at: string | null;
  /** Synthetic orders of simulated events carry the same marks as the envelope. */
  test?: boolean;
  sandbox?: boolean;
}

/** The buyer a link was made for (its prefill), as events show a customer: phone as `+digits`. */
export function linkCustomer(
  link: Pick<LinkRow, 'customerName' | 'customerEmail' | 'customerPhone' | 'customerDocument'>,
): { name: string | null; email: string | null; phone: string | null; document: string | null } {
  return {
    name: link.customerName,
    email: link.customerEmail,
    phone: link.customerPhone === null ? null : `+${link.customerPhone.replace(/^\+/, '')}`,
    document: link.customerDocument,
  };
}

/**
 * `data` of an order event about a purchase (docs/api.md, "Event envelope"): order (null when no order exists,
 * e.g. a link that expired unpaid), customer, product, offer or plan, and the purchase block with
 * the link's reference and payment_link object.
 */
export async function purchaseData(
  tx: Executor,
  link: PurchaseSource,
  order: OrderFacts | null,
): Promise<{ productId: number; data: Record<string, unknown>; price: string | null }> {
  const kind = link.offerId !== null ? 'offer' : 'plan';
  const itemId = link.offerId ?? link.planId;
  const item = itemId === null ? undefined : await findItemById(tx, kind, itemId);
  const price = item ? formatMoney(item.price) : null;
  const sold = item ? { code: item.code, name: item.name, price } : null;
  const data: Record<string, unknown> = {
    order,
    customer: linkCustomer(link),
    product: { id: link.productId, name: item?.productName ?? null },
    ...(link.type === 'plan'
      ? { plan: sold && { ...sold, billing_cycle: item?.billingCycle ?? null }, subscription: null }
      : { offer: sold }),
    purchase: {
      tracking: { external_reference: link.externalReference },
      payment_link: { code: link.id, external_reference: link.externalReference, metadata: link.metadata },
    },
  };
  return { productId: link.productId, data, price };
}
