import type { EventKind } from './kinds.js';

const EXAMPLE_ORDER_STATUS: Record<Exclude<EventKind, 'lead.created'>, string> = {
  'order.created': 'pending',
  'order.paid': 'paid',
  'order.failed': 'failed',
  'order.refunded': 'refunded',
  'order.abandoned': 'abandoned',
  'order.expired': 'expired',
  'order.payment_declined': 'failed',
};

export interface ExampleOptions {
  productId?: number | null;
  buyerName?: string;
  /** A synthetic order marked as simulated (`test` and `sandbox`), as a test send carries. */
  simulated?: boolean;
}

/**
 * A `data` of the documented shape of `kind` (the OpenAPI `webhooks` schema), with example values:
 * what a test send delivers, and what the engine's tests emit when the state change behind an event
 * is not what they test.
 */
export function exampleEventData(kind: EventKind, options: ExampleOptions = {}): Record<string, unknown> {
  const productId = options.productId ?? 1;
  const common = {
    product: { id: productId, name: 'Sample product' },
    offer: { code: 'of_sample0000', name: 'Sample offer', price: '10.00' },
    purchase: { tracking: { external_reference: null }, payment_link: null },
  };
  const buyer = {
    name: options.buyerName ?? 'sample',
    email: 'buyer@example.com',
    phone: null,
    document: null,
  };
  if (kind === 'lead.created') return { lead: buyer, ...common };
  const order = {
    code: '00000000-0000-4000-8000-000000000000',
    status: EXAMPLE_ORDER_STATUS[kind],
    amount: '10.00',
    payment_method: 'pix',
    paid_at: kind === 'order.paid' || kind === 'order.refunded' ? new Date().toISOString() : null,
  };
  // A declined payment is a simulated event's; an expired link has no order.
  const simulated = options.simulated === true || kind === 'order.payment_declined';
  const exampleOrder =
    kind === 'order.expired' ? null : simulated ? { ...order, test: true, sandbox: true } : order;
  return { order: exampleOrder, customer: buyer, ...common };
}
