/** A webhook delivery: pending until it succeeds, fails for good, or is skipped (integration inactive). */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
