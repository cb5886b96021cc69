import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../../src/infra/free-port.js';
import { postgresUser, runsAsRoot } from '../../src/infra/postgres-as-root.js';
import { startSupervised, type SupervisedProcess } from '../../src/infra/supervised.js';
import { eventually } from './eventually.js';

const run = promisify(execFile);

/** Debian installs it in /usr/sbin, which a non-root PATH often lacks. */
const CANDIDATES = ['pgbouncer', '/usr/sbin/pgbouncer'];

/** The `pgbouncer` binary, if the machine has one (`.ci/run` installs Debian's when it is missing). */
export async function findPgBouncer(): Promise<string | undefined> {
  for (const candidate of CANDIDATES) {
    const works = await run(candidate, ['--version']).then(
      () => true,
      () => false,
    );
    if (works) return candidate;
  }
  return undefined;
}

export interface PgBouncerOptions {
  /** The PostgreSQL it pools, as a URL (its user and password log in to the server). */
  serverUrl: string;
  /** Server connections per database and user: small, so that clients really share them. */
  poolSize: number;
}

/**
 * A real PgBouncer in transaction pooling mode in front of a PostgreSQL, on a free loopback port,
 * with its config in a fresh folder removed by `stop()`. As root it runs as the `postgres` user
 * (PgBouncer refuses root), so its folder is readable by that user.
 */
export class LocalPgBouncer {
  port = 0;
  private dir = '';
  private child: SupervisedProcess | undefined;
  private readonly user: string;
  private readonly password: string;

  constructor(
    private readonly binary: string,
    private readonly options: PgBouncerOptions,
  ) {
    const url = new URL(options.serverUrl);
    this.user = decodeURIComponent(url.username);
    this.password = decodeURIComponent(url.password);
  }

  /** `serverUrl` with PgBouncer's address in place of the server's (same database, same user). */
  urlFor(serverUrl: string): string {
    const url = new URL(serverUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  async start(): Promise<void> {
    const server = new URL(this.options.serverUrl);
    this.port = await freePort();
    this.dir = await mkdtemp(path.join(os.tmpdir(), 'plinks-pgbouncer-'));
    await chmod(this.dir, 0o755);
    const quote = (s: string): string => `"${s.replace(/"/g, '""')}"`;
    await writeFile(path.join(this.dir, 'users.txt'), `${quote(this.user)} ${quote(this.password)}\n`, {
      mode: 0o644,
    });
    await writeFile(
      path.join(this.dir, 'pgbouncer.ini'),
      [
        '[databases]',
        // Every database of the server, under its own name.
        `* = host=${server.hostname} port=${server.port || '5432'}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${this.port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${path.join(this.dir, 'users.txt')}`,
        `admin_users = ${this.user}`,
        'pool_mode = transaction',
        `default_pool_size = ${this.options.poolSize}`,
        'min_pool_size = 0',
        'reserve_pool_size = 0',
        'max_client_conn = 500',
        'server_reset_query =',
        'ignore_startup_parameters = extra_float_digits',
        `logfile = ${path.join(this.dir, 'pgbouncer.log')}`,
        '',
      ].join('\n'),
      { mode: 0o644 },
    );
    const owner = runsAsRoot() ? await postgresUser() : undefined;
    if (owner) await run('chown', [`${owner.uid}:${owner.gid}`, this.dir]);
    this.child = startSupervised({
      command: this.binary,
      args: [path.join(this.dir, 'pgbouncer.ini')],
      ...(owner ? { uid: owner.uid, gid: owner.gid } : {}),
      stopSignal: 'SIGINT',
      graceMs: 5000,
    });
    this.child.stdout.resume();
    this.child.stderr.resume();
    let lastError = 'no attempt yet';
    try {
      await eventually(
        async () => {
          const client = new pg.Client({ connectionString: this.urlFor(this.options.serverUrl) });
          try {
            await client.connect();
            await client.query('SELECT 1');
            await client.end();
            return true;
          } catch (err) {
            await client.end().catch(() => undefined);
            lastError = (err as Error).message;
            return undefined;
          }
        },
        15_000,
        'PgBouncer to answer',
        100,
      );
    } catch (err) {
      await this.stop();
      throw new Error(`PgBouncer did not answer on ${this.port}: ${lastError}`, { cause: err });
    }
  }

  /** Rows of an admin console command (`SHOW POOLS`, `SHOW STATS`…). */
  async show(what: 'POOLS' | 'STATS' | 'SERVERS'): Promise<Array<Record<string, unknown>>> {
    const url = new URL(this.urlFor(this.options.serverUrl));
    url.pathname = '/pgbouncer';
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      // The admin console speaks the simple protocol only: a query without parameters.
      return (await client.query<Record<string, unknown>>(`SHOW ${what}`)).rows;
    } finally {
      await client.end();
    }
  }

  async stop(): Promise<void> {
    await this.child?.stop();
    this.child = undefined;
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }
}
