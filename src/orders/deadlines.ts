/**
 * When an unpaid order is given up (`abandoned`): a Pix when its code expires; a boleto three days
 * after its due date, the time a bank takes to clear a boleto paid on the due date; anything else
 * ORDER_ABANDON_AFTER_SECONDS after the checkout.
 */
import { jobIds } from '../../queues/index.js';
import type { AppContext } from '../shared/context.js';
import { addDays, startOfBrazilDay } from '../shared/brazil-time.js';
import type { Charge } from '../gateways/port.js';
import type { OrderRow } from './repository.js';

/** Days a boleto paid on its due date may take to be reported paid. */
export const BOLETO_CLEARING_DAYS = 3;

/**
 * The deadline a charge's instructions set: the Pix expiry, or the end (Brasília time) of the third
 * day after the boleto's due date. Null: the default deadline applies.
 */
export function abandonAtOf(charge: Pick<Charge, 'pix' | 'boleto'>): Date | null {
  if (charge.pix) return charge.pix.expiresAt;
  if (charge.boleto) return startOfBrazilDay(addDays(charge.boleto.dueDate, BOLETO_CLEARING_DAYS + 1));
  return null;
}

/** When a still-pending order is abandoned. */
export const abandonDeadline = (
  order: Pick<OrderRow, 'abandonAt' | 'createdAt'>,
  defaultAfterSeconds: number,
): Date => order.abandonAt ?? new Date(order.createdAt.getTime() + defaultAfterSeconds * 1000);

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
