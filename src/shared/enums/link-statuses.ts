/** PaymentLink.status (spec 3.1). */
export const LINK_STATUSES = ['active', 'paid', 'expired', 'canceled'] as const;
export type LinkStatus = (typeof LINK_STATUSES)[number];
