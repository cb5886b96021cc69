/**
 * The platform fee (docs/mercadopago.md, "Platform fee"): what a deployment that hosts many sellers
 * takes from each sale, as MP's `application_fee`. A percentage of the amount plus a fixed part,
 * the company's own (`cli company fee`) where set, else the deployment's PLATFORM_FEE_*.
 */
import type { Config } from '../shared/config.js';
import type { CompanyRow } from './repository.js';

/** Reais with two decimals ("12.34") as integer cents. */
const cents = (decimal: string): number => Math.round(Number.parseFloat(decimal) * 100);

export interface PlatformFeeRule {
  /** Percent of the amount, two decimals ("4.99"). */
  percent: string;
  /** Reais, two decimals. */
  fixed: string;
}

/** The rule a company's charges follow: each part the company's where set, else the deployment's. */
export function platformFeeRule(
  config: Pick<Config, 'platformFee'>,
  company: Pick<CompanyRow, 'platformFeePercent' | 'platformFeeFixed'> | undefined,
): PlatformFeeRule {
  return {
    percent: company?.platformFeePercent ?? config.platformFee.percent,
    fixed: company?.platformFeeFixed ?? config.platformFee.fixed,
  };
}

/**
 * The fee on `amount` (reais, two decimals): the percentage rounded to the cent, plus the fixed part,
 * leaving the seller at least a cent (a fee is a part of the payment, so it stays below its amount).
 * Null when it comes to zero: nothing is sent to the PSP then.
 */
export function platformFeeOf(rule: PlatformFeeRule, amount: string): string | null {
  const amountCents = cents(amount);
  // Percent with two decimals as an integer (4.99 → 499): cents × 499 / 10 000, half up.
  const share = Math.round((amountCents * cents(rule.percent)) / 10_000);
  const fee = Math.min(amountCents - 1, share + cents(rule.fixed));
  return fee > 0 ? (fee / 100).toFixed(2) : null;
}
