import type { EventKind } from '../events/kinds.js';

/** The outcomes a test link can be simulated with (spec 4.1), and the event each dispatches. */
export const OUTCOMES = ['paid', 'failed', 'expired'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const OUTCOME_EVENTS: Record<Outcome, EventKind> = {
  paid: 'order.paid',
  failed: 'order.payment_declined',
  expired: 'order.expired',
};
