import type { Db } from './index.js';

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
