/** Subscription.status: `active` renews every billing cycle; `canceled` (in the panel) never renews again. */
export const SUBSCRIPTION_STATUSES = ['active', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
