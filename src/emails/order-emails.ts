import type { OrderEmailsOf, OrderEmailWire } from '../orders/mappers.js';
import type { Executor } from '../shared/db/index.js';
import { toOrderEmailWire } from './mappers.js';
import { messagesOfOrders } from './repository.js';

/** The e-mails of a company's orders, by order code (the panel's orders, the dashboard's order page). */
export function orderEmailsOf(db: Executor): OrderEmailsOf {
  return async (companyId, codes) => {
    const byOrder = new Map<string, OrderEmailWire[]>();
    for (const message of await messagesOfOrders(db, companyId, codes)) {
      if (message.orderCode === null) continue;
      byOrder.set(message.orderCode, [...(byOrder.get(message.orderCode) ?? []), toOrderEmailWire(message)]);
    }
    return byOrder;
  };
}
