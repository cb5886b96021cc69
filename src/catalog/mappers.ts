import type { Config } from '../shared/config.js';
import type { OfferWithProduct, PlanWithProduct } from './repository.js';

export interface OfferWire {
  object: 'offer';
  code: string;
  name: string;
  status: string;
  price: string;
  product: { id: number; name: string };
  url: string;
  created_at: string;
}

export interface PlanWire extends Omit<OfferWire, 'object'> {
  object: 'plan';
  billing_cycle: string;
}

/** Prices are numeric(12,2) in PostgreSQL, which pg returns as an exact string such as "97.00". */
export const formatMoney = (value: string): string => Number.parseFloat(value).toFixed(2);

export const checkoutUrlFor = (config: Config, code: string): string =>
  `${config.urls.checkout}/${encodeURIComponent(code)}`;

export function toOfferWire(config: Config, offer: OfferWithProduct): OfferWire {
  return {
    object: 'offer',
    code: offer.code,
    name: offer.name,
    status: offer.status,
    price: formatMoney(offer.price),
    product: { id: offer.productId, name: offer.productName },
    url: checkoutUrlFor(config, offer.code),
    created_at: offer.createdAt.toISOString(),
  };
}

export function toPlanWire(config: Config, plan: PlanWithProduct): PlanWire {
  return {
    object: 'plan',
    code: plan.code,
    name: plan.name,
    status: plan.status,
    price: formatMoney(plan.price),
    product: { id: plan.productId, name: plan.productName },
    url: checkoutUrlFor(config, plan.code),
    billing_cycle: plan.billingCycle,
    created_at: plan.createdAt.toISOString(),
  };
}
