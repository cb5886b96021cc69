/**
 * A picture of a company's sales over the last 30 days of one mode (the dashboard's home): revenue
 * net of refunds, chargebacks and fees (the platform's and the PSP's), paid orders, average ticket, conversion, Pix and boleto generated
 * vs paid, and revenue per day by method. Docs: docs/dashboard.md, "The home".
 *
 * Revenue is counted on the day an order was paid; an order of the window refunded or charged back
 * since is taken off that day. Conversion, and Pix and boleto generated vs paid, follow the orders
 * created in the window (paid since, whenever).
 */
import { addDays, brazilDate, startOfBrazilDay } from '../shared/brazil-time.js';
import type { Db } from '../shared/db/index.js';
import { PAYMENT_METHODS, type PaymentMethod } from '../shared/enums/payment-methods.js';
import { createdCounts, paidDays, revenueBySource } from './sales-repository.js';

export const SALES_WINDOW_DAYS = 30;

/** Sums in cents: exact, and far below 2^53 for any company's month. */
const centsOf = (decimal: string): number => {
  const [whole = '0', fraction = ''] = decimal.split('.');
  const sign = whole.startsWith('-') ? -1 : 1;
  return sign * (Math.abs(Number(whole)) * 100 + Number(fraction.padEnd(2, '0').slice(0, 2)));
};
/** Cents as the decimal string the pages' money format takes ("594.00"). */
export const decimalOf = (cents: number): string => (cents / 100).toFixed(2);

export interface SalesDay {
  /** `YYYY-MM-DD`, Brasília. */
  day: string;
  /** Net revenue of the day per method, in cents. */
  byMethod: Record<PaymentMethod, number>;
  /** Net revenue of the day, in cents (every method, and any order without one). */
  total: number;
}

export interface SalesSummary {
  livemode: boolean;
  /** The first and the last day of the window (Brasília), the last being today. */
  from: string;
  to: string;
  /** In cents: what the orders paid in the window paid, what of it went back, the fees, and what is left. */
  gross: number;
  refunded: number;
  chargedBack: number;
  /** The platform's and the PSP's fees of the orders kept (neither refunded nor charged back). */
  fees: number;
  net: number;
  paidOrders: number;
  /** Gross revenue per paid order, in cents; null without paid orders. */
  averageTicket: number | null;
  createdOrders: number;
  /** Of those, how many were paid (whenever). */
  createdPaid: number;
  /** Orders created in the window that were paid ÷ orders created in it; null when none were created. */
  conversion: number | null;
  pix: { generated: number; paid: number };
  boleto: { generated: number; paid: number };
  /** Every day of the window, oldest first, with its net revenue per method (zero days included). */
  days: SalesDay[];
  /** Net revenue (cents) and paid orders by the `utm_source` the orders carried (null: none), largest first. */
  sources: { source: string | null; paid: number; net: number }[];
}

const emptyDay = (day: string): SalesDay => ({
  day,
  byMethod: { credit_card: 0, pix: 0, boleto: 0 },
  total: 0,
});

/** The last 30 days (today, Brasília, and the 29 before it) of `livemode`'s orders. */
export async function salesSummary(
  db: Db,
  companyId: number,
  livemode: boolean,
  now = new Date(),
): Promise<SalesSummary> {
  const to = brazilDate(now);
  const from = addDays(to, -(SALES_WINDOW_DAYS - 1));
  const window = { companyId, livemode, since: startOfBrazilDay(from) };
  const [created, paid, sources] = await Promise.all([
    createdCounts(db, window),
    paidDays(db, window),
    revenueBySource(db, window),
  ]);

  const days = new Map<string, SalesDay>();
  for (let i = 0; i < SALES_WINDOW_DAYS; i++) {
    const day = addDays(from, i);
    days.set(day, emptyDay(day));
  }
  let gross = 0;
  let refunded = 0;
  let chargedBack = 0;
  let fees = 0;
  let paidOrders = 0;
  for (const row of paid) {
    const rowGross = centsOf(row.gross);
    const rowRefunded = centsOf(row.refunded);
    const rowChargedBack = centsOf(row.chargedBack);
    const rowFees = centsOf(row.fees);
    fees += rowFees;
    gross += rowGross;
    refunded += rowRefunded;
    chargedBack += rowChargedBack;
    paidOrders += row.paid;
    // A payment confirmed after the window's last instant read (clock skew) has no day here.
    const day = days.get(row.day);
    if (!day) continue;
    const net = rowGross - rowRefunded - rowChargedBack - rowFees;
    day.total += net;
    if (row.method !== null && PAYMENT_METHODS.includes(row.method)) day.byMethod[row.method] += net;
  }
  return {
    livemode,
    from,
    to,
    gross,
    refunded,
    chargedBack,
    fees,
    net: gross - refunded - chargedBack - fees,
    paidOrders,
    averageTicket: paidOrders === 0 ? null : Math.round(gross / paidOrders),
    createdOrders: created.created,
    createdPaid: created.createdPaid,
    conversion: created.created === 0 ? null : created.createdPaid / created.created,
    pix: { generated: created.pixGenerated, paid: created.pixPaid },
    boleto: { generated: created.boletoGenerated, paid: created.boletoPaid },
    days: [...days.values()],
    sources: sources.map((row) => ({ source: row.source, paid: row.paid, net: centsOf(row.net) })),
  };
}
