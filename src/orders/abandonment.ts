import { jobIds } from '../../queues/index.js';
import type { AppContext } from '../shared/context.js';
import type { Db } from '../shared/db/index.js';
import { abandonOrderIfDue, overduePendingOrders, type OrderRow } from './repository.js';
import { recordOrderEvent } from './service.js';

/**
 * Schedules the check of a pending order at its deadline (created_at + ORDER_ABANDON_AFTER_SECONDS).
 * Never throws: the sweep abandons overdue orders whose job was lost.
 */
export function scheduleAbandonment(
  ctx: Pick<AppContext, 'producers' | 'logger' | 'config'>,
  order: Pick<OrderRow, 'code' | 'createdAt'>,
): void {
  const deadline = order.createdAt.getTime() + ctx.config.orderAbandonAfterSeconds * 1000;
  ctx.producers
    .add(
      'orderAbandonment',
      jobIds.orderAbandonment(order.code),
      { orderCode: order.code },
      { delay: Math.max(0, deadline - Date.now()) },
    )
    .catch((err: unknown) => {
      ctx.logger.warn(
        { err, orderCode: order.code },
        'could not schedule the abandonment check; the sweep will do it',
      );
    });
}

/**
 * Abandons an order still pending at `asOf` past its deadline, with `order.abandoned`, in one
 * transaction. Idempotent: an order paid, failed or already abandoned meanwhile, or not yet due, is
 * left alone. Returns the event id to publish.
 */
export async function abandonDueOrder(
  db: Db,
  afterSeconds: number,
  orderCode: string,
  asOf: Date = new Date(),
): Promise<string | undefined> {
  return db.transaction(async (tx) => {
    const order = await abandonOrderIfDue(tx, orderCode, afterSeconds, asOf);
    return order ? recordOrderEvent(tx, 'order.abandoned', order) : undefined;
  });
}

/** The safety net of the abandonment jobs: pending orders overdue by more than `graceMs`. Returns event ids. */
export async function abandonOverdueOrders(
  ctx: Pick<AppContext, 'db' | 'config'>,
  graceMs: number,
  batch: number,
): Promise<string[]> {
  const after = ctx.config.orderAbandonAfterSeconds;
  const eventIds: string[] = [];
  for (const code of await overduePendingOrders(ctx.db, after, graceMs, batch)) {
    const eventId = await abandonDueOrder(ctx.db, after, code);
    if (eventId) eventIds.push(eventId);
  }
  return eventIds;
}
