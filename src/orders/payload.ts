import type { Executor } from '../shared/db/index.js';
import type { schema } from '../shared/db/index.js';
import { formatMoney } from '../shared/money.js';
import { purchaseData, type OrderFacts, type PurchaseSource } from '../payment-links/purchase-data.js';
import type { LinkRow } from '../payment-links/repository.js';
import type { OrderRow } from './repository.js';

type SubscriptionRow = typeof schema.subscriptions.$inferSelect;

export function orderFacts(order: OrderRow): OrderFacts {
  return {
    code: order.code,
    status: order.status,
    amount: formatMoney(order.amount),
    payment_method: order.paymentMethod,
    paid_at: order.paidAt ? order.paidAt.toISOString() : null,
  };
}

/**
 * `data` of a real order event, built by the same builder as simulated and expiry events so every
 * order event has one shape. The buyer is the one who paid (as entered at checkout, else the link's
 * prefill); plans carry their subscription; an order not made through a link (a renewal, a checkout
 * opened without `plink`) has null `external_reference` and `payment_link`.
 */
export async function orderEventData(
  tx: Executor,
  order: OrderRow,
  link: LinkRow | null,
  subscription: SubscriptionRow | null,
): Promise<{ productId: number; data: Record<string, unknown> }> {
  const source: PurchaseSource = link ?? {
    id: '',
    type: order.planId !== null ? 'plan' : 'offer',
    productId: order.productId,
    offerId: order.offerId,
    planId: order.planId,
    customerName: null,
    customerEmail: null,
    customerPhone: null,
    customerDocument: null,
    externalReference: null,
    metadata: {},
  };
  const { productId, data } = await purchaseData(tx, source, orderFacts(order));
  if (order.customer) data.customer = { ...order.customer };
  if (source.type === 'plan') {
    data.subscription = subscription
      ? {
          id: subscription.id,
          status: subscription.status,
          current_period_end: subscription.currentPeriodEnd.toISOString(),
        }
      : null;
  }
  if (!link) data.purchase = { tracking: { external_reference: null }, payment_link: null };
  return { productId, data };
}
