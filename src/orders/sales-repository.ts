/**
 * The sums behind the dashboard's home, over one company's orders in one mode since an instant. Two
 * statements, sent side by side: each is an index-only scan of its window (migration 0805), so their
 * cost follows the window's orders, not the company's history (0906 added the fees to the second).
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../shared/db/index.js';
import type { PaymentMethod } from '../shared/enums/payment-methods.js';

/** The orders created in the window: how many, how many got paid, and the Pix and boletos among them. */
export interface CreatedCounts {
  created: number;
  createdPaid: number;
  pixGenerated: number;
  pixPaid: number;
  boletoGenerated: number;
  boletoPaid: number;
}

/** The orders paid on one Brasília day with one method: their amounts, and the part since refunded or charged back. */
export interface PaidDay {
  /** `YYYY-MM-DD`, Brasília. */
  day: string;
  method: PaymentMethod | null;
  paid: number;
  /** Exact decimals as PostgreSQL sums them ("594.00"). */
  gross: string;
  refunded: string;
  chargedBack: string;
  /** The platform's and the PSP's fees of the orders whose money stayed (neither refunded nor charged back). */
  fees: string;
}

interface Window {
  companyId: number;
  livemode: boolean;
  since: Date;
}

const count = (value: unknown): number => Number(value ?? 0);

export async function createdCounts(db: Executor, w: Window): Promise<CreatedCounts> {
  const result = await db.execute<Record<string, string>>(sql`
    SELECT count(*) AS created,
           count(*) FILTER (WHERE paid_at IS NOT NULL) AS created_paid,
           count(*) FILTER (WHERE payment_method = 'pix') AS pix_generated,
           count(*) FILTER (WHERE payment_method = 'pix' AND paid_at IS NOT NULL) AS pix_paid,
           count(*) FILTER (WHERE payment_method = 'boleto') AS boleto_generated,
           count(*) FILTER (WHERE payment_method = 'boleto' AND paid_at IS NOT NULL) AS boleto_paid
      FROM orders
     WHERE company_id = ${w.companyId} AND livemode = ${w.livemode} AND created_at >= ${w.since}`);
  const row = result.rows[0] ?? {};
  return {
    created: count(row.created),
    createdPaid: count(row.created_paid),
    pixGenerated: count(row.pix_generated),
    pixPaid: count(row.pix_paid),
    boletoGenerated: count(row.boleto_generated),
    boletoPaid: count(row.boleto_paid),
  };
}

export async function paidDays(db: Executor, w: Window): Promise<PaidDay[]> {
  const result = await db.execute<{
    day: string;
    method: PaymentMethod | null;
    paid: string;
    gross: string;
    refunded: string;
    charged_back: string;
    fees: string;
  }>(sql`
    SELECT to_char(paid_at AT TIME ZONE 'America/Sao_Paulo', 'YYYY-MM-DD') AS day,
           payment_method AS method,
           count(*) AS paid,
           sum(amount) AS gross,
           coalesce(sum(amount) FILTER (WHERE status = 'refunded'), 0) AS refunded,
           coalesce(sum(amount) FILTER (WHERE status = 'charged_back'), 0) AS charged_back,
           coalesce(sum(coalesce(platform_fee, 0) + coalesce(gateway_fee, 0))
                    FILTER (WHERE status NOT IN ('refunded', 'charged_back')), 0) AS fees
      FROM orders
     WHERE company_id = ${w.companyId} AND livemode = ${w.livemode} AND paid_at >= ${w.since}
       AND paid_at IS NOT NULL
     GROUP BY 1, 2`);
  return result.rows.map((r) => ({
    day: r.day,
    method: r.method,
    paid: count(r.paid),
    gross: String(r.gross),
    refunded: String(r.refunded),
    chargedBack: String(r.charged_back),
    fees: String(r.fees),
  }));
}

/** Net revenue of the window's paid orders by the `utm_source` they carried (null: none), largest first. */
export interface SourceRevenue {
  source: string | null;
  paid: number;
  /** Exact decimals: what they paid less what went back since. */
  net: string;
}

/**
 * The same window's paid orders by `utm_source`, the `SOURCES_SHOWN` largest; this one reads the
 * rows (the source is in `tracking`), still only the window's.
 */
export const SOURCES_SHOWN = 10;
export async function revenueBySource(db: Executor, w: Window): Promise<SourceRevenue[]> {
  const result = await db.execute<{ source: string | null; paid: string; net: string }>(sql`
    SELECT tracking->>'utm_source' AS source,
           count(*) AS paid,
           coalesce(sum(amount) FILTER (WHERE status NOT IN ('refunded', 'charged_back')), 0) AS net
      FROM orders
     WHERE company_id = ${w.companyId} AND livemode = ${w.livemode} AND paid_at >= ${w.since}
       AND paid_at IS NOT NULL
     GROUP BY 1
     ORDER BY 3 DESC, 1 ASC NULLS LAST
     LIMIT ${SOURCES_SHOWN}`);
  return result.rows.map((r) => ({ source: r.source, paid: count(r.paid), net: String(r.net) }));
}
