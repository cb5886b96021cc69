/**
 * The event kinds the service emits (spec 6, decisions "Events and webhooks"): one module, so the
 * panel API (validation, the event type list) and the event engine (routing) agree.
 */

/** The seven kinds of the panel list (spec section 6), in its order, with their labels. */
export const PANEL_EVENT_KINDS = [
  { value: 'order.paid', label: 'paid order' },
  { value: 'order.refunded', label: 'refunded order' },
  { value: 'order.created', label: 'created order' },
  { value: 'order.expired', label: 'expired order' },
  { value: 'order.failed', label: 'failed order' },
  { value: 'order.abandoned', label: 'abandoned cart' },
  { value: 'lead.created', label: 'lead created' },
] as const;

/** Subscribable through the API but absent from the panel list (emitted by simulate `failed`). */
export const API_ONLY_EVENT_KINDS = ['order.payment_declined'] as const;

/** Every kind an integration may list in `events`. */
export const EVENT_KINDS = [...PANEL_EVENT_KINDS.map((k) => k.value), ...API_ONLY_EVENT_KINDS] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export const isEventKind = (value: string): value is EventKind =>
  (EVENT_KINDS as readonly string[]).includes(value);

/** Kinds delivered without regard to the product filter. */
export const PRODUCTLESS_EVENT_KINDS: readonly EventKind[] = ['lead.created'];

/**
 * The subscriptions that receive an event of `kind`: its own kind, plus `order.failed` for a declined
 * payment (decisions: "also delivered to integrations subscribed to order.failed").
 */
export const subscribedKindsFor = (kind: string): string[] =>
  kind === 'order.payment_declined' ? ['order.payment_declined', 'order.failed'] : [kind];
