/**
 * PostgreSQL refuses to run as root, so as root the embedded cluster runs as the `postgres` OS
 * user, created when the machine has none.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { StartupError } from './startup-error.js';

const run = promisify(execFile);

export interface OsUser {
  uid: number;
  gid: number;
}

export const runsAsRoot = (): boolean => process.platform !== 'win32' && process.getuid?.() === 0;

async function lookupUser(name: string): Promise<OsUser | undefined> {
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]);
    return { uid: Number.parseInt(uid.stdout, 10), gid: Number.parseInt(gid.stdout, 10) };
  } catch {
    return undefined;
  }
}

/** The `postgres` OS user, created (as a system user without a home) when the machine has none. */
export async function postgresUser(): Promise<OsUser> {
  const found = await lookupUser('postgres');
  if (found) return found;
  try {
    const group = await run('getent', ['group', 'postgres']).then(
      () => true,
      () => false,
    );
    if (!group) await run('groupadd', ['--system', 'postgres']);
    await run('useradd', ['--system', '--gid', 'postgres', '--no-create-home', 'postgres']);
  } catch (err) {
    throw new StartupError(
      `The embedded PostgreSQL cannot run: as root it must run as a "postgres" OS user, and creating one failed (${firstLine(err)}); create that user, run as another user, or set DATABASE_URL to a PostgreSQL server.`,
    );
  }
  const created = await lookupUser('postgres');
  if (!created)
    throw new StartupError('The "postgres" OS user was created but cannot be found: set DATABASE_URL.');
  return created;
}

function firstLine(err: unknown): string {
  const failure = err as { stderr?: unknown; message?: unknown };
  const text =
    typeof failure.stderr === 'string' && failure.stderr ? failure.stderr : String(failure.message);
  return text.trim().split('\n')[0] ?? '';
}

export interface Binaries {
  /** The package's `native` folder: bin/, lib/, share/. */
  native: string;
  postgres: string;
  initdb: string;
}

export const binariesIn = (native: string): Binaries => {
  const exe = process.platform === 'win32' ? '.exe' : '';
  return {
    native,
    postgres: path.join(native, 'bin', `postgres${exe}`),
    initdb: path.join(native, 'bin', `initdb${exe}`),
  };
};
