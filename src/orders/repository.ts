import { and, asc, desc, eq, getTableColumns, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import { schema, type Executor } from '../shared/db/index.js';
import { insertedRow } from '../shared/db/inserted.js';
import type { OrderStatus } from '../shared/enums/order-statuses.js';
import type { PaymentMethod } from '../shared/enums/payment-methods.js';

const { orders, products, offers, plans, leads } = schema;

export type OrderRow = typeof orders.$inferSelect;
export type NewOrderRow = typeof orders.$inferInsert;

export async function insertOrder(tx: Executor, values: NewOrderRow): Promise<OrderRow> {
  return insertedRow(await tx.insert(orders).values(values).returning(), 'orders');
}

/** The order with this code, locked until the transaction ends (callbacks for one order queue up). */
export async function lockOrderByCode(tx: Executor, code: string): Promise<OrderRow | undefined> {
  const [row] = await tx.select().from(orders).where(eq(orders.code, code)).for('update');
  return row;
}

/** Statuses a payment confirmation starts from: a gateway that confirms late still pays an abandoned order. */
const PAYABLE_STATUSES: OrderStatus[] = ['pending', 'abandoned'];

/** pending (or abandoned) → paid, one conditional UPDATE: a repeated or racing confirmation matches nothing. */
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
    .where(and(eq(orders.id, orderId), inArray(orders.status, PAYABLE_STATUSES)))
    .returning();
  return row;
}

/** pending → failed (the gateway reported a failed payment); conditional like every transition. */
/** Records the fees the PSP listed for the order's payment, once it says. */
export async function setOrderFees(
  db: Executor,
  code: string,
  fees: { gatewayFee: string; platformFee: string },
): Promise<void> {
  await db.update(orders).set(fees).where(eq(orders.code, code));
}

export async function markOrderFailed(tx: Executor, orderId: number): Promise<OrderRow | undefined> {
  const [row] = await tx
    .update(orders)
    .set({ status: 'failed' })
    .where(and(eq(orders.id, orderId), eq(orders.status, 'pending')))
    .returning();
  return row;
}

/** Who asked for a refund made here (a PSP's report names nobody), and the buyer's reason. */
export interface RefundRequest {
  by: 'seller' | 'buyer';
  reason: string | null;
}

/** paid → refunded, stamping `refunded_at` (and who asked, with the refund itself). */
export async function markOrderRefunded(
  tx: Executor,
  orderId: number,
  request?: RefundRequest,
): Promise<OrderRow | undefined> {
  const [row] = await tx
    .update(orders)
    .set({
      status: 'refunded',
      refundedAt: sql`clock_timestamp()`,
      ...(request ? { refundRequestedBy: request.by, refundReason: request.reason } : {}),
    })
    .where(and(eq(orders.id, orderId), eq(orders.status, 'paid')))
    .returning();
  return row;
}

/** paid → charged_back (the gateway reported a chargeback). */
export async function markOrderChargedBack(tx: Executor, orderId: number): Promise<OrderRow | undefined> {
  const [row] = await tx
    .update(orders)
    .set({ status: 'charged_back' })
    .where(and(eq(orders.id, orderId), eq(orders.status, 'paid')))
    .returning();
  return row;
}

/** pending → abandoned; a confirmation that won the row lock first leaves nothing to match. */
export async function markOrderAbandoned(tx: Executor, orderId: number): Promise<OrderRow | undefined> {
  const [row] = await tx
    .update(orders)
    .set({ status: 'abandoned' })
    .where(and(eq(orders.id, orderId), eq(orders.status, 'pending')))
    .returning();
  return row;
}

/**
 * Pending orders past their deadline by more than `graceMs` (their job was lost or is late), oldest
 * first: `abandon_at`, or without one `afterSeconds` after created_at (each test on its own index).
 */
export async function overduePendingOrders(
  db: Executor,
  afterSeconds: number,
  graceMs: number,
  limit: number,
): Promise<string[]> {
  const rows = await db
    .select({ code: orders.code })
    .from(orders)
    .where(
      and(
        eq(orders.status, 'pending'),
        or(
          and(
            isNull(orders.abandonAt),
            sql`${orders.createdAt} < clock_timestamp() - make_interval(secs => ${afterSeconds + graceMs / 1000})`,
          ),
          sql`${orders.abandonAt} < clock_timestamp() - make_interval(secs => ${graceMs / 1000})`,
        ),
      ),
    )
    .orderBy(asc(orders.createdAt))
    .limit(limit);
  return rows.map((r) => r.code);
}

/** An order by its code (the buyer's pages: the code is the only credential they carry). */
export async function findOrderByCode(db: Executor, code: string): Promise<OrderRow | undefined> {
  const [row] = await db.select().from(orders).where(eq(orders.code, code));
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

/** An order as the panel shows it: with its product's name and the code of its offer or plan. */
export interface PanelOrderRow {
  order: OrderRow;
  productName: string;
  offerCode: string | null;
  planCode: string | null;
}

function selectPanelOrders(db: Executor) {
  return db
    .select({
      order: getTableColumns(orders),
      productName: products.name,
      offerCode: offers.code,
      planCode: plans.code,
    })
    .from(orders)
    .innerJoin(products, eq(products.id, orders.productId))
    .leftJoin(offers, eq(offers.id, orders.offerId))
    .leftJoin(plans, eq(plans.id, orders.planId));
}

export async function findPanelOrder(
  db: Executor,
  companyId: number,
  code: string,
): Promise<PanelOrderRow | undefined> {
  const [row] = await selectPanelOrders(db).where(
    and(eq(orders.code, code), eq(orders.companyId, companyId)),
  );
  return row;
}

export async function orderExists(db: Executor, companyId: number, code: string): Promise<boolean> {
  const [row] = await db
    .select({ id: orders.id })
    .from(orders)
    .where(and(eq(orders.code, code), eq(orders.companyId, companyId)));
  return row !== undefined;
}

export interface OrderListQuery {
  companyId: number;
  status?: OrderStatus | undefined;
  linkId?: string | undefined;
  livemode?: boolean | undefined;
  /** Code of the last order of the previous page (an order of the company). */
  startingAfter?: string | undefined;
  limit: number;
}

/** One page of the company's orders, newest first, plus one extra row to tell whether more follow. */
export function listPanelOrders(db: Executor, query: OrderListQuery): Promise<PanelOrderRow[]> {
  const conditions: SQL[] = [eq(orders.companyId, query.companyId)];
  if (query.status !== undefined) conditions.push(eq(orders.status, query.status));
  if (query.linkId !== undefined) conditions.push(eq(orders.paymentLinkId, query.linkId));
  if (query.livemode !== undefined) conditions.push(eq(orders.livemode, query.livemode));
  if (query.startingAfter !== undefined) {
    conditions.push(
      sql`(${orders.createdAt}, ${orders.id}) < (
        SELECT c.created_at, c.id FROM orders c WHERE c.code = ${query.startingAfter} AND c.company_id = ${query.companyId})`,
    );
  }
  return selectPanelOrders(db)
    .where(and(...conditions))
    .orderBy(desc(orders.createdAt), desc(orders.id))
    .limit(query.limit + 1);
}

/**
 * Remembers a buyer e-mail for a company and mode; true the first time it is seen (the lead is new).
 * A concurrent first submission of the same e-mail waits on the key and finds it taken.
 */
export async function rememberLead(
  tx: Executor,
  lead: { companyId: number; livemode: boolean; email: string },
): Promise<boolean> {
  const rows = await tx
    .insert(leads)
    .values({ companyId: lead.companyId, livemode: lead.livemode, email: lead.email.toLowerCase() })
    .onConflictDoNothing()
    .returning({ email: leads.email });
  return rows.length > 0;
}

/**
 * A buyer's refund the gateway did not take at once: the paid order records when it was asked, who
 * asked and why, once (a second ask while queued changes nothing). Returns whether it was queued now.
 */
export async function markRefundQueued(
  tx: Executor,
  target: { companyId: number; code: string },
  request: RefundRequest,
): Promise<boolean> {
  const rows = await tx
    .update(orders)
    .set({
      refundQueuedAt: sql`clock_timestamp()`,
      refundRequestedBy: request.by,
      refundReason: request.reason,
    })
    .where(
      and(
        eq(orders.companyId, target.companyId),
        eq(orders.code, target.code),
        eq(orders.status, 'paid'),
        isNull(orders.refundQueuedAt),
      ),
    )
    .returning({ id: orders.id });
  return rows.length > 0;
}

/** The gateway refused a queued refund: the order is paid with no refund on its way (who asked stays). */
export async function dropQueuedRefund(db: Executor, orderId: number): Promise<void> {
  await db
    .update(orders)
    .set({ refundQueuedAt: null })
    .where(and(eq(orders.id, orderId), eq(orders.status, 'paid')));
}

/** Paid orders whose queued refund has waited more than `graceMs` (its job may be lost), oldest first. */
export async function waitingRefunds(db: Executor, graceMs: number, batch: number): Promise<string[]> {
  const rows = await db
    .select({ code: orders.code })
    .from(orders)
    .where(
      and(
        eq(orders.status, 'paid'),
        sql`${orders.refundQueuedAt} < clock_timestamp() - make_interval(secs => ${graceMs / 1000})`,
      ),
    )
    .orderBy(orders.refundQueuedAt)
    .limit(batch);
  return rows.map((r) => r.code);
}
