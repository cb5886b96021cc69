import { PRODUCTLESS_EVENT_KINDS, subscribedKindsFor, type EventKind } from '../integrations/kinds.js';

export { WEBHOOK_KIND_TYPES, type EventKind } from '../integrations/kinds.js';

/** The subscriptions that receive a kind (`order.payment_declined` also reaches `order.failed`). */
export const subscriptionsFor = subscribedKindsFor;

/** `lead.created` ignores the product filter (decisions, "Routing"). */
export const ignoresProductFilter = (kind: string): boolean => (PRODUCTLESS_EVENT_KINDS as readonly string[]).includes(kind as EventKind);
