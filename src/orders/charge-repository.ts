/**
 * gateway_charges: one row per charge asked of a gateway, written before the call (migration 0801).
 */
import { and, asc, desc, eq, isNotNull, ne, sql } from 'drizzle-orm';
import { schema, type Executor } from '../shared/db/index.js';
import type { GatewayProvider } from '../shared/db/schema.js';

const { gatewayCharges } = schema;

export type ChargeRow = typeof gatewayCharges.$inferSelect;

/**
 * Reserves a charge (state `starting`); a row already there for the code (a retry) is returned as
 * it is, with `created` false.
 */
export async function reserveChargeRow(
  tx: Executor,
  values: {
    orderCode: string;
    companyId: number;
    provider: GatewayProvider;
    accountId: number | null;
    paymentLinkId: string | null;
    subscriptionId: number | null;
    request: Record<string, unknown>;
  },
): Promise<{ row: ChargeRow; created: boolean }> {
  const [inserted] = await tx.insert(gatewayCharges).values(values).onConflictDoNothing().returning();
  if (inserted) return { row: inserted, created: true };
  const [existing] = await tx
    .select()
    .from(gatewayCharges)
    .where(eq(gatewayCharges.orderCode, values.orderCode));
  if (!existing) throw new Error(`charge ${values.orderCode} neither inserted nor found`);
  return { row: existing, created: false };
}

export async function findCharge(db: Executor, orderCode: string): Promise<ChargeRow | undefined> {
  const [row] = await db.select().from(gatewayCharges).where(eq(gatewayCharges.orderCode, orderCode));
  return row;
}

/** The charge locked for the write that follows the gateway's answer. */
export async function lockCharge(tx: Executor, orderCode: string): Promise<ChargeRow | undefined> {
  const [row] = await tx
    .select()
    .from(gatewayCharges)
    .where(eq(gatewayCharges.orderCode, orderCode))
    .for('update');
  return row;
}

export async function findChargeByReference(
  db: Executor,
  provider: GatewayProvider,
  reference: string,
): Promise<ChargeRow | undefined> {
  const [row] = await db
    .select()
    .from(gatewayCharges)
    .where(and(eq(gatewayCharges.provider, provider), eq(gatewayCharges.reference, reference)));
  return row;
}

/** The gateway answered: the order exists now, with the PSP's id of the payment. */
export async function markCharged(
  tx: Executor,
  orderCode: string,
  values: { reference: string | null; reconcileAt: Date | null; declineReason: ChargeRow['declineReason'] },
): Promise<void> {
  await tx
    .update(gatewayCharges)
    .set({
      state: 'charged',
      reference: values.reference,
      reconcileAt: values.reconcileAt,
      declineReason: values.declineReason,
      updatedAt: sql`clock_timestamp()`,
    })
    .where(eq(gatewayCharges.orderCode, orderCode));
}

/** A charge the gateway refused outright leaves nothing behind. */
export async function deleteStartingCharge(db: Executor, orderCode: string): Promise<void> {
  await db
    .delete(gatewayCharges)
    .where(and(eq(gatewayCharges.orderCode, orderCode), eq(gatewayCharges.state, 'starting')));
}

/** A charge never made (nothing found at the PSP by its deadline): it stops holding the link. */
export async function dropCharge(db: Executor, orderCode: string): Promise<void> {
  await db
    .update(gatewayCharges)
    .set({ state: 'dropped', reconcileAt: null, updatedAt: sql`clock_timestamp()` })
    .where(and(eq(gatewayCharges.orderCode, orderCode), eq(gatewayCharges.state, 'starting')));
}

/** When the charge is next read from the PSP (null: never again), and how many reads were made. */
export async function setReconcile(
  db: Executor,
  orderCode: string,
  at: Date | null,
  count?: number,
): Promise<void> {
  await db
    .update(gatewayCharges)
    .set({
      reconcileAt: at,
      ...(count === undefined ? {} : { reconcileCount: count }),
      updatedAt: sql`clock_timestamp()`,
    })
    .where(eq(gatewayCharges.orderCode, orderCode));
}

/** Remembers the PSP's id of a payment found for a charge whose answer was lost. */
export async function setReference(db: Executor, orderCode: string, reference: string): Promise<void> {
  await db
    .update(gatewayCharges)
    .set({ reference, updatedAt: sql`clock_timestamp()` })
    .where(eq(gatewayCharges.orderCode, orderCode));
}

/**
 * A charge of a single-use link still being started by another attempt in the last `holdMinutes`
 * (it holds the link like a pending order does), if any: its order code, and whether the gateway
 * left it unanswered (a read back from the PSP is scheduled) rather than still being asked.
 */
export async function startingChargeOf(
  tx: Executor,
  linkId: string,
  holdMinutes: number,
  exceptOrderCode: string,
): Promise<{ orderCode: string; unanswered: boolean } | undefined> {
  const [row] = await tx
    .select({ orderCode: gatewayCharges.orderCode, reconcileAt: gatewayCharges.reconcileAt })
    .from(gatewayCharges)
    .where(
      and(
        eq(gatewayCharges.paymentLinkId, linkId),
        eq(gatewayCharges.state, 'starting'),
        ne(gatewayCharges.orderCode, exceptOrderCode),
        sql`${gatewayCharges.createdAt} > clock_timestamp() - make_interval(mins => ${holdMinutes})`,
      ),
    )
    .orderBy(desc(gatewayCharges.createdAt))
    .limit(1);
  return row && { orderCode: row.orderCode, unanswered: row.reconcileAt !== null };
}

/** Charges whose reconciliation is overdue by more than `graceMs` (their job was lost), oldest first. */
export async function overdueReconciliations(
  db: Executor,
  graceMs: number,
  limit: number,
): Promise<string[]> {
  const rows = await db
    .select({ code: gatewayCharges.orderCode })
    .from(gatewayCharges)
    .where(
      and(
        isNotNull(gatewayCharges.reconcileAt),
        sql`${gatewayCharges.reconcileAt} < clock_timestamp() - make_interval(secs => ${graceMs / 1000})`,
      ),
    )
    .orderBy(asc(gatewayCharges.reconcileAt))
    .limit(limit);
  return rows.map((r) => r.code);
}
