import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { isStoreUnavailable } from '../availability.js';
import type { Logger } from '../logger.js';

/** Folder of the versioned SQL migrations, found from both `src/` (tsx) and `dist/src/` (built). */
export function migrationsDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const up = here.includes(`${path.sep}dist${path.sep}`) ? '../../../..' : '../../..';
  return path.resolve(here, up, 'migrations');
}

// Any 64-bit number works; it only has to be the same for every process running migrations.
export const MIGRATION_LOCK = 727_001;

/**
 * First line of a migration that must run outside a transaction (`CREATE INDEX CONCURRENTLY`, which
 * builds an index without holding writes to its table, refuses to run inside one). Its statements,
 * each ending with `;` at the end of a line, run one by one; it is recorded once the last succeeded,
 * so one that failed half-way runs again from its first statement: each must be safe to repeat.
 */
const NO_TRANSACTION = /^--\s*migrate:\s*no transaction\b/i;

/**
 * Takes the migration lock, asking again every 100 ms rather than waiting inside one statement: a
 * process waiting in `pg_advisory_lock` holds a snapshot, which `CREATE INDEX CONCURRENTLY` in the
 * lock holder's migration waits for, while the waiter waits for the lock (a deadlock PostgreSQL
 * breaks by failing one of them). Between two tries a waiting process holds nothing.
 */
async function lockMigrations(client: pg.PoolClient): Promise<void> {
  for (;;) {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
      MIGRATION_LOCK,
    ]);
    if (rows[0]?.locked) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The statements of a no-transaction migration, comments-only pieces left out. */
function statementsOf(sql: string): string[] {
  return sql
    .split(/;[ \t]*$/m)
    .map((piece) => piece.trim())
    .filter((piece) => piece.replace(/^--.*$/gm, '').trim() !== '');
}

/**
 * Applies every migration not yet recorded, each in its own transaction (but those marked
 * `-- migrate: no transaction`), under an advisory lock so that web and worker processes starting
 * together do not race. Returns the versions applied.
 */
export async function migrate(pool: pg.Pool, dir = migrationsDir()): Promise<string[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await lockMigrations(client);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set(
      (await client.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map(
        (r) => r.version,
      ),
    );
    for (const file of files) {
      const version = file.replace(/\.sql$/, '');
      if (done.has(version)) continue;
      const sql = await readFile(path.join(dir, file), 'utf8');
      const inTransaction = !NO_TRANSACTION.test(sql);
      if (inTransaction) await client.query('BEGIN');
      try {
        for (const statement of inTransaction ? [sql] : statementsOf(sql)) await client.query(statement);
        await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
        if (inTransaction) await client.query('COMMIT');
      } catch (err) {
        if (inTransaction) await client.query('ROLLBACK');
        throw new Error(`Migration ${file} failed: ${(err as Error).message}`, { cause: err });
      }
      applied.push(version);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    client.release();
  }
  return applied;
}

/**
 * `migrate`, waiting for PostgreSQL to become reachable (a release step or `npm start` racing the
 * database's own start): retries every 2 s for up to `waitMs`, saying so, then gives up with one
 * sentence naming what to check.
 */
export async function migrateWhenReachable(
  pool: pg.Pool,
  logger: Logger,
  waitMs = 60_000,
): Promise<string[]> {
  const deadline = Date.now() + waitMs;
  for (let attempt = 1; ; attempt++) {
    try {
      const applied = await migrate(pool);
      logger.info(
        { applied },
        applied.length > 0 ? `applied ${applied.length} migration(s)` : 'database schema is up to date',
      );
      return applied;
    } catch (err) {
      if (!isStoreUnavailable(err)) throw err;
      if (Date.now() >= deadline) {
        throw new Error(
          `PostgreSQL was not reachable for ${Math.round(waitMs / 1000)} s; check DATABASE_URL and that the server is running`,
          { cause: err },
        );
      }
      logger.warn({ attempt }, 'PostgreSQL is not reachable yet; retrying in 2 s');
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
}
