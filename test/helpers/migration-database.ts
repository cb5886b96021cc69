import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { migrate, migrationsDir } from '../../src/shared/db/migrate.js';
import { randomBase62 } from '../../src/shared/ids.js';
import { testEnvironment } from './environment.js';

/** One statement on the run's server, on a connection of its own (closed at once). */
async function onServer(statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: testEnvironment().databaseUrl });
  admin.on('error', () => undefined);
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

export interface MigrationDatabase {
  pool: pg.Pool;
  /** Its connection string, for a connection of a test's own. */
  url: string;
  /** Migrates up to, not including, `migration` (the first call), then with it (once added). */
  migrate(): Promise<string[]>;
  /** Adds `migration` to the folder migrated from. */
  addMigration(): Promise<void>;
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]>;
}

/**
 * A database of its own on the run's server, migrated from a folder holding the migrations before
 * `migration`, so a test can give it rows from before that migration and then migrate on. Call it
 * inside a `describe`: it creates the database before the suite and drops it after.
 */
export function databaseBefore(migration: string): () => MigrationDatabase {
  const name = `plinks_mig_${randomBase62(8).toLowerCase()}`;
  let dir = '';
  let pool: pg.Pool | undefined;
  let url = '';
  before(async () => {
    await onServer(`CREATE DATABASE "${name}"`);
    const server = new URL(testEnvironment().databaseUrl);
    server.pathname = `/${name}`;
    url = server.toString();
    pool = new pg.Pool({ connectionString: url, max: 2 });
    pool.on('error', () => undefined);
    dir = await mkdtemp(path.join(os.tmpdir(), 'plinks-migrations-'));
    for (const file of await readdir(migrationsDir())) {
      if (file.endsWith('.sql') && file < migration)
        await copyFile(path.join(migrationsDir(), file), path.join(dir, file));
    }
  });
  after(async () => {
    await pool?.end();
    await onServer(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await rm(dir, { recursive: true, force: true });
  });
  return () => {
    if (!pool) throw new Error('the migration database is not ready');
    const ready = pool;
    return {
      pool: ready,
      url,
      migrate: () => migrate(ready, dir),
      addMigration: () =>
        copyFile(path.join(migrationsDir(), `${migration}.sql`), path.join(dir, `${migration}.sql`)),
      query: async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
        (await ready.query<R>(text, values)).rows,
    };
  };
}
