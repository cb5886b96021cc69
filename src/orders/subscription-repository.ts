import { eq, sql } from 'drizzle-orm';
import { schema, type Executor } from '../shared/db/index.js';
import type { BillingCycle } from '../shared/enums/billing-cycles.js';

const { subscriptions } = schema;

export type SubscriptionRow = typeof subscriptions.$inferSelect;

/**
 * One billing period per cycle, as a PostgreSQL interval: month arithmetic is the database's, so a
 * subscription started on the 31st renews on the last day of shorter months.
 */
const CYCLE_INTERVAL: Record<BillingCycle, string> = {
  weekly: '7 days',
  monthly: '1 month',
  quarterly: '3 months',
  semiannual: '6 months',
  yearly: '1 year',
};

/**
 * Period n (1 = the first purchase) ends at start + n cycles. Every period end is computed from the
 * start, never from the previous end, so month-end clamping does not drift (Jan 31 → Feb 28 → Mar 31).
 */
const periodEnd = (start: unknown, cycle: BillingCycle, period: number) =>
  sql`${start}::timestamptz + ${period}::int * ${CYCLE_INTERVAL[cycle]}::interval`;

/** A subscription starting at `startedAt`, in its first period. */
export async function insertSubscription(
  tx: Executor,
  values: {
    companyId: number;
    livemode: boolean;
    planId: number;
    paymentLinkId: string | null;
    startedAt: Date;
    cycle: BillingCycle;
  },
): Promise<SubscriptionRow> {
  const [row] = await tx
    .insert(subscriptions)
    .values({
      companyId: values.companyId,
      livemode: values.livemode,
      planId: values.planId,
      paymentLinkId: values.paymentLinkId,
      createdAt: values.startedAt,
      currentPeriodEnd: periodEnd(values.startedAt, values.cycle, 1),
    })
    .returning();
  if (!row) throw new Error('insert into subscriptions returned no row');
  return row;
}

/**
 * Moves an active subscription from period `period - 1` into `period`, when that period is due at
 * `asOf`. One conditional UPDATE: a repeated or concurrent renewal of the same period matches
 * nothing, so a renewal job is safe to run twice.
 */
export async function advancePeriod(
  tx: Executor,
  subscriptionId: number,
  cycle: BillingCycle,
  period: number,
  asOf: Date,
): Promise<SubscriptionRow | undefined> {
  const [row] = await tx
    .update(subscriptions)
    .set({ currentPeriodEnd: periodEnd(subscriptions.createdAt, cycle, period) })
    .where(
      sql`${subscriptions.id} = ${subscriptionId} AND ${subscriptions.status} = 'active'
        AND ${subscriptions.currentPeriodEnd} = ${periodEnd(subscriptions.createdAt, cycle, period - 1)}
        AND ${subscriptions.currentPeriodEnd} <= ${asOf}`,
    )
    .returning();
  return row;
}

export async function findSubscription(db: Executor, id: number): Promise<SubscriptionRow | undefined> {
  const [row] = await db.select().from(subscriptions).where(eq(subscriptions.id, id));
  return row;
}

/**
 * Active subscriptions past their period end by more than `graceMs` (their renewal job was lost or
 * is late), with the period each is due to enter: every paid order of a subscription is one period.
 */
export async function overdueRenewals(
  db: Executor,
  graceMs: number,
  limit: number,
): Promise<Array<{ subscriptionId: number; period: number }>> {
  const rows = await db.execute<{ id: string | number; period: string | number }>(sql`
    SELECT s.id, (SELECT count(*) FROM orders o WHERE o.subscription_id = s.id AND o.status = 'paid') + 1 AS period
      FROM subscriptions s
     WHERE s.status = 'active' AND s.current_period_end < clock_timestamp() - make_interval(secs => ${graceMs / 1000})
     ORDER BY s.current_period_end LIMIT ${limit}`);
  return rows.rows.map((r) => ({ subscriptionId: Number(r.id), period: Number(r.period) }));
}
