/**
 * Subscription.status: `active` renews every billing cycle; `past_due` when a renewal's charge failed
 * and is being retried; `canceled` never renews again (`cancel_reason` says why).
 */
export const SUBSCRIPTION_STATUSES = ['active', 'past_due', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** Why a subscription was canceled: asked for (at once or at the period end), unpaid renewal, chargeback. */
export const CANCEL_REASONS = ['requested', 'payment_failed', 'chargeback'] as const;
export type CancelReason = (typeof CANCEL_REASONS)[number];

/** What the gateway answers to a renewal charge (or its retry). */
export const CHARGE_OUTCOMES = ['paid', 'failed'] as const;
export type ChargeOutcome = (typeof CHARGE_OUTCOMES)[number];
