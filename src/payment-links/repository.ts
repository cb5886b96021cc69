import { and, desc, eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import { schema, type Executor } from '../shared/db/index.js';

const { paymentLinks, orders } = schema;

export type LinkRow = typeof paymentLinks.$inferSelect;
export type NewLinkRow = typeof paymentLinks.$inferInsert;
export type LinkStatus = LinkRow['status'];

/** The part of an order a link shows (spec 2.2). */
export type LinkOrder = Pick<
  typeof orders.$inferSelect,
  'code' | 'status' | 'amount' | 'paymentMethod' | 'paidAt'
>;

/** A link with the order it shows (its latest paid order), ready for the mapper. */
export interface LinkWithOrder {
  link: LinkRow;
  order: LinkOrder | null;
}

/** Which link, as seen by one payments key: a link of another company or mode does not exist for it. */
export interface LinkScope {
  companyId: number;
  livemode: boolean;
  linkId: string;
}

const orderColumns = {
  code: orders.code,
  status: orders.status,
  amount: orders.amount,
  paymentMethod: orders.paymentMethod,
  paidAt: orders.paidAt,
};

/** Rows of a `link LEFT JOIN orders` select: the order columns are all null when there is no order. */
interface JoinedRow {
  link: LinkRow;
  order: { [K in keyof LinkOrder]: LinkOrder[K] | null } | null;
}

const withOrder = (row: JoinedRow): LinkWithOrder => ({
  link: row.link,
  order: row.order && row.order.code !== null ? (row.order as LinkOrder) : null,
});

function selectWithOrder(executor: Executor) {
  return executor
    .select({ link: getTableColumns(paymentLinks), order: orderColumns })
    .from(paymentLinks)
    .leftJoin(orders, eq(orders.id, paymentLinks.latestOrderId));
}

/** A link of this company and mode, with its order; one indexed query. */
export async function findLink(executor: Executor, scope: LinkScope): Promise<LinkWithOrder | undefined> {
  const [row] = await selectWithOrder(executor).where(
    and(
      eq(paymentLinks.id, scope.linkId),
      eq(paymentLinks.companyId, scope.companyId),
      eq(paymentLinks.livemode, scope.livemode),
    ),
  );
  return row ? withOrder(row) : undefined;
}

/** Any link by id, whatever its company or mode (workers, checkout pages). */
export async function findLinkById(executor: Executor, linkId: string): Promise<LinkWithOrder | undefined> {
  const [row] = await selectWithOrder(executor).where(eq(paymentLinks.id, linkId));
  return row ? withOrder(row) : undefined;
}

export async function findLinkByShortCode(
  executor: Executor,
  shortCode: string,
): Promise<LinkRow | undefined> {
  const [row] = await executor.select().from(paymentLinks).where(eq(paymentLinks.shortCode, shortCode));
  return row;
}

export async function findLinkByIdempotencyKey(
  executor: Executor,
  companyId: number,
  livemode: boolean,
  key: string,
): Promise<LinkWithOrder | undefined> {
  const [row] = await selectWithOrder(executor).where(
    and(
      eq(paymentLinks.companyId, companyId),
      eq(paymentLinks.livemode, livemode),
      eq(paymentLinks.idempotencyKey, key),
    ),
  );
  return row ? withOrder(row) : undefined;
}

/**
 * Inserts a link. With an idempotency key, a concurrent or earlier insert under the same
 * (company, mode, key) wins and this returns undefined: the unique index decides, so racing
 * requests cannot create two links.
 */
export async function insertLink(
  executor: Executor,
  values: Omit<NewLinkRow, 'expiresAt'> & { expiresAt: Date | null },
): Promise<LinkRow | undefined> {
  const { expiresAt, ...rest } = values;
  // The default validity is computed by the database from the same clock as created_at.
  const insert = executor.insert(paymentLinks).values({
    ...rest,
    expiresAt: expiresAt ?? sql`clock_timestamp() + interval '7 days'`,
  });
  const rows =
    values.idempotencyKey != null
      ? await insert
          .onConflictDoNothing({
            target: [paymentLinks.companyId, paymentLinks.livemode, paymentLinks.idempotencyKey],
            where: sql`${paymentLinks.idempotencyKey} IS NOT NULL`,
          })
          .returning()
      : await insert.returning();
  return rows[0];
}

export interface ListQuery {
  companyId: number;
  livemode: boolean;
  status?: LinkStatus;
  externalReference?: string;
  startingAfter?: string;
  limit: number;
  /** Reads never show `active` past expires_at, so status filters use the effective status at `now`. */
  now: Date;
}

function effectiveStatusFilter(status: LinkStatus, now: Date): SQL {
  if (status === 'active')
    return sql`${paymentLinks.status} = 'active' AND ${paymentLinks.expiresAt} > ${now}`;
  if (status === 'expired') {
    return sql`(${paymentLinks.status} = 'expired' OR (${paymentLinks.status} = 'active' AND ${paymentLinks.expiresAt} <= ${now}))`;
  }
  return eq(paymentLinks.status, status);
}

/**
 * One page of links, newest first, plus one extra row to tell whether more follow. The cursor is
 * resolved inside the query from the cursor row itself, so created_at keeps its microseconds.
 */
export function listLinks(executor: Executor, query: ListQuery): Promise<LinkWithOrder[]> {
  const conditions: SQL[] = [
    eq(paymentLinks.companyId, query.companyId),
    eq(paymentLinks.livemode, query.livemode),
  ];
  if (query.status) conditions.push(effectiveStatusFilter(query.status, query.now));
  if (query.externalReference !== undefined) {
    conditions.push(eq(paymentLinks.externalReference, query.externalReference));
  }
  if (query.startingAfter !== undefined) {
    conditions.push(
      sql`(${paymentLinks.createdAt}, ${paymentLinks.id}) < (
        SELECT c.created_at, c.id FROM payment_links c
        WHERE c.id = ${query.startingAfter} AND c.company_id = ${query.companyId} AND c.livemode = ${query.livemode})`,
    );
  }
  return selectWithOrder(executor)
    .where(and(...conditions))
    .orderBy(desc(paymentLinks.createdAt), desc(paymentLinks.id))
    .limit(query.limit + 1)
    .then((rows) => rows.map(withOrder));
}

export async function linkExists(executor: Executor, scope: LinkScope): Promise<boolean> {
  const [row] = await executor
    .select({ id: paymentLinks.id })
    .from(paymentLinks)
    .where(
      and(
        eq(paymentLinks.id, scope.linkId),
        eq(paymentLinks.companyId, scope.companyId),
        eq(paymentLinks.livemode, scope.livemode),
      ),
    );
  return row !== undefined;
}

export async function findOrder(executor: Executor, orderId: number): Promise<LinkOrder | undefined> {
  const [row] = await executor.select(orderColumns).from(orders).where(eq(orders.id, orderId));
  return row;
}
