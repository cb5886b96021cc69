import {
  isAccessEventKind,
  isIntegrationEventKind,
  isInvoiceEventKind,
  isSubscriptionEventKind,
  type EventKind,
  type OrderEventKind,
  type SubscriptionEventKind,
} from './kinds.js';
import { webhookTracking } from '../shared/tracking.js';

const EXAMPLE_ORDER_STATUS: Record<OrderEventKind, string> = {
  'order.created': 'pending',
  'order.paid': 'paid',
  'order.failed': 'failed',
  'order.refunded': 'refunded',
  'order.abandoned': 'abandoned',
  'order.expired': 'expired',
  'order.payment_declined': 'failed',
  'order.chargeback': 'charged_back',
};

const EXAMPLE_SUBSCRIPTION_STATUS: Record<SubscriptionEventKind, string> = {
  'subscription.created': 'active',
  'subscription.renewed': 'active',
  'subscription.past_due': 'past_due',
  'subscription.canceled': 'canceled',
};

/** The panel's subscription object as a subscription event carries it, with example values. */
function exampleSubscription(kind: SubscriptionEventKind, now: Date): Record<string, unknown> {
  const canceled = kind === 'subscription.canceled';
  return {
    object: 'subscription',
    id: 1,
    status: EXAMPLE_SUBSCRIPTION_STATUS[kind],
    livemode: false,
    plan_code: 'pl_sample0000',
    billing_cycle: 'monthly',
    current_period_end: new Date(now.getTime() + 30 * 86_400_000).toISOString(),
    canceled_at: canceled ? now.toISOString() : null,
    cancel_at_period_end: false,
    cancel_reason: canceled ? 'requested' : null,
    created_at: now.toISOString(),
  };
}

/** An order's service invoice as the invoice events carry it (docs/invoices.md). */
function exampleInvoice(kind: 'invoice.issued' | 'invoice.failed' | 'invoice.canceled') {
  const issued = kind !== 'invoice.failed';
  return {
    status: kind === 'invoice.issued' ? 'issued' : kind === 'invoice.failed' ? 'failed' : 'canceled',
    number: issued ? '1001' : null,
    pdf_url: issued ? 'https://nfse.example.com/danfse/1001.pdf' : null,
    xml_url: issued ? 'https://nfse.example.com/xml/1001.xml' : null,
    message: kind === 'invoice.failed' ? 'E145: Regime Especial de Tributação ausente/inválido.' : null,
  };
}

/** A valid static BR Code of R$ 10,00 (an example key and txid; its CRC checks). */
const EXAMPLE_PIX =
  '00020126580014br.gov.bcb.pix0136123e4567-e89b-42d3-a456-426614174000520400005303986540510.00' +
  '5802BR5914SAMPLE COMPANY6009SAO PAULO6229052500000000000000004000800006304BBE2';

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
  const bought = {
    product: { id: productId, name: 'Sample product' },
    purchase: { tracking: webhookTracking(null, null), payment_link: null },
  };
  const common = { ...bought, offer: { code: 'of_sample0000', name: 'Sample offer', price: '10.00' } };
  const buyer = {
    name: options.buyerName ?? 'sample',
    email: 'buyer@example.com',
    phone: null,
    document: null,
  };
  if (kind === 'lead.created') return { lead: buyer, ...common };
  if (isAccessEventKind(kind))
    return {
      access: {
        product_id: productId,
        customer: { email: buyer.email, name: buyer.name },
        order_code: '00000000-0000-4000-8000-000000000000',
        subscription_id: null,
      },
    };
  if (isIntegrationEventKind(kind)) {
    return {
      integration: {
        id: 1,
        type: 'webhook',
        url_host: 'receiver.example.com',
        failure_count: kind === 'integration.disabled' ? 10 : 5,
        last_failure_at: new Date().toISOString(),
        disabled_reason: kind === 'integration.disabled' ? 'auto_disabled' : '',
      },
    };
  }
  if (isSubscriptionEventKind(kind)) {
    return {
      subscription: exampleSubscription(kind, new Date()),
      customer: buyer,
      ...bought,
      plan: { code: 'pl_sample0000', name: 'Sample plan', price: '10.00', billing_cycle: 'monthly' },
    };
  }
  const invoice = isInvoiceEventKind(kind);
  const order = {
    code: '00000000-0000-4000-8000-000000000000',
    status: invoice ? (kind === 'invoice.canceled' ? 'refunded' : 'paid') : EXAMPLE_ORDER_STATUS[kind],
    amount: '10.00',
    payment_method: 'pix',
    // Refunded and charged-back orders were paid first.
    paid_at:
      invoice || ['order.paid', 'order.refunded', 'order.chargeback'].includes(kind)
        ? new Date().toISOString()
        : null,
    installments: null,
    pix: {
      copy_paste: EXAMPLE_PIX,
      expires_at: new Date(Date.now() + 30 * 60_000).toISOString(),
    },
    boleto: null,
  };
  // A declined payment is a simulated event's; an expired link has no order.
  const simulated = options.simulated === true || kind === 'order.payment_declined';
  const exampleOrder =
    kind === 'order.expired' ? null : simulated ? { ...order, test: true, sandbox: true } : order;
  if (invoice) return { order: exampleOrder, customer: buyer, ...common, invoice: exampleInvoice(kind) };
  return { order: exampleOrder, customer: buyer, ...common };
}
