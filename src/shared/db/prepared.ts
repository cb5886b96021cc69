import type { Db } from './index.js';

/**
 * Hot-path queries run as named prepared statements, built once per database handle: building a
 * query per request costs more CPU than PostgreSQL spends running it, and a prepared statement
 * also skips parsing and planning.
 */
export function preparedOn<T>(cache: WeakMap<Db, T>, db: Db, build: (db: Db) => T): T {
  let prepared = cache.get(db);
  if (!prepared) {
    prepared = build(db);
    cache.set(db, prepared);
  }
  return prepared;
}
