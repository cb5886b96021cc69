/**
 * Every statement of the buyer's page: sign-in links, buyer sessions, and a buyer's live orders
 * across companies (by the e-mail entered at checkout, lower-cased; a subscription's renewals
 * follow its first order's buyer).
 */
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { GIVES_ACCESS } from '../orders/access.js';
import { schema, type Executor } from '../shared/db/index.js';
import type { ProductContentItem, RenewalMethod } from '../shared/db/schema.js';
import type { OrderStatus } from '../shared/enums/order-statuses.js';
import type { PaymentMethod } from '../shared/enums/payment-methods.js';
import type { SubscriptionStatus } from '../shared/enums/subscription-statuses.js';

const { buyerSignInLinks, buyerSessions } = schema;

/** The company and checkout language of the address's latest live order, if it has any. */
export async function latestLiveOrderOf(
  db: Executor,
  email: string,
): Promise<{ companyId: number; language: 'pt-BR' | 'en' | null } | undefined> {
  const result = await db.execute<{ company_id: string | number; language: 'pt-BR' | 'en' | null }>(sql`
    SELECT company_id, language FROM orders
     WHERE livemode AND lower(customer->>'email') = ${email}
     ORDER BY id DESC LIMIT 1`);
  const row = result.rows[0];
  return row && { companyId: Number(row.company_id), language: row.language };
}

export async function insertSignInLink(
  tx: Executor,
  link: { email: string; tokenHash: string; expiresAt: Date },
): Promise<number> {
  const [row] = await tx.insert(buyerSignInLinks).values(link).returning({ id: buyerSignInLinks.id });
  if (!row) throw new Error('sign-in link insert returned no row');
  return row.id;
}

/**
 * Uses a sign-in link: the address it was mailed to, once, while PostgreSQL's clock says it is
 * valid. A second use, an expired link or an unknown token get nothing.
 */
export async function redeemSignInLink(db: Executor, tokenHash: string): Promise<string | undefined> {
  const [row] = await db
    .update(buyerSignInLinks)
    .set({ usedAt: sql`clock_timestamp()` })
    .where(
      and(
        eq(buyerSignInLinks.tokenHash, tokenHash),
        isNull(buyerSignInLinks.usedAt),
        gt(buyerSignInLinks.expiresAt, sql`clock_timestamp()`),
      ),
    )
    .returning({ email: buyerSignInLinks.email });
  return row?.email;
}

export async function insertBuyerSession(
  db: Executor,
  session: { sessionHash: string; email: string; expiresAt: Date },
): Promise<void> {
  await db.insert(buyerSessions).values(session);
}

export async function findBuyerSession(
  db: Executor,
  sessionHash: string,
): Promise<{ id: number; email: string } | undefined> {
  const [row] = await db
    .select({ id: buyerSessions.id, email: buyerSessions.email })
    .from(buyerSessions)
    .where(
      and(
        eq(buyerSessions.sessionHash, sessionHash),
        isNull(buyerSessions.revokedAt),
        gt(buyerSessions.expiresAt, sql`clock_timestamp()`),
      ),
    );
  return row;
}

export async function revokeBuyerSession(db: Executor, id: number): Promise<void> {
  await db
    .update(buyerSessions)
    .set({ revokedAt: sql`clock_timestamp()` })
    .where(and(eq(buyerSessions.id, id), isNull(buyerSessions.revokedAt)));
}

/** One of the buyer's orders as the page shows it. */
export interface Purchase {
  code: string;
  companyId: number;
  seller: string;
  productId: number;
  product: string;
  item: string | null;
  status: OrderStatus;
  amount: string;
  method: PaymentMethod | null;
  installments: number | null;
  createdAt: Date;
  paidAt: Date | null;
  refundedAt: Date | null;
  refundReason: string | null;
  /** When the buyer's refund was queued (the gateway did not answer); null when none is on its way. */
  refundQueuedAt: Date | null;
  pix: { copyPaste: string; expiresAt: Date | null } | null;
  boleto: { digitableLine: string; dueDate: string | null } | null;
  subscription: {
    id: number;
    status: SubscriptionStatus;
    currentPeriodEnd: Date;
    cancelAtPeriodEnd: boolean;
    /** As its buyer chose; null: as its first purchase was paid. */
    renewalMethod: RenewalMethod | null;
  } | null;
  guaranteeDays: number;
  /** Until when the buyer may ask for a refund (paid orders only). */
  refundableUntil: Date | null;
  /** A paid order within its guarantee, by PostgreSQL's clock. */
  refundable: boolean;
  /** The order's issued service invoice (NFS-e): its number and PDF at the fiscal provider. */
  invoice: { number: string | null; pdfUrl: string } | null;
}

type PurchaseRecord = {
  code: string;
  company_id: string | number;
  seller: string;
  product_id: number;
  product: string;
  item: string | null;
  status: OrderStatus;
  amount: string;
  payment_method: PaymentMethod | null;
  installments: number | null;
  created_at: Date;
  paid_at: Date | null;
  refunded_at: Date | null;
  refund_reason: string | null;
  refund_queued_at: Date | null;
  pix_copy_paste: string | null;
  pix_expires_at: Date | null;
  boleto_digitable_line: string | null;
  boleto_due_date: string | null;
  subscription_id: string | number | null;
  subscription_status: SubscriptionStatus | null;
  current_period_end: Date | null;
  cancel_at_period_end: boolean | null;
  renewal_method: RenewalMethod | null;
  guarantee_days: number;
  refundable_until: Date | null;
  refundable: boolean;
  invoice_number: string | null;
  invoice_pdf_url: string | null;
};

/** The most orders the page lists (newest first). */
export const PURCHASES_SHOWN = 200;

const purchaseQuery = (email: string, code: string | undefined) => sql`
  SELECT o.code, o.company_id, COALESCE(es.sender_name, c.name) AS seller, o.product_id, p.name AS product,
         COALESCE(ofr.name, pl.name) AS item, o.status, o.amount::text AS amount, o.payment_method,
         o.installments, o.created_at, o.paid_at, o.refunded_at, o.refund_reason, o.refund_queued_at,
         o.pix_copy_paste, o.pix_expires_at, o.boleto_digitable_line, o.boleto_due_date::text AS boleto_due_date,
         o.subscription_id, s.status AS subscription_status, s.current_period_end, s.cancel_at_period_end,
         s.renewal_method,
         COALESCE(ofr.guarantee_days, pl.guarantee_days, 7) AS guarantee_days,
         o.paid_at + make_interval(days => COALESCE(ofr.guarantee_days, pl.guarantee_days, 7)) AS refundable_until,
         (o.status = 'paid' AND o.paid_at IS NOT NULL AND
          o.paid_at + make_interval(days => COALESCE(ofr.guarantee_days, pl.guarantee_days, 7)) > clock_timestamp())
           AS refundable,
         oi.number AS invoice_number, oi.pdf_url AS invoice_pdf_url
    FROM orders o
    JOIN companies c ON c.id = o.company_id
    LEFT JOIN email_settings es ON es.company_id = o.company_id
    JOIN products p ON p.id = o.product_id
    LEFT JOIN offers ofr ON ofr.id = o.offer_id
    LEFT JOIN plans pl ON pl.id = o.plan_id
    LEFT JOIN subscriptions s ON s.id = o.subscription_id
    LEFT JOIN order_invoices oi ON oi.order_id = o.id AND oi.status = 'issued' AND oi.pdf_url ~* '^https?://'
   WHERE o.livemode
     AND (lower(o.customer->>'email') = ${email}
          OR o.subscription_id IN (SELECT f.subscription_id FROM orders f
                                    WHERE f.livemode AND lower(f.customer->>'email') = ${email}
                                      AND f.subscription_id IS NOT NULL))
     ${code === undefined ? sql`` : sql`AND o.code = ${code}`}
   ORDER BY o.created_at DESC, o.id DESC
   LIMIT ${PURCHASES_SHOWN}`;

function toPurchase(r: PurchaseRecord): Purchase {
  const date = (value: Date | string | null): Date | null => (value === null ? null : new Date(value));
  return {
    code: r.code,
    companyId: Number(r.company_id),
    seller: r.seller,
    productId: r.product_id,
    product: r.product,
    item: r.item,
    status: r.status,
    amount: r.amount,
    method: r.payment_method,
    installments: r.installments,
    createdAt: new Date(r.created_at),
    paidAt: date(r.paid_at),
    refundedAt: date(r.refunded_at),
    refundReason: r.refund_reason,
    refundQueuedAt: r.status === 'paid' ? date(r.refund_queued_at) : null,
    pix: r.pix_copy_paste ? { copyPaste: r.pix_copy_paste, expiresAt: date(r.pix_expires_at) } : null,
    boleto: r.boleto_digitable_line
      ? { digitableLine: r.boleto_digitable_line, dueDate: r.boleto_due_date }
      : null,
    subscription:
      r.subscription_id !== null && r.subscription_status !== null && r.current_period_end !== null
        ? {
            id: Number(r.subscription_id),
            status: r.subscription_status,
            currentPeriodEnd: new Date(r.current_period_end),
            cancelAtPeriodEnd: r.cancel_at_period_end === true,
            renewalMethod: r.renewal_method,
          }
        : null,
    guaranteeDays: r.guarantee_days,
    refundableUntil: date(r.refundable_until),
    refundable: r.refundable,
    invoice: r.invoice_pdf_url ? { number: r.invoice_number, pdfUrl: r.invoice_pdf_url } : null,
  };
}

/** The address's live orders across companies, newest first (at most PURCHASES_SHOWN). */
export async function purchasesOf(db: Executor, email: string): Promise<Purchase[]> {
  const result = await db.execute<PurchaseRecord>(purchaseQuery(email, undefined));
  return result.rows.map(toPurchase);
}

/** One of the address's live orders, or undefined (another buyer's order does not exist here). */
export async function purchaseOf(db: Executor, email: string, code: string): Promise<Purchase | undefined> {
  const result = await db.execute<PurchaseRecord>(purchaseQuery(email, code));
  const row = result.rows[0];
  return row && toPurchase(row);
}

/** A product whose content the buyer holds access to, and that content. */
export interface AccessibleContent {
  productId: number;
  product: string;
  seller: string;
  items: ProductContentItem[];
}

/**
 * The products whose content the address holds access to now (GIVES_ACCESS through a live order or
 * its subscription, the product covered by an active builtin members area of its company).
 */
export async function accessibleContentOf(db: Executor, email: string): Promise<AccessibleContent[]> {
  const result = await db.execute<{
    product_id: number;
    product: string;
    seller: string;
    content: ProductContentItem[];
  }>(sql`
    SELECT DISTINCT ON (p.id) p.id AS product_id, p.name AS product, COALESCE(es.sender_name, c.name) AS seller,
           p.content
      FROM orders o
      JOIN products p ON p.id = o.product_id
      JOIN companies c ON c.id = o.company_id
      LEFT JOIN email_settings es ON es.company_id = o.company_id
      LEFT JOIN subscriptions s ON s.id = o.subscription_id
     WHERE o.livemode
       AND (lower(o.customer->>'email') = ${email}
            OR o.subscription_id IN (SELECT f.subscription_id FROM orders f
                                      WHERE f.livemode AND lower(f.customer->>'email') = ${email}
                                        AND f.subscription_id IS NOT NULL))
       AND ${GIVES_ACCESS}
       AND EXISTS (SELECT 1 FROM integrations i
                    WHERE i.company_id = o.company_id AND i.type = 'members_area' AND i.is_active
                      AND i.config->>'provider' = 'builtin'
                      AND (i.send_to_all_products OR o.product_id = ANY(i.product_ids)))
     ORDER BY p.id`);
  return result.rows.map((r) => ({
    productId: r.product_id,
    product: r.product,
    seller: r.seller,
    items: r.content,
  }));
}

/** The pay-now token of a subscription's latest failed-renewal e-mail (its `/renewals` page), if one was queued. */
export async function payNowTokenOf(db: Executor, subscriptionId: number): Promise<string | undefined> {
  const result = await db.execute<{ token: string }>(sql`
    SELECT token FROM email_messages
     WHERE kind = 'renewal_failed' AND subscription_id = ${subscriptionId}
     ORDER BY id DESC LIMIT 1`);
  return result.rows[0]?.token;
}
