import { getTableColumns, type Assume, type InferSelectModel, type SQL } from 'drizzle-orm';
import { PgDialect, PgTransaction, type PgTable, type PreparedQueryConfig } from 'drizzle-orm/pg-core';
import type { QueryResult, QueryResultRow } from 'pg';
import { statementName, type Db, type Executor } from './index.js';

/**
 * Hot-path queries run as prepared statements, built once per database handle: building a
 * query per request costs more CPU than PostgreSQL spends running it, and a named prepared
 * statement also skips parsing and planning (name it with `statementName`: behind a
 * transaction-mode pooler it is sent unnamed).
 */
export function preparedOn<T>(cache: WeakMap<Db, T>, db: Db, build: (db: Db) => T): T {
  let prepared = cache.get(db);
  if (!prepared) {
    prepared = build(db);
    cache.set(db, prepared);
  }
  return prepared;
}

/**
 * The distinct values of a batched lookup that a text column could hold. A value holding U+0000
 * would make PostgreSQL refuse the whole statement, failing every lookup of the batch; it matches
 * no row, so it is left out and its lookup finds nothing.
 */
export const storable = (values: string[]): string[] =>
  [...new Set(values)].filter((value) => !value.includes('\u0000'));

const dialect = new PgDialect();

/**
 * Runs a raw statement of the engine's hot path as a named prepared statement on the pool's
 * connections, so PostgreSQL parses and plans its text once per connection instead of at every run
 * (for a statement of many CTEs, planning costs more than running it). The text must not vary from
 * call to call: values go in as parameters. Inside a transaction, or behind a transaction-mode
 * pooler (see `statementName`), it runs unnamed, as `execute` would.
 */
export function executeNamed<Row extends Record<string, unknown>>(
  executor: Executor,
  name: string,
  query: SQL,
): Promise<QueryResult<Assume<Row, QueryResultRow>>> {
  if (executor instanceof PgTransaction) return executor.execute<Row>(query);
  const { sql: text, params } = dialect.sqlToQuery(query);
  const prepared = executor._.session.prepareQuery<
    PreparedQueryConfig & { execute: QueryResult<Assume<Row, QueryResultRow>> }
  >({ sql: text, params }, undefined, statementName(executor, name), false);
  return prepared.execute();
}

/** A raw statement prepared once: `execute` fills its placeholders (`sql.placeholder`) per call. */
export interface NamedStatement<Row> {
  execute(values: Record<string, unknown>): Promise<QueryResult<Assume<Row, QueryResultRow>>>;
}

/**
 * `executeNamed` for a statement of the request path: its text is built from Drizzle's SQL once per
 * database handle (building and rendering it costs more CPU than PostgreSQL spends running it), and
 * each call only fills in the values.
 */
export function prepareNamed<Row extends Record<string, unknown>>(
  db: Db,
  name: string,
  query: SQL,
): NamedStatement<Row> {
  const { sql: text, params } = dialect.sqlToQuery(query);
  return db._.session.prepareQuery<
    PreparedQueryConfig & { execute: QueryResult<Assume<Row, QueryResultRow>> }
  >({ sql: text, params }, undefined, statementName(db, name), false);
}

/**
 * A row of `table` read by a raw statement (`RETURNING *` through `executeNamed`), as Drizzle's own
 * queries give it: each column under its property name, through the column's own decoding.
 */
export function tableRow<T extends PgTable>(table: T, raw: Record<string, unknown>): InferSelectModel<T> {
  const row: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const value = raw[column.name];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as InferSelectModel<T>;
}
