import pg from 'pg';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import * as schema from './schema.js';

export { schema };
export type Db = NodePgDatabase<typeof schema>;
/** A transaction handle; state-change functions take one so a caller can add its event to the commit. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Either the pool-backed database or an open transaction. */
export type Executor = Db | Tx;

export interface Database {
  pool: pg.Pool;
  db: Db;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /**
   * False behind a transaction-mode pooler: hot-path queries are still built once, but sent as
   * unnamed statements (see `statementName`), which any PgBouncer carries.
   */
  preparedStatements?: boolean;
}

/** Database handles whose queries must not be named prepared statements. */
const unnamedStatements = new WeakSet<Db>();

/**
 * The name to prepare a hot-path statement under on `db`: `name`, or the empty name (an unnamed
 * statement, parsed with each execution) when `db` sits behind a transaction-mode pooler. A named
 * statement lives in one server session, which such a pooler does not keep for a client.
 */
export function statementName(db: Db, name: string): string {
  return unnamedStatements.has(db) ? '' : name;
}

/**
 * Checks out `count` of the pool's connections at once (opening those it lacks) and runs `use` on
 * each through a handle of its own, then returns them to the pool. A named statement prepared
 * through such a handle stays prepared on its connection for the pool's later queries; behind a
 * transaction-mode pooler, statements stay unnamed as on `db`.
 */
export async function onEachConnection(
  database: { db: Db; pool: pg.Pool },
  count: number,
  use: (db: Db) => Promise<void>,
): Promise<void> {
  const clients = await Promise.all(Array.from({ length: count }, () => database.pool.connect()));
  try {
    await Promise.all(
      clients.map((client) => {
        const db = drizzle({ client, schema });
        if (unnamedStatements.has(database.db)) unnamedStatements.add(db);
        return use(db);
      }),
    );
  } finally {
    for (const client of clients) client.release();
  }
}

export function createDatabase(url: string, max = 20, options: DatabaseOptions = {}): Database {
  // A request never waits long for a connection: an unreachable server is a 503 within seconds.
  const pool = new pg.Pool({
    connectionString: url,
    max,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
  });
  // A client losing its server (PostgreSQL restarted) emits 'error'. The pool listens on idle clients
  // only; a client checked out for a transaction has no listener, and an unheard 'error' event kills
  // the process. Every client gets its own listener for its whole life; the query in flight fails
  // on its own and the pool replaces the client.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  const db = drizzle({ client: pool, schema });
  if (options.preparedStatements === false) unnamedStatements.add(db);
  return {
    pool,
    db,
    close: () => pool.end(),
  };
}
