import { and, asc, eq, sql } from 'drizzle-orm';
import { schema, type Executor } from '../shared/db/index.js';
import type { PaymentMethod } from '../shared/enums/payment-methods.js';

const { orders } = schema;

export type OrderRow = typeof orders.$inferSelect;
export type NewOrderRow = typeof orders.$inferInsert;

export async function insertOrder(tx: Executor, values: NewOrderRow): Promise<OrderRow> {
  const [row] = await tx.insert(orders).values(values).returning();
  if (!row) throw new Error('insert into orders returned no row');
  return row;
}

/** The order with this code, locked until the transaction ends (callbacks for one order queue up). */
export async function lockOrderByCode(tx: Executor, code: string): Promise<OrderRow | undefined> {
  const [row] = await tx.select().from(orders).where(eq(orders.code, code)).for('update');
  return row;
}

/** pending → paid, one conditional UPDATE: a repeated or racing confirmation matches nothing. */
export async function markOrderPaid(
  tx: Executor,
  orderId: number,
  payment: { paymentMethod: PaymentMethod; paidAt: Date; subscriptionId: number | null },
): Promise<OrderRow | undefined> {
  const [row] = await tx
    .update(orders)
    .set({
      status: 'paid',
      paymentMethod: payment.paymentMethod,
      paidAt: payment.paidAt,
      subscriptionId: payment.subscriptionId ?? sql`${orders.subscriptionId}`,
    })
    .where(and(eq(orders.id, orderId), eq(orders.status, 'pending')))
    .returning();
  return row;
}

/** The order that started a subscription (its buyer and payment method carry over to renewals). */
export async function firstOrderOfSubscription(
  tx: Executor,
  subscriptionId: number,
): Promise<OrderRow | undefined> {
  const [row] = await tx
    .select()
    .from(orders)
    .where(eq(orders.subscriptionId, subscriptionId))
    .orderBy(asc(orders.id))
    .limit(1);
  return row;
}
