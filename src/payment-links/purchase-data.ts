import { findItemById, type CatalogItem, type ItemKind } from '../catalog/repository.js';
import type { Executor } from '../shared/db/index.js';
import { BILLING_CYCLES } from '../shared/enums/billing-cycles.js';
import { LINK_ID_PATTERN } from '../shared/ids.js';
import { formatMoney } from '../shared/money.js';
import { money, nullable } from '../shared/openapi/builders.js';
import type { JsonSchema } from '../shared/openapi/types.js';
import { campaignSchema, customerSchema } from './openapi.js';
import { webhookTracking } from '../shared/tracking.js';
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
  | 'tracking'
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

/** How `purchaseData` reads a link's offer or plan (a batch shares one read per item). */
export type ItemLookup = (kind: ItemKind, id: number) => Promise<CatalogItem | undefined>;

/** An `ItemLookup` that reads each item once however many links name it. */
export function cachedItemLookup(tx: Executor): ItemLookup {
  const seen = new Map<string, Promise<CatalogItem | undefined>>();
  return (kind, id) => {
    const key = `${kind}:${id}`;
    let item = seen.get(key);
    if (!item) {
      item = findItemById(tx, kind, id);
      seen.set(key, item);
    }
    return item;
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
  findItem: ItemLookup = (kind, id) => findItemById(tx, kind, id),
): Promise<{ productId: number; data: Record<string, unknown>; price: string | null }> {
  const kind = link.offerId !== null ? 'offer' : 'plan';
  const itemId = link.offerId ?? link.planId;
  const item = itemId === null ? undefined : await findItem(kind, itemId);
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
      tracking: webhookTracking(link.externalReference, link.tracking),
      payment_link: { code: link.id, external_reference: link.externalReference, metadata: link.metadata },
    },
  };
  return { productId: link.productId, data, price };
}

const nullableString = nullable({ type: 'string' });

/**
 * The schemas of what `purchaseData` builds, every order, subscription and lead event's purchase part
 * (components of the payments document; the event data schemas refer to them by name).
 */
export const purchaseEventSchemas: Record<string, JsonSchema> = {
  EventProduct: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'name'],
    properties: { id: { type: 'integer' }, name: nullableString },
  },
  EventOffer: nullable({
    type: 'object',
    additionalProperties: false,
    required: ['code', 'name', 'price'],
    properties: { code: { type: 'string' }, name: { type: 'string' }, price: money },
  }),
  EventPlan: nullable({
    type: 'object',
    additionalProperties: false,
    required: ['code', 'name', 'price', 'billing_cycle'],
    properties: {
      code: { type: 'string' },
      name: { type: 'string' },
      price: money,
      billing_cycle: nullable({ type: 'string', enum: [...BILLING_CYCLES] }),
    },
  }),
  EventPurchase: {
    type: 'object',
    additionalProperties: false,
    required: ['tracking', 'payment_link'],
    description: 'Both null for purchases not made through a link (renewals, a checkout opened without one)',
    properties: {
      tracking: campaignSchema(
        'The link’s `external_reference` and the campaign of the sale: the checkout address’s ' +
          '`utm_*`, `src` and `sck`, else the link’s `tracking` (null where unknown). Click ids, ' +
          'cookies, IP and user agent are kept on the order for the company’s ad platforms, never sent here',
        { external_reference: nullableString },
      ),
      payment_link: nullable({
        type: 'object',
        additionalProperties: false,
        required: ['code', 'external_reference', 'metadata'],
        properties: {
          code: { type: 'string', pattern: LINK_ID_PATTERN.source, description: 'The link id' },
          external_reference: nullableString,
          metadata: { type: 'object', additionalProperties: { type: 'string' } },
        },
      }),
    },
  },
  EventCustomer: {
    ...customerSchema,
    description: 'The buyer as entered at checkout (else the link prefill)',
  },
};

/** The offer or the plan of the purchase (a plan with its subscription), never both. */
export const offerOrPlan = (withSubscription: boolean): JsonSchema => ({
  oneOf: [
    {
      required: ['offer'],
      not: { anyOf: [{ required: ['plan'] }, { required: ['subscription'] }] },
    },
    {
      required: withSubscription ? ['plan', 'subscription'] : ['plan'],
      not: { required: ['offer'] },
    },
  ],
});
