/**
 * The orders export as a spreadsheet of the page's language opens it: pt-BR with `;` between
 * cells and decimal commas, English with `,` and dots; UTF-8 with a BOM (so Excel reads the accents);
 * times in Brasília, as the pages show them. Written by `csv-stringify`, which quotes what needs it.
 */
import { stringify, type Stringifier } from 'csv-stringify';
import type { ExportedOrder } from '../../orders/export.js';
import { BRASILIA } from '../../ui/format.js';
import type { DashboardLocale } from '../locale.js';
import { INVOICE_WORDS } from '../invoices/messages.js';

const parts = new Intl.DateTimeFormat('en-CA', {
  timeZone: BRASILIA,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

/** A moment as a spreadsheet of the language reads a date and time: `27/11/2026 14:05:00`, `2026-11-27 14:05:00`. */
function moment(page: DashboardLocale, instant: Date | null): string {
  if (!instant) return '';
  const p = Object.fromEntries(parts.formatToParts(instant).map((x) => [x.type, x.value]));
  const time = `${p.hour}:${p.minute}:${p.second}`;
  return page.lang === 'pt-BR'
    ? `${p.day}/${p.month}/${p.year} ${time}`
    : `${p.year}-${p.month}-${p.day} ${time}`;
}

/**
 * Text from buyers and sellers never starts a formula: a cell that begins with `=`, `+`, `-`, `@`,
 * a tab or a carriage return is written after an apostrophe (OWASP's advice on CSV injection).
 */
const inert = (text: string | null | undefined): string => {
  const value = text ?? '';
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
};

/** The writer: rows in (one `ExportedOrder` each), the file's bytes out, header line first. */
export function ordersCsv(page: DashboardLocale): Stringifier {
  const c = page.t.ordersCsv.columns;
  const pt = page.lang === 'pt-BR';
  return stringify({
    bom: true,
    delimiter: pt ? ';' : ',',
    record_delimiter: 'windows',
    header: true,
    columns: [
      c.code,
      c.created,
      c.buyerName,
      c.buyerEmail,
      c.product,
      c.amount,
      c.method,
      c.installments,
      c.status,
      c.paid,
      c.refunded,
      c.invoice,
      c.invoiceNumber,
    ],
  });
}

/** One order as the cells of its line. */
export function orderLine(page: DashboardLocale, order: ExportedOrder): string[] {
  const pt = page.lang === 'pt-BR';
  return [
    order.code,
    moment(page, order.createdAt),
    inert(order.customer?.name),
    inert(order.customer?.email),
    inert(order.productName),
    pt ? order.amount.replace('.', ',') : order.amount,
    order.paymentMethod ? page.t.ordersCsv.methods[order.paymentMethod] : '',
    order.installments === null ? '' : String(order.installments),
    page.t.orderStatuses[order.status],
    moment(page, order.paidAt),
    moment(page, order.refundedAt),
    order.invoiceStatus ? INVOICE_WORDS[page.lang].statuses[order.invoiceStatus] : '',
    order.invoiceNumber ?? '',
  ];
}
