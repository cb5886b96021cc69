import { jobIds } from '../../queues/index.js';
import type { AppContext } from '../shared/context.js';
import type { Db } from '../shared/db/index.js';
import { abandonDeadline } from './deadlines.js';
import { lockOrderByCode, markOrderAbandoned, overduePendingOrders, type OrderRow } from './repository.js';
import { recordOrderEvent } from './service.js';

/**
 * Schedules the check of a pending order at its deadline (its Pix expiry, its boleto's due date plus
 * clearing, else created_at + ORDER_ABANDON_AFTER_SECONDS). Never throws: the sweep abandons overdue
 * orders whose job was lost.
 */
export function scheduleAbandonment(
  ctx: Pick<AppContext, 'producers' | 'logger' | 'config'>,
  order: Pick<OrderRow, 'code' | 'createdAt' | 'abandonAt'>,
): void {
  const deadline = abandonDeadline(order, ctx.config.orderAbandonAfterSeconds).getTime();
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

/** What one abandonment check did: abandoned (with its event), not yet due, or nothing to do. */
export type AbandonmentCheck = { eventId: string } | { dueAt: Date } | undefined;

/**
 * Abandons an order still pending at `asOf` past its deadline, with `order.abandoned`, in one
 * transaction. Idempotent: an order paid, failed or already abandoned meanwhile is left alone. An
 * order not yet due (a delayed job can fire a moment early: the deadline was computed from a
 * millisecond timestamp, on another host's clock) answers when it will be.
 */
export async function abandonDueOrder(
  db: Db,
  afterSeconds: number,
  orderCode: string,
  asOf: Date = new Date(),
): Promise<AbandonmentCheck> {
  return db.transaction(async (tx) => {
    const order = await lockOrderByCode(tx, orderCode);
    if (!order || order.status !== 'pending') return undefined;
    const dueAt = abandonDeadline(order, afterSeconds);
    if (dueAt > asOf) return { dueAt };
    const abandoned = await markOrderAbandoned(tx, order.id);
    return abandoned ? { eventId: await recordOrderEvent(tx, 'order.abandoned', abandoned) } : undefined;
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
    const check = await abandonDueOrder(ctx.db, after, code);
    if (check && 'eventId' in check) eventIds.push(check.eventId);
  }
  return eventIds;
}
