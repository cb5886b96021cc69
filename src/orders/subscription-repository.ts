import { and, desc, eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import { schema, type Executor } from '../shared/db/index.js';
import type { BillingCycle } from '../shared/enums/billing-cycles.js';
import type { SubscriptionStatus } from '../shared/enums/subscription-statuses.js';

const { subscriptions, plans } = schema;

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
 * Every billed order of a subscription is one period, refunded ones included (a refund does not give
 * the period back), so the period a subscription is due to enter is that count plus one.
 */
const nextPeriodOf = (subscriptionId: unknown) =>
  sql<number>`(SELECT count(*) FROM orders o WHERE o.subscription_id = ${subscriptionId}
                  AND o.status IN ('paid', 'refunded'))::int + 1`;

export async function nextRenewalPeriod(db: Executor, subscriptionId: number): Promise<number> {
  const rows = await db.execute<{ period: string | number }>(
    sql`SELECT ${nextPeriodOf(subscriptionId)} AS period`,
  );
  return Number(rows.rows[0]?.period ?? 1);
}

/**
 * Active subscriptions past their period end by more than `graceMs` (their renewal job was lost or
 * is late), with the period each is due to enter.
 */
export async function overdueRenewals(
  db: Executor,
  graceMs: number,
  limit: number,
): Promise<Array<{ subscriptionId: number; period: number }>> {
  const rows = await db.execute<{ id: string | number; period: string | number }>(sql`
    SELECT s.id, ${nextPeriodOf(sql`s.id`)} AS period
      FROM subscriptions s
     WHERE s.status = 'active' AND s.current_period_end < clock_timestamp() - make_interval(secs => ${graceMs / 1000})
     ORDER BY s.current_period_end LIMIT ${limit}`);
  return rows.rows.map((r) => ({ subscriptionId: Number(r.id), period: Number(r.period) }));
}

/** active → canceled, stamping `canceled_at`; undefined when it is not an active subscription of the company. */
export async function cancelSubscriptionRow(
  tx: Executor,
  companyId: number,
  id: number,
): Promise<SubscriptionRow | undefined> {
  const [row] = await tx
    .update(subscriptions)
    .set({ status: 'canceled', canceledAt: sql`clock_timestamp()` })
    .where(
      and(
        eq(subscriptions.id, id),
        eq(subscriptions.companyId, companyId),
        eq(subscriptions.status, 'active'),
      ),
    )
    .returning();
  return row;
}

/** A subscription as the panel shows it: with its plan's code and billing cycle. */
export interface PanelSubscriptionRow {
  subscription: SubscriptionRow;
  planCode: string;
  billingCycle: BillingCycle;
}

function selectPanelSubscriptions(db: Executor) {
  return db
    .select({
      subscription: getTableColumns(subscriptions),
      planCode: plans.code,
      billingCycle: plans.billingCycle,
    })
    .from(subscriptions)
    .innerJoin(plans, eq(plans.id, subscriptions.planId));
}

export async function findPanelSubscription(
  db: Executor,
  companyId: number,
  id: number,
): Promise<PanelSubscriptionRow | undefined> {
  const [row] = await selectPanelSubscriptions(db).where(
    and(eq(subscriptions.id, id), eq(subscriptions.companyId, companyId)),
  );
  return row;
}

export interface SubscriptionListQuery {
  companyId: number;
  status?: SubscriptionStatus | undefined;
  livemode?: boolean | undefined;
  /** Id of the last subscription of the previous page (a subscription of the company). */
  startingAfter?: number | undefined;
  limit: number;
}

/** One page of the company's subscriptions, newest first, plus one extra row to tell whether more follow. */
export function listPanelSubscriptions(
  db: Executor,
  query: SubscriptionListQuery,
): Promise<PanelSubscriptionRow[]> {
  const conditions: SQL[] = [eq(subscriptions.companyId, query.companyId)];
  if (query.status !== undefined) conditions.push(eq(subscriptions.status, query.status));
  if (query.livemode !== undefined) conditions.push(eq(subscriptions.livemode, query.livemode));
  if (query.startingAfter !== undefined) {
    conditions.push(
      sql`(${subscriptions.createdAt}, ${subscriptions.id}) < (
        SELECT c.created_at, c.id FROM subscriptions c WHERE c.id = ${query.startingAfter} AND c.company_id = ${query.companyId})`,
    );
  }
  return selectPanelSubscriptions(db)
    .where(and(...conditions))
    .orderBy(desc(subscriptions.createdAt), desc(subscriptions.id))
    .limit(query.limit + 1);
}
