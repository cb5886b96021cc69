/**
 * The invoice events (`invoice.issued`, `invoice.failed`, `invoice.canceled`): the order's event
 * `data` as every order event carries it, plus `invoice`, recorded in the transaction that changed
 * the invoice (a state change and its event commit together).
 */
import type { InvoiceEventKind } from '../events/kinds.js';
import { recordOrderEventOf } from '../orders/order-events.js';
import { findOrderByCode } from '../orders/repository.js';
import { findSubscription } from '../orders/subscription-repository.js';
import { findLinkById } from '../payment-links/repository.js';
import type { Executor } from '../shared/db/index.js';
import { toOrderInvoiceWire } from './payload.js';
import type { InvoiceRow } from './repository.js';

export async function recordInvoiceEvent(
  tx: Executor,
  type: InvoiceEventKind,
  invoice: InvoiceRow,
): Promise<string> {
  const order = await findOrderByCode(tx, invoice.orderCode);
  if (!order) throw new Error(`the order of invoice ${invoice.id} is missing`);
  const link = order.paymentLinkId ? ((await findLinkById(tx, order.paymentLinkId))?.link ?? null) : null;
  const subscription = order.subscriptionId
    ? ((await findSubscription(tx, order.subscriptionId)) ?? null)
    : null;
  const more = { invoice: toOrderInvoiceWire(invoice) };
  return (await recordOrderEventOf(tx, type, order, link, subscription, more)).id;
}
