import type { EventKind, SubscriptionEventKind } from '../events/kinds.js';
import { recordEvent } from '../events/outbox.js';
import type { LinkRow } from '../payment-links/repository.js';
import type { Executor } from '../shared/db/index.js';
import { orderEventData, subscriptionEventData } from './payload.js';
import type { OrderRow } from './repository.js';
import type { SubscriptionRow } from './subscription-repository.js';

/** An event written to the outbox: its id (to publish after commit) and its kind (to report it). */
export interface Emitted {
  id: string;
  type: EventKind;
}

/**
 * Records an event about `order`, with its link and subscription as the caller's transaction left
 * them. Test-mode orders (a simulated subscription's renewals) make test events, as simulations do.
 * `more`: what a kind adds to the order's `data` (an invoice event's `invoice`).
 */
export async function recordOrderEventOf(
  tx: Executor,
  type: EventKind,
  order: OrderRow,
  link: LinkRow | null,
  subscription: SubscriptionRow | null,
  more: Record<string, unknown> = {},
): Promise<Emitted> {
  const { productId, data } = await orderEventData(tx, order, link, subscription);
  const event = await recordEvent(tx, {
    companyId: order.companyId,
    type,
    livemode: order.livemode,
    test: !order.livemode,
    productId,
    data: { ...data, ...more },
  });
  return { id: event.id, type };
}

/** Records a `subscription.*` event about `subscription` as the caller's transaction left it. */
export async function recordSubscriptionEvent(
  tx: Executor,
  type: SubscriptionEventKind,
  subscription: SubscriptionRow,
): Promise<Emitted> {
  const { productId, data } = await subscriptionEventData(tx, subscription);
  const event = await recordEvent(tx, {
    companyId: subscription.companyId,
    type,
    livemode: subscription.livemode,
    test: !subscription.livemode,
    productId,
    data,
  });
  return { id: event.id, type };
}
