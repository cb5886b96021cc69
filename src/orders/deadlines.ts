/**
 * When an unpaid order is given up (`abandoned`): a Pix when its code expires; a boleto three days
 * after its due date, the time a bank takes to clear a boleto paid on the due date; anything else
 * ORDER_ABANDON_AFTER_SECONDS after the checkout.
 */
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
