import type { Config } from '../shared/config.js';
import { formatMoney } from '../shared/money.js';
import type { CatalogItem, CatalogStatus, CouponRow, ProductRow } from './repository.js';

export interface OfferWire {
  object: 'offer';
  code: string;
  name: string;
  status: CatalogStatus;
  price: string;
  product: { id: number; name: string };
  url: string;
  guarantee_days: number;
  created_at: string;
}

export interface PlanWire extends Omit<OfferWire, 'object'> {
  object: 'plan';
  billing_cycle: string;
}

export interface ProductWire {
  object: 'product';
  id: number;
  code: string;
  name: string;
  status: CatalogStatus;
  content: Array<{ title: string; url: string; description: string }>;
  created_at: string;
  updated_at: string;
}

export interface CouponWire {
  object: 'coupon';
  code: string;
  percent_off: string | null;
  amount_off: string | null;
  status: CatalogStatus;
  created_at: string;
}

/** Where the checkout of an offer or plan opens (without a link: no prefill). */
export const checkoutUrlFor = (config: Config, code: string): string =>
  `${config.urls.checkout}/${encodeURIComponent(code)}`;

/** The wire shape of an offer or a plan (a plan adds `billing_cycle`). */
export function toItemWire(config: Config, item: CatalogItem): OfferWire | PlanWire {
  const common = {
    code: item.code,
    name: item.name,
    status: item.status,
    price: formatMoney(item.price),
    product: { id: item.productId, name: item.productName },
    url: checkoutUrlFor(config, item.code),
    guarantee_days: item.guaranteeDays,
    created_at: item.createdAt.toISOString(),
  };
  return item.kind === 'plan'
    ? { object: 'plan', ...common, billing_cycle: item.billingCycle ?? '' }
    : { object: 'offer', ...common };
}

const statusOf = (active: boolean): CatalogStatus => (active ? 'active' : 'inactive');

export const toProductWire = (row: ProductRow): ProductWire => ({
  object: 'product',
  id: row.id,
  code: row.code,
  name: row.name,
  status: statusOf(row.active),
  content: row.content.map((item) => ({ title: item.title, url: item.url, description: item.description })),
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

export const toCouponWire = (row: CouponRow): CouponWire => ({
  object: 'coupon',
  code: row.code,
  percent_off: row.percentOff === null ? null : formatMoney(row.percentOff),
  amount_off: row.amountOff === null ? null : formatMoney(row.amountOff),
  status: statusOf(row.active),
  created_at: row.createdAt.toISOString(),
});
