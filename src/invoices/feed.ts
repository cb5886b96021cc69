/**
 * The invoice half of the outbox relay: a live `order.paid` of a product an active invoice integration
 * covers makes the order's invoice (due now, or at the end of its guarantee); an `order.refunded` or
 * `order.chargeback` asks for it to be canceled. Each is written once (the order has one invoice; a
 * cancel request is recorded once), so a relay repeated by a retry or the sweep adds nothing.
 */
import { ensureJob, jobIds } from '../../queues/index.js';
import type { AppContext } from '../shared/context.js';
import {
  createInvoiceFor,
  invoiceEventFacts,
  requestCancel,
  stalledInvoices,
  type InvoiceRow,
} from './repository.js';

/** The justification sent with a cancellation (Focus NFe asks for 15 to 255 characters). */
export const CANCEL_REASONS = {
  'order.refunded': 'Cancelamento por reembolso integral do pedido ao tomador do servico',
  'order.chargeback': 'Cancelamento por contestacao (chargeback) do pagamento do pedido',
} as const;

/** Adds the job of an invoice's current round, delayed to `at`. Never throws: the sweep adds it later. */
export function enqueueInvoice(
  ctx: Pick<AppContext, 'producers' | 'logger'>,
  invoice: Pick<InvoiceRow, 'id' | 'round'>,
  at: Date = new Date(),
): void {
  const delay = Math.max(0, at.getTime() - Date.now());
  ctx.producers
    .add(
      'invoices',
      jobIds.invoices(invoice.id, invoice.round),
      { invoiceId: invoice.id, round: invoice.round },
      { delay },
    )
    .catch((err: unknown) => {
      ctx.logger.warn({ err, invoiceId: invoice.id }, 'could not queue an invoice job; the sweep will');
    });
}

/** Starts or cancels the invoices these events concern; returns how many jobs were added. */
export async function queueInvoices(ctx: AppContext, eventIds: string[]): Promise<number> {
  if (eventIds.length === 0) return 0;
  const facts = await invoiceEventFacts(ctx.db, eventIds);
  let queued = 0;
  for (const fact of facts) {
    const invoice = await ctx.db.transaction((tx) =>
      fact.type === 'order.paid'
        ? createInvoiceFor(tx, fact.companyId, fact.orderCode)
        : requestCancel(tx, fact.companyId, fact.orderCode, CANCEL_REASONS[fact.type]),
    );
    if (!invoice) continue;
    enqueueInvoice(ctx, invoice, fact.type === 'order.paid' ? invoice.dueAt : new Date());
    queued += 1;
  }
  return queued;
}

/**
 * The invoice part of the safety net (PostgreSQL holds every invoice; Redis only its job): adds the
 * job again of every invoice due and waiting (or to cancel) untouched for `graceMs` (a Redis restart,
 * a crash before the add, a job that ran out of attempts while the provider was down). An invoice
 * whose job is still there is left alone (the same job id). Returns how many were added.
 */
export async function sweepInvoices(ctx: AppContext, graceMs: number, batch: number): Promise<number> {
  let added = 0;
  for (const invoice of await stalledInvoices(ctx.db, graceMs, batch)) {
    const data = { invoiceId: invoice.id, round: invoice.round };
    if (await ensureJob(ctx.producers, 'invoices', jobIds.invoices(invoice.id, invoice.round), data))
      added += 1;
  }
  return added;
}
