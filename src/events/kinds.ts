import { subscribedKindsFor } from '../integrations/kinds.js';

export { WEBHOOK_KIND_TYPES, type EventKind } from '../integrations/kinds.js';

/** The subscriptions that receive a kind (`order.payment_declined` also reaches `order.failed`). */
export const subscriptionsFor = subscribedKindsFor;
