/** Plan.billing_cycle: the length of one subscription period. */
export const BILLING_CYCLES = ['weekly', 'monthly', 'quarterly', 'semiannual', 'yearly'] as const;
export type BillingCycle = (typeof BILLING_CYCLES)[number];
