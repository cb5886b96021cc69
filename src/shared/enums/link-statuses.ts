/** PaymentLink.status: `active`, `paid`, `expired`, `canceled` (docs/api.md, "Payment link states"). */
export const LINK_STATUSES = ['active', 'paid', 'expired', 'canceled'] as const;
export type LinkStatus = (typeof LINK_STATUSES)[number];
