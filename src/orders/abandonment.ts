import type { AppContext } from '../shared/context.js';
import { abandonDeadline } from './deadlines.js';
import { renewalOrderFailed, scheduleNext } from './renewals.js';
import { lockOrderByCode, markOrderAbandoned, overduePendingOrders } from './repository.js';
import { recordOrderEvent } from './service.js';

export { scheduleAbandonment } from './deadlines.js';

type Deps = Pick<AppContext, 'db' | 'config' | 'producers' | 'logger'>;

/** What one abandonment check did: abandoned (with its events), not yet due, or nothing to do. */
export type AbandonmentCheck = { eventIds: string[] } | { dueAt: Date } | undefined;

/**
 * Abandons an order still pending at `asOf` past its deadline, with `order.abandoned`, in one
 * transaction. Idempotent: an order paid, failed or already abandoned meanwhile is left alone. An
 * order not yet due (a delayed job can fire a moment early: the deadline was computed from a
 * millisecond timestamp, on another host's clock) answers when it will be. A renewal order charged
 * through a PSP left unpaid is its subscription's failed charge (past_due, a retry, or the end).
 */
export async function abandonDueOrder(
  ctx: Deps,
  orderCode: string,
  asOf: Date = new Date(),
): Promise<AbandonmentCheck> {
  const done = await ctx.db.transaction(async (tx) => {
    const order = await lockOrderByCode(tx, orderCode);
    if (!order || order.status !== 'pending') return undefined;
    const dueAt = abandonDeadline(order, ctx.config.orderAbandonAfterSeconds);
    if (dueAt > asOf) return { dueAt, eventIds: undefined, next: undefined };
    const abandoned = await markOrderAbandoned(tx, order.id);
    if (!abandoned) return undefined;
    if (abandoned.subscriptionId !== null) {
      const failed = await renewalOrderFailed(
        tx,
        ctx.config.renewalRetryScheduleSeconds,
        abandoned,
        'order.abandoned',
      );
      return { dueAt, eventIds: failed.events.map((e) => e.id), next: failed };
    }
    return { dueAt, eventIds: [await recordOrderEvent(tx, 'order.abandoned', abandoned)], next: undefined };
  });
  if (!done) return undefined;
  if (done.eventIds === undefined) return { dueAt: done.dueAt };
  if (done.next) scheduleNext(ctx, done.next);
  return { eventIds: done.eventIds };
}

/** The safety net of the abandonment jobs: pending orders overdue by more than `graceMs`. Returns event ids. */
export async function abandonOverdueOrders(ctx: Deps, graceMs: number, batch: number): Promise<string[]> {
  const after = ctx.config.orderAbandonAfterSeconds;
  const eventIds: string[] = [];
  for (const code of await overduePendingOrders(ctx.db, after, graceMs, batch)) {
    const check = await abandonDueOrder(ctx, code);
    if (check && 'eventIds' in check) eventIds.push(...check.eventIds);
  }
  return eventIds;
}
