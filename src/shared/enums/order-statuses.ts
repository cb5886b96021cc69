/** Order.status: created pending at the pay step, then paid, failed or refunded (decisions, "Order lifecycle"). */
export const ORDER_STATUSES = ['pending', 'paid', 'refunded', 'failed', 'expired'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
