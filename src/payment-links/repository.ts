import { and, desc, eq, getTableColumns, ne, sql, type SQL } from 'drizzle-orm';
import { PgTransaction } from 'drizzle-orm/pg-core';
import { schema, statementName, type Db, type Executor } from '../shared/db/index.js';
import { batcherFor, MicroBatcher } from '../shared/batcher.js';
import { prepareNamed, preparedOn, storable, tableRow, type NamedStatement } from '../shared/db/prepared.js';
import { itemTable, onSaleSql, type ItemKind } from '../catalog/repository.js';

const { paymentLinks, orders, products, companies } = schema;

export type LinkRow = typeof paymentLinks.$inferSelect;
export type NewLinkRow = typeof paymentLinks.$inferInsert;
type LinkStatus = LinkRow['status'];

/** The part of an order a link shows (`code`, `status`, `amount`, `payment_method`, `paid_at`). */
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

// Hot-path queries run as prepared statements (see preparedOn); inside a transaction the same query
// is built the ordinary way.

const prepareFindLinks = (db: Db) =>
  selectWithOrder(db)
    .where(sql`${paymentLinks.id} = ANY(${sql.placeholder('linkIds')}::text[])`)
    .prepare(statementName(db, 'payment_links_find_many'));

const findLinkBatchers = new WeakMap<Db, MicroBatcher<string, JoinedRow | undefined>>();

/**
 * The links read in one turn of the event loop, in one primary-key statement (`id = ANY(...)`):
 * concurrent reads share one round trip and one pooled connection instead of one each. The
 * statement is sent after the last of them arrived, so each sees everything committed before it.
 */
function linkReader(db: Db): MicroBatcher<string, JoinedRow | undefined> {
  return batcherFor(findLinkBatchers, db, () => {
    const statement = prepareFindLinks(db);
    return new MicroBatcher<string, JoinedRow | undefined>(async (linkIds: string[]) => {
      const distinct = storable(linkIds);
      const rows = distinct.length > 0 ? await statement.execute({ linkIds: distinct }) : [];
      const byId = new Map<string, JoinedRow>(rows.map((row) => [row.link.id, row]));
      return linkIds.map((id) => byId.get(id));
    });
  });
}

/**
 * A link of this company and mode, with its order; one primary-key lookup. The statement filters
 * on the id alone and ownership is checked here: a generic plan that also filtered on company and
 * mode could settle, while the table is small, on an index that later scans all of a company's links.
 */
export async function findLink(executor: Executor, scope: LinkScope): Promise<LinkWithOrder | undefined> {
  const row =
    executor instanceof PgTransaction
      ? (await selectWithOrder(executor).where(eq(paymentLinks.id, scope.linkId)))[0]
      : await linkReader(executor).push(scope.linkId);
  if (!row || row.link.companyId !== scope.companyId || row.link.livemode !== scope.livemode)
    return undefined;
  return withOrder(row);
}

/** What a link of this company and mode sells, as the seller named it: its offer's or plan's name and code. */
export async function findSoldItem(
  executor: Executor,
  scope: LinkScope,
): Promise<{ name: string; code: string } | undefined> {
  const { offers, plans } = schema;
  const [row] = await executor
    .select({ offer: { name: offers.name, code: offers.code }, plan: { name: plans.name, code: plans.code } })
    .from(paymentLinks)
    .leftJoin(offers, eq(offers.id, paymentLinks.offerId))
    .leftJoin(plans, eq(plans.id, paymentLinks.planId))
    .where(
      and(
        eq(paymentLinks.id, scope.linkId),
        eq(paymentLinks.companyId, scope.companyId),
        eq(paymentLinks.livemode, scope.livemode),
      ),
    );
  return row?.offer ?? row?.plan ?? undefined;
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

const idempotencyWhere = (companyId: unknown, livemode: unknown, key: unknown) =>
  and(
    eq(paymentLinks.companyId, companyId as number),
    eq(paymentLinks.livemode, livemode as boolean),
    eq(paymentLinks.idempotencyKey, key as string),
  );
const prepareFindByKey = (db: Db) =>
  selectWithOrder(db)
    .where(
      idempotencyWhere(sql.placeholder('companyId'), sql.placeholder('livemode'), sql.placeholder('key')),
    )
    .prepare(statementName(db, 'payment_links_find_by_idempotency_key'));
const findByKeyStatements = new WeakMap<Db, ReturnType<typeof prepareFindByKey>>();

export async function findLinkByIdempotencyKey(
  executor: Executor,
  companyId: number,
  livemode: boolean,
  key: string,
): Promise<LinkWithOrder | undefined> {
  const rows =
    executor instanceof PgTransaction
      ? await selectWithOrder(executor).where(idempotencyWhere(companyId, livemode, key))
      : await preparedOn(findByKeyStatements, executor, prepareFindByKey).execute({
          companyId,
          livemode,
          key,
        });
  const [row] = rows;
  return row ? withOrder(row) : undefined;
}

/** Everything a new link is made of but what it sells; `expiresAt` null means the default validity. */
export type LinkInsert = Required<
  Pick<
    NewLinkRow,
    | 'id'
    | 'companyId'
    | 'livemode'
    | 'shortCode'
    | 'customerName'
    | 'customerEmail'
    | 'customerPhone'
    | 'customerDocument'
    | 'externalReference'
    | 'metadata'
    | 'couponCode'
    | 'singleUse'
    | 'idempotencyKey'
    | 'requestHash'
    | 'paymentMethods'
    | 'pixExpiresInSeconds'
    | 'boletoDueDays'
    | 'maxInstallments'
    | 'successUrl'
    | 'tracking'
  >
> & { expiresAt: Date | null };

/** What a link sells, named as the request names it: an offer's or a plan's code. */
export interface SoldItem {
  kind: ItemKind;
  code: string;
}

const GIVEN_FIELDS = [
  'id',
  'companyId',
  'livemode',
  'shortCode',
  'customerName',
  'customerEmail',
  'customerPhone',
  'customerDocument',
  'externalReference',
  'metadata',
  'couponCode',
  'singleUse',
  'idempotencyKey',
  'requestHash',
  'paymentMethods',
  'pixExpiresInSeconds',
  'boletoDueDays',
  'maxInstallments',
  'successUrl',
  'tracking',
] as const satisfies ReadonlyArray<Exclude<keyof LinkInsert, 'expiresAt'>>;

const linkColumns = getTableColumns(paymentLinks);

/** The casts of the link's column types, written out: SQL text never comes from a string. */
const CASTS: Partial<Record<string, SQL>> = {
  text: sql`text`,
  'text[]': sql`text[]`,
  bigint: sql`bigint`,
  integer: sql`integer`,
  boolean: sql`boolean`,
  jsonb: sql`jsonb`,
  'timestamp with time zone': sql`timestamptz`,
};

/**
 * A value, cast so PostgreSQL need not guess its type. As in Drizzle's own prepared inserts, the
 * driver encodes it (a Date, an object as JSON, an array as a PostgreSQL array): a column encoder
 * would refuse a null.
 */
const typedPlaceholder = (name: string, column: (typeof linkColumns)[keyof typeof linkColumns]): SQL => {
  const type = CASTS[column.getSQLType()];
  if (!type) throw new Error(`no cast written for a ${column.getSQLType()} column (${column.name})`);
  return sql`${sql.placeholder(name)}::${type}`;
};

/**
 * One statement that finds the offer or plan (the company's own, on sale: the catalog's rule) and
 * inserts the link selling it: the create path's one round trip to PostgreSQL. The default
 * validity is computed by the database from the clock that sets created_at. It inserts nothing
 * when the item does not qualify, or when a row already holds the (company, mode, idempotency key);
 * rows without a key never conflict on that index.
 */
function insertSellingStatement(kind: ItemKind): SQL {
  const t = itemTable(kind);
  const isOffer = kind === 'offer';
  const columns = [
    ...GIVEN_FIELDS.map((field) => ({
      column: linkColumns[field],
      value: typedPlaceholder(field, linkColumns[field]),
    })),
    { column: linkColumns.type, value: sql`${kind}` },
    { column: linkColumns.offerId, value: isOffer ? sql`item.id` : sql`NULL` },
    { column: linkColumns.planId, value: isOffer ? sql`NULL` : sql`item.id` },
    { column: linkColumns.offerCode, value: isOffer ? sql`item.code` : sql`NULL` },
    { column: linkColumns.planCode, value: isOffer ? sql`NULL` : sql`item.code` },
    { column: linkColumns.productId, value: sql`item.product_id` },
    {
      column: linkColumns.expiresAt,
      value: sql`coalesce(${typedPlaceholder('expiresAt', linkColumns.expiresAt)}, clock_timestamp() + interval '7 days')`,
    },
  ];
  return sql`WITH item AS (
      SELECT ${t.id} AS id, ${t.code} AS code, ${t.productId} AS product_id
        FROM ${t}
        JOIN ${products} ON ${products.id} = ${t.productId}
        JOIN ${companies} ON ${companies.id} = ${t.companyId}
       WHERE ${t.code} = ${sql.placeholder('itemCode')}::text
         AND ${t.companyId} = ${typedPlaceholder('companyId', linkColumns.companyId)}
         AND ${onSaleSql(t)}
    )
    INSERT INTO ${paymentLinks} (${sql.join(
      columns.map((c) => sql.identifier(c.column.name)),
      sql`, `,
    )})
    SELECT ${sql.join(
      columns.map((c) => c.value),
      sql`, `,
    )} FROM item
    ON CONFLICT (company_id, livemode, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
    RETURNING *`;
}

const insertSellingStatements = {
  offer: new WeakMap<Db, NamedStatement<Record<string, unknown>>>(),
  plan: new WeakMap<Db, NamedStatement<Record<string, unknown>>>(),
};

/**
 * Inserts a link selling the offer or plan with this code, if it is the company's and on sale.
 * Undefined when it inserted nothing: the item did not qualify, or (with an idempotency key) a
 * concurrent or earlier insert under the same (company, mode, key) won; the unique index decides,
 * so racing requests cannot create two links. The caller tells the two apart.
 */
export async function insertLinkSelling(
  db: Db,
  values: LinkInsert,
  item: SoldItem,
): Promise<LinkRow | undefined> {
  const statement = preparedOn(insertSellingStatements[item.kind], db, (on) =>
    prepareNamed(on, `payment_links_insert_${item.kind}`, insertSellingStatement(item.kind)),
  );
  const { rows } = await statement.execute({ ...values, itemCode: item.code });
  const [row] = rows;
  return row ? tableRow(paymentLinks, row) : undefined;
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

/** The link's row, locked until the transaction ends, with the database's clock: a payment or a simulation decides on it. */
export async function lockLink(
  tx: Executor,
  linkId: string,
): Promise<(Pick<LinkRow, 'status' | 'singleUse' | 'expiresAt'> & { now: Date }) | undefined> {
  const [row] = await tx
    .select({
      status: paymentLinks.status,
      singleUse: paymentLinks.singleUse,
      expiresAt: paymentLinks.expiresAt,
      now: sql<Date>`clock_timestamp()`.mapWith((value: string | Date) => new Date(value)),
    })
    .from(paymentLinks)
    .where(eq(paymentLinks.id, linkId))
    .for('update');
  return row;
}

/**
 * Whether any active link is past its expires_at: one indexed probe, outside a transaction, so that
 * an expiry tick with nothing due costs one round trip (statement_timestamp(), stable, bounds the
 * scan of the partial index on expires_at).
 */
export async function anyLinkDue(db: Executor): Promise<boolean> {
  const [row] = await db
    .select({ id: paymentLinks.id })
    .from(paymentLinks)
    .where(and(eq(paymentLinks.status, 'active'), sql`${paymentLinks.expiresAt} <= statement_timestamp()`))
    .limit(1);
  return row !== undefined;
}

/** A single-use link's payment started less than `holdMinutes` ago and not finished (a double submit). */
export async function hasPaymentInFlight(
  tx: Executor,
  linkId: string,
  holdMinutes: number,
  exceptOrderCode?: string,
): Promise<boolean> {
  const [row] = await tx
    .select({ id: orders.id })
    .from(orders)
    .where(
      and(
        eq(orders.paymentLinkId, linkId),
        eq(orders.status, 'pending'),
        sql`${orders.createdAt} > clock_timestamp() - make_interval(mins => ${holdMinutes})`,
        ...(exceptOrderCode === undefined ? [] : [ne(orders.code, exceptOrderCode)]),
      ),
    )
    .limit(1);
  return row !== undefined;
}
