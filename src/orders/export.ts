/**
 * The company's orders for a spreadsheet (the dashboard's `orders.csv`): the same filters as the
 * panel's list, newest first, read in keyset batches on the list's index (company, created_at, id),
 * so an export of any size holds one batch at a time. The next batch is read only when the reader
 * asks for more (an async generator pulled by a stream): a slow download slows the reads.
 */
import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../shared/db/index.js';
import { orders, products, type OrderCustomer } from '../shared/db/schema.js';
import type { OrderStatus } from '../shared/enums/order-statuses.js';
import type { PaymentMethod } from '../shared/enums/payment-methods.js';
import type { VisitTracking } from '../shared/tracking.js';

export const EXPORT_BATCH = 1000;

export interface ExportFilter {
  companyId: number;
  status?: OrderStatus | undefined;
  livemode?: boolean | undefined;
}

/** One line of the export. */
export interface ExportedOrder {
  id: number;
  code: string;
  createdAt: Date;
  customer: OrderCustomer | null;
  productName: string;
  amount: string;
  platformFee: string | null;
  gatewayFee: string | null;
  paymentMethod: PaymentMethod | null;
  installments: number | null;
  status: OrderStatus;
  paidAt: Date | null;
  refundedAt: Date | null;
  tracking: VisitTracking | null;
  /** Its service invoice's status and number (docs/invoices.md); null without one. */
  invoiceStatus: 'pending' | 'needs_data' | 'issued' | 'failed' | 'canceled' | null;
  invoiceNumber: string | null;
}

function exportBatch(
  db: Executor,
  filter: ExportFilter,
  afterId: number | undefined,
): Promise<ExportedOrder[]> {
  const conditions: SQL[] = [eq(orders.companyId, filter.companyId)];
  if (filter.status !== undefined) conditions.push(eq(orders.status, filter.status));
  if (filter.livemode !== undefined) conditions.push(eq(orders.livemode, filter.livemode));
  // The cursor's created_at read by the database: microseconds a JavaScript Date would drop.
  if (afterId !== undefined)
    conditions.push(
      sql`(${orders.createdAt}, ${orders.id}) < (SELECT c.created_at, c.id FROM orders c WHERE c.id = ${afterId})`,
    );
  return db
    .select({
      id: orders.id,
      code: orders.code,
      createdAt: orders.createdAt,
      customer: orders.customer,
      productName: products.name,
      amount: orders.amount,
      platformFee: orders.platformFee,
      gatewayFee: orders.gatewayFee,
      paymentMethod: orders.paymentMethod,
      installments: orders.installments,
      status: orders.status,
      paidAt: orders.paidAt,
      refundedAt: orders.refundedAt,
      tracking: orders.tracking,
      invoiceStatus: sql<
        ExportedOrder['invoiceStatus']
      >`(SELECT i.status FROM order_invoices i WHERE i.order_id = ${orders.id})`,
      invoiceNumber: sql<
        string | null
      >`(SELECT i.number FROM order_invoices i WHERE i.order_id = ${orders.id})`,
    })
    .from(orders)
    .innerJoin(products, eq(products.id, orders.productId))
    .where(and(...conditions))
    .orderBy(desc(orders.createdAt), desc(orders.id))
    .limit(EXPORT_BATCH);
}

/** Every order the filter names, newest first, one batch read at a time. */
export async function* exportOrders(db: Executor, filter: ExportFilter): AsyncGenerator<ExportedOrder> {
  let afterId: number | undefined;
  for (;;) {
    const batch = await exportBatch(db, filter, afterId);
    yield* batch;
    const last = batch.at(-1);
    if (batch.length < EXPORT_BATCH || !last) return;
    afterId = last.id;
  }
}
