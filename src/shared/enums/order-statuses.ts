/**
 * Order.status (docs/api.md, "Order states"): created `pending` at the pay step; the gateway makes it
 * `paid` or `failed`; a refund makes a paid order `refunded`; a pending order past its deadline is
 * `abandoned` (and still becomes `paid` if the gateway confirms late); a chargeback reported by the
 * gateway makes a paid order `charged_back`.
 */
export const ORDER_STATUSES = ['pending', 'paid', 'failed', 'refunded', 'abandoned', 'charged_back'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
