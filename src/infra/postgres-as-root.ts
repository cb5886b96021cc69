/**
 * PostgreSQL refuses to run as root, so as root the embedded cluster runs as the `postgres` OS
 * user. That user must be able to enter every folder on the way to the binaries and to the data
 * folder, which a checkout under /root (mode 700), a `mktemp -d` folder or any private folder
 * forbids. Here such paths are replaced by reachable ones: the binaries by a copy in a shared
 * cache, the data folder by a folder under /var/lib that DATA_DIR/pg links to (the record of
 * where the data is). Paths the user can already reach are used as they are.
 */
import { execFile } from 'node:child_process';
import {
  chmod,
  chown,
  cp,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  realpath,
  rename,
  rm,
  rmdir,
  symlink,
  unlink,
} from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { StartupError } from './startup-error.js';

const run = promisify(execFile);

export interface OsUser {
  uid: number;
  gid: number;
}

/** Where root keeps what the `postgres` user must reach (FHS: a regenerable cache, state data). */
export const ROOT_DIRS = {
  binaries: '/var/cache/payment-links',
  clusters: '/var/lib/payment-links',
};

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

/**
 * Whether `user` can reach `target` with `test -x`: search permission on every folder on the way,
 * and execute permission on the target itself. Asked of the kernel as that user, so modes, ACLs
 * and mount options all count exactly as they will for PostgreSQL.
 */
export async function canReach(user: OsUser, target: string): Promise<boolean> {
  try {
    await run('/bin/sh', ['-c', 'test -x "$1"', 'sh', target], {
      uid: user.uid,
      gid: user.gid,
      cwd: '/',
      timeout: 10_000,
    });
    return true;
  } catch {
    return false;
  }
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

async function chmodTree(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) await chmodTree(path.join(dir, entry.name));
  }
}

/**
 * The binaries themselves when `user` can run them; otherwise a copy under `cacheRoot/<key>` (about
 * 60 MB, copied once per package version, then reused). Concurrent starts each copy into a staging
 * folder and rename it into place: the first rename wins and the others discard their copy; a copy
 * is never removed while it can be run.
 */
export async function reachableBinaries(
  binaries: Binaries,
  user: OsUser,
  cacheKey: string,
  cacheRoot = ROOT_DIRS.binaries,
): Promise<Binaries> {
  if (await canReach(user, binaries.postgres)) return binaries;
  const cached = binariesIn(path.join(cacheRoot, cacheKey));
  if (await canReach(user, cached.postgres)) return cached;
  const unreachable = (why: string): StartupError =>
    new StartupError(
      `The embedded PostgreSQL cannot run: as root it runs as the "postgres" OS user, who cannot enter ${binaries.native} (a folder above it is private), and copying the binaries to ${cacheRoot} failed (${why}); move the project to a folder every user can enter, or set DATABASE_URL to a PostgreSQL server.`,
    );
  try {
    await mkdir(cacheRoot, { recursive: true });
    await chmod(cacheRoot, 0o755);
    const staging = await mkdtemp(path.join(cacheRoot, `.${cacheKey}-`));
    try {
      await cp(binaries.native, staging, { recursive: true, verbatimSymlinks: true });
      await chmodTree(staging);
      await rename(staging, cached.native).catch(async (err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST' && err.code !== 'ENOTEMPTY') throw err;
        if (await canReach(user, cached.postgres)) return; // another start copied it meanwhile
        // A copy that cannot be run (its modes changed since): set it aside, put ours in place.
        const aside = await mkdtemp(path.join(cacheRoot, `.${cacheKey}-broken-`));
        await rename(cached.native, path.join(aside, 'native'));
        await rename(staging, cached.native);
        await rm(aside, { recursive: true, force: true });
      });
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  } catch (err) {
    throw unreachable(firstLine(err));
  }
  if (!(await canReach(user, cached.postgres)))
    throw unreachable(`the "postgres" user cannot enter ${cacheRoot}`);
  return cached;
}

/**
 * The folder the cluster really lives in. `requested` itself when `user` can enter its parent (as
 * before); a symbolic link there is followed (the record of an earlier relocation); otherwise a new
 * folder under `clustersRoot`, owned by `user`, with `requested` made a link to it.
 */
export async function reachableDataDir(
  requested: string,
  user: OsUser,
  clustersRoot = ROOT_DIRS.clusters,
): Promise<string> {
  await mkdir(path.dirname(requested), { recursive: true });
  const found = await lstat(requested).catch(() => undefined);
  if (found?.isSymbolicLink()) {
    const target = await realpath(requested).catch(() => undefined);
    if (target === undefined) {
      // The folder it pointed at is gone: start afresh, as after deleting DATA_DIR/pg.
      await unlink(requested);
    } else if (await canReach(user, path.dirname(target))) {
      return target;
    } else {
      throw unreachableCluster(requested);
    }
  } else if (found) {
    if (await canReach(user, path.dirname(await realpath(requested)))) return requested;
    if ((await readdir(requested)).length > 0) throw unreachableCluster(requested);
    await rmdir(requested);
  } else if (await canReach(user, await realpath(path.dirname(requested)))) {
    return requested;
  }

  try {
    await mkdir(clustersRoot, { recursive: true });
    await chmod(clustersRoot, 0o755);
  } catch (err) {
    throw new StartupError(
      `The embedded PostgreSQL cannot run: as root it runs as the "postgres" OS user, who cannot enter ${path.dirname(requested)}, and ${clustersRoot} cannot be created for its data (${firstLine(err)}); set DATA_DIR to a folder every user can enter, or DATABASE_URL to a PostgreSQL server.`,
    );
  }
  if (!(await canReach(user, clustersRoot))) {
    throw new StartupError(
      `The embedded PostgreSQL cannot run: as root it runs as the "postgres" OS user, who can enter neither ${path.dirname(requested)} nor ${clustersRoot}; set DATA_DIR to a folder every user can enter, or DATABASE_URL to a PostgreSQL server.`,
    );
  }
  // Named after the end of its path (`my-project-data-pg-…`): a look at the folder says whose it is.
  const label = requested
    .split(path.sep)
    .slice(-3)
    .map((part) => part.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[.-]+|[.-]+$/g, ''))
    .filter(Boolean)
    .join('-');
  const target = await mkdtemp(path.join(clustersRoot, `${label || 'pg'}-`));
  await chown(target, user.uid, user.gid);
  try {
    await symlink(target, requested);
  } catch (err) {
    await rm(target, { recursive: true, force: true });
    // Another process (the CLI starting with the service) relocated it first: use its folder.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      return reachableDataDir(requested, user, clustersRoot);
    throw err;
  }
  return target;
}

const unreachableCluster = (dir: string): StartupError =>
  new StartupError(
    `The embedded PostgreSQL cannot run: ${dir} holds a cluster, but as root PostgreSQL runs as the "postgres" OS user, who cannot enter it (a folder above it is private); move DATA_DIR to a folder every user can enter (and the cluster with it), or set DATABASE_URL.`,
  );
