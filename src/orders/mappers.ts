import { formatMoney } from '../shared/money.js';
import { campaignWire } from '../shared/tracking.js';
import type { OrderCustomer } from '../shared/db/schema.js';
import type { PaymentDetails } from '../payment-links/purchase-data.js';
import type { OrderRow, PanelOrderRow } from './repository.js';
import type { PanelSubscriptionRow } from './subscription-repository.js';

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

const NO_CUSTOMER: OrderCustomer = { name: null, email: null, phone: null, document: null };

/** Cents of a numeric(12,2) string (null: 0), exact. */
const centsOf = (value: string | null): number =>
  value === null ? 0 : Math.round(Number.parseFloat(value) * 100);

/** An order's fees and what is left of its amount, as the panel, the dashboard and the CSV show them. */
export function orderFees(order: Pick<OrderRow, 'amount' | 'platformFee' | 'gatewayFee'>) {
  const platform = centsOf(order.platformFee);
  const gateway = centsOf(order.gatewayFee);
  return {
    fees: { platform: (platform / 100).toFixed(2), gateway: (gateway / 100).toFixed(2) },
    net_amount: ((centsOf(order.amount) - platform - gateway) / 100).toFixed(2),
  };
}

/** An order's instalments and payment instructions, as events and the panel show them. */
export function paymentDetails(order: OrderRow): PaymentDetails {
  return {
    installments: order.installments,
    pix:
      order.pixCopyPaste !== null && order.pixExpiresAt !== null
        ? { copy_paste: order.pixCopyPaste, expires_at: order.pixExpiresAt.toISOString() }
        : null,
    boleto:
      order.boletoDigitableLine !== null &&
      order.boletoBarcode !== null &&
      order.boletoDueDate !== null &&
      order.boletoUrl !== null
        ? {
            digitable_line: order.boletoDigitableLine,
            barcode: order.boletoBarcode,
            due_date: order.boletoDueDate,
            url: order.boletoUrl,
          }
        : null,
  };
}

/** One e-mail sent (or to be sent) to the buyer about an order, as the panel lists it. */
export interface OrderEmailWire {
  kind: string;
  to: string;
  state: string;
  sent_at: string | null;
}

/**
 * The e-mails of some orders of a company, by order code: given to the routes by the surface that
 * mounts them (the e-mail folder sits above the orders in the layer order).
 */
export type OrderEmailsOf = (companyId: number, codes: string[]) => Promise<Map<string, OrderEmailWire[]>>;

/** An order's service invoice as the panel shows it (docs/invoices.md). */
export interface OrderInvoiceWire {
  status: string;
  number: string | null;
  pdf_url: string | null;
  xml_url: string | null;
  message: string | null;
}

/** The invoices of some orders of a company, by order code (the invoices folder sits above the orders). */
export type OrderInvoicesOf = (companyId: number, codes: string[]) => Promise<Map<string, OrderInvoiceWire>>;

/** The panel's Order object (docs/api.md, "Orders in the panel"). */
export function toPanelOrderWire(
  { order, productName, offerCode, planCode }: PanelOrderRow,
  emails: OrderEmailWire[] = [],
  invoice: OrderInvoiceWire | null = null,
) {
  return {
    object: 'order' as const,
    code: order.code,
    status: order.status,
    amount: formatMoney(order.amount),
    ...orderFees(order),
    payment_method: order.paymentMethod,
    livemode: order.livemode,
    link_id: order.paymentLinkId,
    subscription_id: order.subscriptionId,
    // Orders made before the checkout stored its buyer (0401) have no customer of their own.
    customer: { ...NO_CUSTOMER, ...order.customer },
    product: { id: order.productId, name: productName },
    offer_code: offerCode,
    plan_code: planCode,
    created_at: order.createdAt.toISOString(),
    paid_at: iso(order.paidAt),
    refunded_at: iso(order.refundedAt),
    refund_requested_by: order.refundRequestedBy,
    refund_reason: order.refundReason,
    ...paymentDetails(order),
    tracking: campaignWire(order.tracking),
    emails,
    invoice,
  };
}

/** The panel's Subscription object, also `data.subscription` of the subscription events. */
export function toSubscriptionWire({ subscription, planCode, billingCycle }: PanelSubscriptionRow) {
  return {
    object: 'subscription' as const,
    id: subscription.id,
    status: subscription.status,
    livemode: subscription.livemode,
    plan_code: planCode,
    billing_cycle: billingCycle,
    current_period_end: subscription.currentPeriodEnd.toISOString(),
    canceled_at: iso(subscription.canceledAt),
    cancel_at_period_end: subscription.cancelAtPeriodEnd,
    cancel_reason: subscription.cancelReason,
    created_at: subscription.createdAt.toISOString(),
  };
}
