import type { CouponRow } from '../catalog/repository.js';

/** The catalog's one currency: offer and plan prices are Brazilian reais. */
export const CATALOG_CURRENCY = 'BRL';

export interface Price {
  /** ISO 4217 code of every amount below. */
  currency: string;
  /** The offer or plan price, two decimals. */
  list: string;
  /** What the buyer pays: list price minus the coupon discount, never below zero. */
  amount: string;
  discount: string;
}

const toCents = (value: string): number => Math.round(Number.parseFloat(value) * 100);
const fromCents = (cents: number): string => (cents / 100).toFixed(2);

/**
 * The price at checkout, in integer cents: a percentage coupon rounds its discount half-up to the
 * cent; an amount coupon takes off at most the whole price. An inactive coupon takes off nothing.
 */
export function priceWithCoupon(listPrice: string, coupon: CouponRow | undefined): Price {
  const list = toCents(listPrice);
  let discount = 0;
  if (coupon?.active) {
    if (coupon.percentOff !== null)
      discount = Math.round((list * Number.parseFloat(coupon.percentOff)) / 100);
    else if (coupon.amountOff !== null) discount = toCents(coupon.amountOff);
  }
  discount = Math.min(discount, list);
  return {
    currency: CATALOG_CURRENCY,
    list: fromCents(list),
    amount: fromCents(list - discount),
    discount: fromCents(discount),
  };
}

/**
 * `total` in `n` interest-free instalments, in cents: equal parts, the cents that do not divide
 * evenly added to the first (R$ 100,00 in 3 is R$ 33,34 then twice R$ 33,33).
 */
export function installmentPlan(total: string, n: number): { first: string; each: string } {
  const cents = toCents(total);
  const each = Math.floor(cents / n);
  return { first: fromCents(each + (cents - each * n)), each: fromCents(each) };
}
