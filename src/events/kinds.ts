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
  // Service invoices (docs/invoices.md).
  { value: 'invoice.issued', label: 'invoice issued' },
  { value: 'invoice.failed', label: 'invoice failed' },
  { value: 'invoice.canceled', label: 'invoice canceled' },
  // A buyer's access to a product's content (a builtin members area).
  { value: 'access.granted', label: 'access granted' },
  { value: 'access.revoked', label: 'access revoked' },
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

/**
 * When each kind is sent: the description of its envelope and of its entry under `webhooks` in the
 * payments OpenAPI document.
 */
export const SENT_WHEN: Record<EventKind, string> = {
  'order.paid':
    'The gateway confirmed a payment (also a late confirmation of an abandoned order), and every paid subscription ' +
    'renewal or retry (`external_reference` and `payment_link` null; `subscription.renewed` follows). Simulate `paid` ' +
    'sends a test one, and `renewal_paid` a test renewal.',
  'order.refunded': 'A paid order was refunded, in the panel or by the gateway. The link keeps its status.',
  'order.created':
    'A buyer submitted the checkout: a pending order, with what the buyer pays with (`pix` or `boleto` ' +
    'instructions, card `installments`), so the seller can send it on.',
  'order.expired':
    'A link expired unpaid (`order` null: no order exists). Simulate `expired` sends a test one with a synthetic order.',
  'order.failed':
    'The gateway reported a failed payment (the link stays payable), or a subscription renewal charge (or its retry) ' +
    'failed. Integrations subscribed to it also receive `order.payment_declined`.',
  'order.abandoned':
    'An order was still pending at its deadline: a Pix when its code expired, a boleto 3 days after its due date, ' +
    'anything else ORDER_ABANDON_AFTER_SECONDS after the checkout.',
  'lead.created':
    'The checkout form was submitted with an e-mail the company had not seen in that mode. Not filtered by product.',
  'order.payment_declined':
    'Simulate `failed` on a test link (test events only). Also delivered to integrations subscribed to `order.failed`.',
  'integration.failing':
    'Another integration of the company reached half of BREAKER_THRESHOLD consecutive failed attempts (once per ' +
    'streak of failures). Never sent to the integration it describes. Not filtered by product.',
  'integration.disabled':
    'The circuit breaker disabled another integration of the company (`disabled_reason: auto_disabled`). Never ' +
    'sent to the integration it describes. Not filtered by product.',
  'order.chargeback':
    'The gateway reported a chargeback of a paid order (now `charged_back`); its subscription, if any, is canceled ' +
    '(`subscription.canceled` follows, `cancel_reason: chargeback`).',
  'subscription.created':
    'The first purchase of a plan was paid (the gateway, or simulate `paid` on a test plan link): the subscription ' +
    "is `active`. It follows that purchase's `order.paid`.",
  'subscription.renewed':
    'A renewal charge, or a retry of a failed one, was paid: the subscription is `active` in its next period. It ' +
    "follows the renewal's `order.paid`.",
  'subscription.past_due':
    'A renewal charge failed (after its `order.failed`): the subscription is `past_due` and the charge is retried on ' +
    'RENEWAL_RETRY_SCHEDULE. Sent once per failed renewal, not for each failed retry.',
  'invoice.issued':
    "The order's service invoice (NFS-e) was authorised: `invoice` carries its number and PDF and XML addresses. " +
    'Live orders only.',
  'invoice.failed':
    "The order's service invoice was refused (the provider's or the prefecture's message is `invoice.message`); a " +
    'retry after a settings fix may issue it later. Live orders only.',
  'invoice.canceled':
    "The order's service invoice was canceled after a refund or chargeback (or the order was refunded before it " +
    'was issued). Live orders only.',
  'subscription.canceled':
    'The subscription ended: a cancel (at once, or at `current_period_end` when it was asked for then), the last ' +
    'retry of a renewal failed, or a chargeback. `cancel_reason` says which (`requested`, `payment_failed`, ' +
    '`chargeback`).',
  'access.granted':
    'A buyer gained access to the content of a product linked to an active `members_area` integration (builtin ' +
    'provider): its order was paid (a renewal of a subscription that still gives access grants nothing new). ' +
    '`data.access` names the product, the buyer, the order and the subscription.',
  'access.revoked':
    'A buyer lost access to such a product: its order was refunded or charged back, or its subscription ended ' +
    '(canceled at once, at the end of a period canceled at its end, or after the last failed retry), and no ' +
    'other paid order or running subscription of the same buyer still gives access.',
};

/** The kinds about an order's service invoice: an order event's `data` with its `invoice`. */
export const INVOICE_EVENT_KINDS = ['invoice.issued', 'invoice.failed', 'invoice.canceled'] as const;
export type InvoiceEventKind = (typeof INVOICE_EVENT_KINDS)[number];
export const isInvoiceEventKind = (kind: string): kind is InvoiceEventKind =>
  (INVOICE_EVENT_KINDS as readonly string[]).includes(kind);
/** Kinds about a buyer's access to a product's content (`data.access`). */
export const ACCESS_EVENT_KINDS = [
  'access.granted',
  'access.revoked',
] as const satisfies readonly EventKind[];
export type AccessEventKind = (typeof ACCESS_EVENT_KINDS)[number];

export const isAccessEventKind = (kind: string): kind is AccessEventKind =>
  (ACCESS_EVENT_KINDS as readonly string[]).includes(kind);

/** The kinds whose `data` describes an order (with its customer, product and purchase). */
export type OrderEventKind = Exclude<
  EventKind,
  'lead.created' | IntegrationEventKind | SubscriptionEventKind | InvoiceEventKind | AccessEventKind
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
