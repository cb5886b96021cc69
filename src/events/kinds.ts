/**
 * The event kinds the service emits: one module, so the
 * panel API (validation, the event type list) and the event engine (routing) agree.
 */

/** The kinds of the panel list with their labels: the seven original kinds first, in their order. */
export const PANEL_EVENT_KINDS = [
  { value: 'order.paid', label: 'paid order' },
  { value: 'order.refunded', label: 'refunded order' },
  { value: 'order.created', label: 'created order' },
  { value: 'order.expired', label: 'expired order' },
  { value: 'order.failed', label: 'failed order' },
  { value: 'order.abandoned', label: 'abandoned cart' },
  { value: 'lead.created', label: 'lead created' },
  // A subscription's life, and disputes.
  { value: 'order.chargeback', label: 'order chargeback' },
  { value: 'subscription.created', label: 'subscription created' },
  { value: 'subscription.renewed', label: 'subscription renewed' },
  { value: 'subscription.past_due', label: 'subscription past due' },
  { value: 'subscription.canceled', label: 'subscription canceled' },
] as const;

/**
 * Operational events about an integration's own health, offered in the panel list after the order
 * kinds. They go to the company's other integrations that subscribe, never to the one they describe.
 */
export const INTEGRATION_EVENT_KINDS = [
  { value: 'integration.failing', label: 'integration failing' },
  { value: 'integration.disabled', label: 'integration disabled' },
] as const;

/** Every kind `GET /integrations/events` offers, with its label, in the panel's order. */
export const LISTED_EVENT_KINDS = [...PANEL_EVENT_KINDS, ...INTEGRATION_EVENT_KINDS] as const;

/** Subscribable through the API but absent from the panel list (emitted by simulate `failed`). */
export const API_ONLY_EVENT_KINDS = ['order.payment_declined'] as const;

/** Every kind an integration may list in `events`. */
export const EVENT_KINDS = [...LISTED_EVENT_KINDS.map((k) => k.value), ...API_ONLY_EVENT_KINDS] as const;
export type EventKind = (typeof EVENT_KINDS)[number];
export type IntegrationEventKind = (typeof INTEGRATION_EVENT_KINDS)[number]['value'];

/** The kinds whose `data` describes an order (with its customer, product and purchase). */
export type OrderEventKind = Exclude<
  EventKind,
  'lead.created' | IntegrationEventKind | SubscriptionEventKind
>;

export const isIntegrationEventKind = (kind: string): kind is IntegrationEventKind =>
  INTEGRATION_EVENT_KINDS.some((k) => k.value === kind);

export const isEventKind = (value: string): value is EventKind =>
  (EVENT_KINDS as readonly string[]).includes(value);

/** Kinds about a subscription as a whole (their `data` carries no order). */
export const SUBSCRIPTION_EVENT_KINDS = [
  'subscription.created',
  'subscription.renewed',
  'subscription.past_due',
  'subscription.canceled',
] as const satisfies readonly EventKind[];
export type SubscriptionEventKind = (typeof SUBSCRIPTION_EVENT_KINDS)[number];

export const isSubscriptionEventKind = (kind: EventKind): kind is SubscriptionEventKind =>
  (SUBSCRIPTION_EVENT_KINDS as readonly string[]).includes(kind);

/** Kinds delivered without regard to the product filter. */
export const PRODUCTLESS_EVENT_KINDS: readonly EventKind[] = [
  'lead.created',
  ...INTEGRATION_EVENT_KINDS.map((k) => k.value),
];

/**
 * The subscriptions that receive an event of `kind`: its own kind, plus `order.failed` for a declined
 * payment (`order.payment_declined` also reaches integrations subscribed to `order.failed`).
 */
export const subscribedKindsFor = (kind: string): string[] =>
  kind === 'order.payment_declined' ? ['order.payment_declined', 'order.failed'] : [kind];
