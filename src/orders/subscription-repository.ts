import { and, desc, eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import { schema, type Executor } from '../shared/db/index.js';
import type { RenewalCard, RenewalMethod } from '../shared/db/schema.js';
import { insertedRow } from '../shared/db/inserted.js';
import type { BillingCycle } from '../shared/enums/billing-cycles.js';
import type { CancelReason, SubscriptionStatus } from '../shared/enums/subscription-statuses.js';

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
  const rows = await tx
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
  return insertedRow(rows, 'subscriptions');
}

/** The subscription, locked until the transaction ends: renewals, retries, cancels and chargebacks queue up. */
export async function lockSubscription(tx: Executor, id: number): Promise<SubscriptionRow | undefined> {
  const [row] = await tx.select().from(subscriptions).where(eq(subscriptions.id, id)).for('update');
  return row;
}

async function updated(rows: Promise<SubscriptionRow[]>, what: string): Promise<SubscriptionRow> {
  const [row] = await rows;
  if (!row) throw new Error(`subscription row vanished under its lock (${what})`);
  return row;
}

/** Into `period` (paid): active again, its end `period` cycles after the start, nothing left to retry. */
export function enterPeriod(
  tx: Executor,
  id: number,
  cycle: BillingCycle,
  period: number,
): Promise<SubscriptionRow> {
  return updated(
    tx
      .update(subscriptions)
      .set({
        status: 'active',
        currentPeriod: period,
        currentPeriodEnd: periodEnd(subscriptions.createdAt, cycle, period),
        failedCharges: 0,
        nextRetryAt: null,
      })
      .where(eq(subscriptions.id, id))
      .returning(),
    'enter period',
  );
}

/** A charge of the renewal due failed: past_due, with the count of failed charges and the next retry. */
export function markPastDue(
  tx: Executor,
  id: number,
  failedCharges: number,
  nextRetryAt: Date,
): Promise<SubscriptionRow> {
  return updated(
    tx
      .update(subscriptions)
      .set({ status: 'past_due', failedCharges, nextRetryAt })
      .where(eq(subscriptions.id, id))
      .returning(),
    'past due',
  );
}

/** The renewal due at the period end will cancel the subscription instead of charging. */
export function markCancelAtPeriodEnd(tx: Executor, id: number): Promise<SubscriptionRow> {
  return updated(
    tx.update(subscriptions).set({ cancelAtPeriodEnd: true }).where(eq(subscriptions.id, id)).returning(),
    'cancel at period end',
  );
}

/** → canceled for `reason`, stamping `canceled_at`; no retry is due any more. */
export function markCanceled(tx: Executor, id: number, reason: CancelReason): Promise<SubscriptionRow> {
  return updated(
    tx
      .update(subscriptions)
      .set({
        status: 'canceled',
        canceledAt: sql`clock_timestamp()`,
        cancelReason: reason,
        nextRetryAt: null,
      })
      .where(eq(subscriptions.id, id))
      .returning(),
    'cancel',
  );
}

export async function findSubscription(db: Executor, id: number): Promise<SubscriptionRow | undefined> {
  const [row] = await db.select().from(subscriptions).where(eq(subscriptions.id, id));
  return row;
}

/** The newest subscription a payment link started (a reusable link may start several). */
export async function latestSubscriptionOfLink(
  db: Executor,
  linkId: string,
): Promise<SubscriptionRow | undefined> {
  const [row] = await db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.paymentLinkId, linkId))
    .orderBy(desc(subscriptions.createdAt), desc(subscriptions.id))
    .limit(1);
  return row;
}

/** A charge that is due: the renewal into `period` (attempt 0) or its `attempt`-th retry. */
export interface DueCharge {
  subscriptionId: number;
  period: number;
  attempt: number;
}

/**
 * Charges overdue by more than `graceMs` (their job was lost or is late): active subscriptions past
 * their period end (a renewal, or the cancellation of one that ends there), and past_due ones past
 * their next retry. A subscription whose renewal order is pending at its PSP (a Pix or boleto the
 * buyer has yet to pay) waits for that order, and is not overdue.
 */
export async function overdueCharges(db: Executor, graceMs: number, limit: number): Promise<DueCharge[]> {
  const rows = await db.execute<{ id: string | number; period: number; attempt: number }>(sql`
    SELECT s.id, s.current_period + 1 AS period,
           CASE WHEN s.status = 'past_due' THEN s.failed_charges ELSE 0 END AS attempt
      FROM subscriptions s
     WHERE ((s.status = 'active' AND s.current_period_end < clock_timestamp() - make_interval(secs => ${graceMs / 1000}))
        OR (s.status = 'past_due' AND s.next_retry_at < clock_timestamp() - make_interval(secs => ${graceMs / 1000})))
       AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.subscription_id = s.id AND o.status = 'pending')
     ORDER BY coalesce(s.next_retry_at, s.current_period_end) LIMIT ${limit}`);
  return rows.rows.map((r) => ({
    subscriptionId: Number(r.id),
    period: Number(r.period),
    attempt: Number(r.attempt),
  }));
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

/** Sets how a subscription renews (under its lock): a card only with `credit_card`, never kept with `pix`. */
export async function setRenewalMethod(
  tx: Executor,
  id: number,
  method: RenewalMethod,
  card: RenewalCard | null,
): Promise<SubscriptionRow> {
  return updated(
    tx
      .update(subscriptions)
      .set({ renewalMethod: method, renewalCard: method === 'credit_card' ? card : null })
      .where(eq(subscriptions.id, id))
      .returning(),
    'renewal method',
  );
}

/** A renewal spent the stored card (a PSP's token is single use): it is forgotten, the method kept. */
export async function forgetRenewalCard(tx: Executor, id: number, token: string): Promise<void> {
  await tx
    .update(subscriptions)
    .set({ renewalCard: null })
    .where(and(eq(subscriptions.id, id), sql`${subscriptions.renewalCard}->>'token' = ${token}`));
}
