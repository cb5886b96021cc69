/** Every statement about service invoices (order_invoices, migration 0950) and what issuing reads. */
import { sql } from 'drizzle-orm';
import type { Executor } from '../shared/db/index.js';
import type { OrderCustomer } from '../shared/db/schema.js';

export const INVOICE_STATUSES = ['pending', 'needs_data', 'issued', 'failed', 'canceled'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export interface InvoiceRow {
  id: number;
  companyId: number;
  orderId: number;
  orderCode: string;
  integrationId: number | null;
  status: InvoiceStatus;
  dueAt: Date;
  submittedAt: Date | null;
  polls: number;
  round: number;
  cancelReason: string | null;
  number: string | null;
  pdfUrl: string | null;
  xmlUrl: string | null;
  message: string | null;
}

type RawInvoice = {
  id: string | number;
  company_id: string | number;
  order_id: string | number;
  order_code: string;
  integration_id: number | null;
  status: InvoiceStatus;
  due_at: string | Date;
  submitted_at: string | Date | null;
  polls: number;
  round: number;
  cancel_reason: string | null;
  number: string | null;
  pdf_url: string | null;
  xml_url: string | null;
  message: string | null;
};

const date = (value: string | Date): Date => (value instanceof Date ? value : new Date(value));

const toRow = (r: RawInvoice): InvoiceRow => ({
  id: Number(r.id),
  companyId: Number(r.company_id),
  orderId: Number(r.order_id),
  orderCode: r.order_code,
  integrationId: r.integration_id,
  status: r.status,
  dueAt: date(r.due_at),
  submittedAt: r.submitted_at === null ? null : date(r.submitted_at),
  polls: r.polls,
  round: r.round,
  cancelReason: r.cancel_reason,
  number: r.number,
  pdfUrl: r.pdf_url,
  xmlUrl: r.xml_url,
  message: r.message,
});

/** The kinds of the order events an invoice follows: a payment starts it, a refund or chargeback cancels it. */
export const INVOICE_EVENT_KINDS = ['order.paid', 'order.refunded', 'order.chargeback'] as const;

/** The order events an invoice follows, as the relay reads them. */
export interface InvoiceEventFact {
  eventId: string;
  type: (typeof INVOICE_EVENT_KINDS)[number];
  companyId: number;
  orderCode: string;
}

/** Of these events, the live ones about a real order that may start or cancel an invoice. */
export async function invoiceEventFacts(db: Executor, eventIds: string[]): Promise<InvoiceEventFact[]> {
  const result = await db.execute<{
    id: string;
    type: InvoiceEventFact['type'];
    company_id: string;
    code: string;
  }>(sql`
    SELECT id, type, company_id, payload #>> '{data,order,code}' AS code
      FROM events
     WHERE id = ANY(${sql.param(eventIds)}::text[])
       AND type IN ('order.paid', 'order.refunded', 'order.chargeback')
       AND livemode AND NOT test
       AND payload #>> '{data,order,code}' IS NOT NULL
     ORDER BY seq`);
  return result.rows.map((r) => ({
    eventId: r.id,
    type: r.type,
    companyId: Number(r.company_id),
    orderCode: r.code,
  }));
}

/**
 * Creates the invoice of a paid live order when an active invoice integration of its company covers
 * its product (the lowest id, should two): due at the payment, or `guarantee_days` after it when the
 * integration issues at the guarantee's end. Nothing when the order has one already (a relay again).
 */
export async function createInvoiceFor(
  tx: Executor,
  companyId: number,
  orderCode: string,
): Promise<InvoiceRow | undefined> {
  const result = await tx.execute<RawInvoice>(sql`
    INSERT INTO order_invoices (company_id, order_id, order_code, integration_id, due_at)
    SELECT o.company_id, o.id, o.code, i.id,
           COALESCE(o.paid_at, clock_timestamp())
             + CASE WHEN i.config ->> 'issue_after' = 'guarantee_end'
                    THEN make_interval(days => COALESCE(f.guarantee_days, p.guarantee_days, 7))
                    ELSE interval '0' END
      FROM orders o
      JOIN LATERAL (
        SELECT id, config FROM integrations
         WHERE company_id = o.company_id AND type = 'invoice' AND is_active AND receives = 'live'
           AND (send_to_all_products OR o.product_id = ANY(product_ids))
         ORDER BY id LIMIT 1) i ON true
      LEFT JOIN offers f ON f.id = o.offer_id
      LEFT JOIN plans p ON p.id = o.plan_id
     WHERE o.code = ${orderCode} AND o.company_id = ${companyId} AND o.livemode AND o.status = 'paid'
    ON CONFLICT (order_id) DO NOTHING
    RETURNING *`);
  const row = result.rows[0];
  return row ? toRow(row) : undefined;
}

/**
 * Asks for the invoice of an order to be canceled (a refund, a chargeback); returns it when there is
 * one still to cancel. One not yet sent to the provider is canceled at once by the job.
 */
export async function requestCancel(
  tx: Executor,
  companyId: number,
  orderCode: string,
  reason: string,
): Promise<InvoiceRow | undefined> {
  const result = await tx.execute<RawInvoice>(sql`
    UPDATE order_invoices
       SET cancel_reason = ${reason}, round = round + 1, updated_at = clock_timestamp()
     WHERE order_code = ${orderCode} AND company_id = ${companyId}
       AND status <> 'canceled' AND cancel_reason IS NULL
    RETURNING *`);
  const row = result.rows[0];
  return row ? toRow(row) : undefined;
}

export async function lockInvoice(tx: Executor, id: number): Promise<InvoiceRow | undefined> {
  const result = await tx.execute<RawInvoice>(sql`SELECT * FROM order_invoices WHERE id = ${id} FOR UPDATE`);
  const row = result.rows[0];
  return row ? toRow(row) : undefined;
}

export async function findInvoiceOfOrder(
  db: Executor,
  companyId: number,
  orderCode: string,
): Promise<InvoiceRow | undefined> {
  const result = await db.execute<RawInvoice>(sql`
    SELECT * FROM order_invoices WHERE company_id = ${companyId} AND order_code = ${orderCode}`);
  const row = result.rows[0];
  return row ? toRow(row) : undefined;
}

export async function invoicesOfOrders(
  db: Executor,
  companyId: number,
  codes: string[],
): Promise<InvoiceRow[]> {
  if (codes.length === 0) return [];
  const result = await db.execute<RawInvoice>(sql`
    SELECT * FROM order_invoices
     WHERE company_id = ${companyId} AND order_code = ANY(${sql.param(codes)}::uuid[])`);
  return result.rows.map(toRow);
}

export type InvoiceChanges = Partial<
  Pick<InvoiceRow, 'status' | 'polls' | 'round' | 'number' | 'pdfUrl' | 'xmlUrl' | 'message'> & {
    submittedAt: Date | null;
  }
>;

const COLUMNS: Record<keyof InvoiceChanges, string> = {
  status: 'status',
  polls: 'polls',
  round: 'round',
  number: 'number',
  pdfUrl: 'pdf_url',
  xmlUrl: 'xml_url',
  message: 'message',
  submittedAt: 'submitted_at',
};

export async function updateInvoice(tx: Executor, id: number, changes: InvoiceChanges): Promise<InvoiceRow> {
  const sets = (Object.keys(changes) as Array<keyof InvoiceChanges>).map(
    (key) => sql`${sql.identifier(COLUMNS[key])} = ${changes[key] ?? null}`,
  );
  const result = await tx.execute<RawInvoice>(sql`
    UPDATE order_invoices SET ${sql.join([...sets, sql`updated_at = clock_timestamp()`], sql`, `)}
     WHERE id = ${id} RETURNING *`);
  const row = result.rows[0];
  if (!row) throw new Error(`invoice ${id} vanished`);
  return toRow(row);
}

/** What an invoice of an order says about it: the buyer, the amount, the product, when it was paid. */
export interface InvoicedOrder {
  code: string;
  amount: string;
  paidAt: Date | null;
  customer: OrderCustomer | null;
  productName: string;
}

export async function invoicedOrder(db: Executor, orderId: number): Promise<InvoicedOrder | undefined> {
  const result = await db.execute<{
    code: string;
    amount: string;
    paid_at: string | Date | null;
    customer: OrderCustomer | null;
    product_name: string;
  }>(sql`
    SELECT o.code, o.amount::text AS amount, o.paid_at, o.customer, p.name AS product_name
      FROM orders o JOIN products p ON p.id = o.product_id
     WHERE o.id = ${orderId}`);
  const r = result.rows[0];
  if (!r) return undefined;
  return {
    code: r.code,
    amount: r.amount,
    paidAt: r.paid_at === null ? null : date(r.paid_at),
    customer: r.customer,
    productName: r.product_name,
  };
}

/** Invoices whose job may be lost (a Redis restart): pending or canceling, due, untouched for `graceMs`. */
export async function stalledInvoices(db: Executor, graceMs: number, limit: number): Promise<InvoiceRow[]> {
  const result = await db.execute<RawInvoice>(sql`
    SELECT * FROM order_invoices
     WHERE (status = 'pending' OR (cancel_reason IS NOT NULL AND status <> 'canceled'))
       AND due_at < clock_timestamp()
       AND updated_at < clock_timestamp() - make_interval(secs => ${graceMs / 1000})
     ORDER BY id LIMIT ${limit}`);
  return result.rows.map(toRow);
}
