/** Event kinds this service emits or accepts in subscriptions (spec section 6). */
export const EVENT_KINDS = [
  'order.paid',
  'order.refunded',
  'order.created',
  'order.expired',
  'order.failed',
  'order.abandoned',
  'lead.created',
  'order.payment_declined',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** Integration types this service dispatches over HTTP (decisions, "Webhook-kind types"). */
export const WEBHOOK_KIND_TYPES = ['webhook', 'automation_webhook', 'notification_topic', 'database_webhook'] as const;

/**
 * The subscriptions that receive a kind: `order.payment_declined` also reaches integrations
 * subscribed to `order.failed` (it is not in the panel list, so most receivers only know that one).
 */
export function subscriptionsFor(kind: string): string[] {
  return kind === 'order.payment_declined' ? [kind, 'order.failed'] : [kind];
}

/** `lead.created` ignores the product filter (decisions, "Routing"). */
export const ignoresProductFilter = (kind: string): boolean => kind === 'lead.created';
