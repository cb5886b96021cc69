/**
 * The orders export as a spreadsheet of the page's language opens it: pt-BR with `;` between
 * cells and decimal commas, English with `,` and dots; UTF-8 with a BOM (so Excel reads the accents);
 * times in Brasília, as the pages show them. Written by `csv-stringify`, which quotes what needs it.
 */
import { stringify, type Stringifier } from 'csv-stringify';
import type { ExportedOrder } from '../../orders/export.js';
import { orderFees } from '../../orders/mappers.js';
import { CAMPAIGN_KEYS } from '../../shared/tracking.js';
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
      c.platformFee,
      c.gatewayFee,
      c.net,
      c.method,
      c.installments,
      c.status,
      c.paid,
      c.refunded,
      c.invoice,
      c.invoiceNumber,
      // The campaign parameters under their own names, in every language (as the ads' addresses spell them).
      ...CAMPAIGN_KEYS,
    ],
  });
}

/** One order as the cells of its line. */
export function orderLine(page: DashboardLocale, order: ExportedOrder): string[] {
  const pt = page.lang === 'pt-BR';
  const { fees, net_amount } = orderFees(order);
  return [
    order.code,
    moment(page, order.createdAt),
    inert(order.customer?.name),
    inert(order.customer?.email),
    inert(order.productName),
    ...[order.amount, fees.platform, fees.gateway, net_amount].map((value) =>
      pt ? value.replace('.', ',') : value,
    ),
    order.paymentMethod ? page.t.ordersCsv.methods[order.paymentMethod] : '',
    order.installments === null ? '' : String(order.installments),
    page.t.orderStatuses[order.status],
    moment(page, order.paidAt),
    moment(page, order.refundedAt),
    order.invoiceStatus ? INVOICE_WORDS[page.lang].statuses[order.invoiceStatus] : '',
    order.invoiceNumber ?? '',
    ...CAMPAIGN_KEYS.map((key) => inert(order.tracking?.[key])),
  ];
}
