/**
 * Every change of a link's status, one function per transition. Each takes a transaction so the
 * caller can write the event describing the change in the same commit, and each is one conditional
 * UPDATE: of two racing transitions (a cancel and a payment, say) exactly one matches the row.
 * Each returns the updated row, or undefined when the link was not in the state the transition
 * starts from (or does not exist).
 */
import { and, eq, or, sql } from 'drizzle-orm';
import { schema, type Executor } from '../shared/db/index.js';
import type { LinkRow, LinkScope } from './repository.js';

const { paymentLinks } = schema;

/** active → canceled, for a link of the caller's company and mode that has not passed expires_at. */
export async function cancelLink(tx: Executor, scope: LinkScope): Promise<LinkRow | undefined> {
  const [row] = await tx
    .update(paymentLinks)
    .set({ status: 'canceled', canceledAt: sql`clock_timestamp()`, updatedAt: sql`clock_timestamp()` })
    .where(
      and(
        eq(paymentLinks.id, scope.linkId),
        eq(paymentLinks.companyId, scope.companyId),
        eq(paymentLinks.livemode, scope.livemode),
        eq(paymentLinks.status, 'active'),
        sql`${paymentLinks.expiresAt} > clock_timestamp()`,
      ),
    )
    .returning();
  return row;
}

/**
 * active → expired once expires_at <= `now`. `expired_at` records when the transition was applied
 * (which is later than expires_at when the expiry job or the read path catches up).
 */
export async function expireLink(
  tx: Executor,
  linkId: string,
  now: Date = new Date(),
): Promise<LinkRow | undefined> {
  const [row] = await tx
    .update(paymentLinks)
    .set({ status: 'expired', expiredAt: sql`clock_timestamp()`, updatedAt: sql`clock_timestamp()` })
    .where(
      and(
        eq(paymentLinks.id, linkId),
        eq(paymentLinks.status, 'active'),
        sql`${paymentLinks.expiresAt} <= ${now}`,
      ),
    )
    .returning();
  return row;
}

/**
 * active → expired for up to `limit` links whose expires_at has passed (by the database's clock),
 * earliest deadline first. Rows another transaction holds (a payment deciding on its link, another
 * worker's batch) are skipped, not waited for: the next tick takes them if they are still due.
 */
export async function expireDueLinks(tx: Executor, limit: number): Promise<LinkRow[]> {
  const due = tx
    .select({ id: paymentLinks.id })
    .from(paymentLinks)
    // statement_timestamp(), not clock_timestamp(): a volatile function cannot bound an index scan, and
    // the partial index on expires_at would be read whole (every active link) at each tick.
    .where(and(eq(paymentLinks.status, 'active'), sql`${paymentLinks.expiresAt} <= statement_timestamp()`))
    .orderBy(paymentLinks.expiresAt)
    .limit(limit)
    .for('update', { skipLocked: true });
  // `= ANY(ARRAY(…))`, not `IN (…)`: the due ids are read first, then each row by its primary key.
  // With `IN`, the planner expects the LIMIT's rows and joins them against a scan of the whole table.
  return tx
    .update(paymentLinks)
    .set({ status: 'expired', expiredAt: sql`clock_timestamp()`, updatedAt: sql`clock_timestamp()` })
    .where(and(sql`${paymentLinks.id} = ANY(ARRAY(${due}))`, eq(paymentLinks.status, 'active')))
    .returning();
}

export interface Payment {
  paidAt: Date;
  /** The paid order; null for a simulated payment, which creates no order. */
  orderId: number | null;
}

/**
 * active → paid. A reusable link (single_use false) also takes paid → paid: it keeps its first
 * paid_at and shows its latest order.
 */
export async function markLinkPaid(
  tx: Executor,
  linkId: string,
  payment: Payment,
): Promise<LinkRow | undefined> {
  const [row] = await tx
    .update(paymentLinks)
    .set({
      status: 'paid',
      paidAt: sql`coalesce(${paymentLinks.paidAt}, ${payment.paidAt})`,
      latestOrderId: payment.orderId ?? sql`${paymentLinks.latestOrderId}`,
      updatedAt: sql`clock_timestamp()`,
    })
    .where(
      and(
        eq(paymentLinks.id, linkId),
        or(
          eq(paymentLinks.status, 'active'),
          and(eq(paymentLinks.status, 'paid'), eq(paymentLinks.singleUse, false)),
        ),
      ),
    )
    .returning();
  return row;
}
