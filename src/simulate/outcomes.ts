import type { EventKind } from '../events/kinds.js';
import type { ChargeOutcome } from '../shared/enums/subscription-statuses.js';

/** The outcomes of a test link's own payment (the simulation page's buttons), and the event each dispatches. */
export const OUTCOMES = ['paid', 'failed', 'expired'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const OUTCOME_EVENTS: Record<Outcome, EventKind> = {
  paid: 'order.paid',
  failed: 'order.payment_declined',
  expired: 'order.expired',
};

/**
 * Outcomes of a paid test plan link: its subscription's next charge (the renewal, or the retry of a
 * failed one) runs now, with this answer from the gateway.
 */
export const RENEWAL_OUTCOMES = ['renewal_paid', 'renewal_failed'] as const;
export type RenewalOutcome = (typeof RENEWAL_OUTCOMES)[number];

export const RENEWAL_CHARGES: Record<RenewalOutcome, ChargeOutcome> = {
  renewal_paid: 'paid',
  renewal_failed: 'failed',
};

/** Everything `POST /v1/payment-links/{id}/simulate` accepts. */
export const SIMULATE_OUTCOMES = [...OUTCOMES, ...RENEWAL_OUTCOMES] as const;
export type SimulateOutcome = (typeof SIMULATE_OUTCOMES)[number];

export const isRenewalOutcome = (outcome: SimulateOutcome): outcome is RenewalOutcome =>
  (RENEWAL_OUTCOMES as readonly string[]).includes(outcome);

/** Every kind a simulation can dispatch first (a renewal reaching a period end that cancels: `subscription.canceled`). */
export const FIRST_SIMULATED_EVENTS: EventKind[] = [
  ...new Set<EventKind>([...Object.values(OUTCOME_EVENTS), 'order.failed', 'subscription.canceled']),
];
