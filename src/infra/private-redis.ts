import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { freePort } from './free-port.js';
import { StartupError } from './startup-error.js';
import { OwnedChild, SPAWN_FAILED } from './supervised.js';

export class RedisServerMissingError extends StartupError {
  override name = 'RedisServerMissingError';
  constructor() {
    super(
      'REDIS_URL is not set and no redis-server was found on PATH. Install one ' +
        '(Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis) or set REDIS_URL.',
    );
  }
}

export interface PrivateRedisOptions {
  /** Working directory; with `persist` the append-only file lives here. */
  dir: string;
  port?: number;
  persist?: boolean;
}

const PID_FILE = 'redis-server.pid';
/** Beside the pid file: where the running server listens, for the CLI of the same DATA_DIR. */
const URL_FILE = 'redis-server.url';

/** The pid of the redis-server named in the folder's pid file, if it still runs (redis removes the file when it stops). */
async function runningServerPid(dir: string): Promise<number | undefined> {
  const pid = Number((await readFile(path.join(dir, PID_FILE), 'utf8').catch(() => '')).trim());
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return undefined;
  }
  // On Linux, make sure the pid was not reused by something else since (after a reboot, say).
  const name = await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => 'redis-server');
  return name.startsWith('redis-server') ? pid : undefined;
}

/** Two servers appending to one append-only file corrupt it: a persistent folder in use is refused. */
async function refuseSharedDir(dir: string): Promise<void> {
  const pid = await runningServerPid(dir);
  if (pid === undefined) return;
  throw new StartupError(
    `${dir} is used by a running redis-server (pid ${pid}) of another instance of this service: stop that instance, set REDIS_URL to share its Redis, or give this one its own DATA_DIR.`,
  );
}

/**
 * The URL of the private redis-server a running service started in `dir` (its persistent folder,
 * DATA_DIR/redis), so that the CLI reaches the same Redis as `npm start` without REDIS_URL.
 */
export async function runningPrivateRedisUrl(dir: string): Promise<string | undefined> {
  if ((await runningServerPid(dir)) === undefined) return undefined;
  const url = (await readFile(path.join(dir, URL_FILE), 'utf8').catch(() => '')).trim();
  return /^redis:\/\/127\.0\.0\.1:\d+$/.test(url) ? url : undefined;
}

/** A redis-server child process owned by this process, on loopback only; it cannot outlive it. */
export class PrivateRedis {
  private readonly child = new OwnedChild();
  port = 0;

  constructor(private readonly options: PrivateRedisOptions) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (this.child.running) return;
    await mkdir(this.options.dir, { recursive: true });
    if (this.options.persist) await refuseSharedDir(this.options.dir);
    this.port = this.port || this.options.port || (await freePort());
    const args = [
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      this.options.persist ? 'yes' : 'no',
      '--dir',
      this.options.dir,
      '--protected-mode',
      'yes',
      ...(this.options.persist ? ['--pidfile', path.join(path.resolve(this.options.dir), PID_FILE)] : []),
    ];
    await this.child.start(
      { command: 'redis-server', args, stopSignal: 'SIGTERM', graceMs: 10_000 },
      (output) => output.includes('Ready to accept connections'),
      (code, output) =>
        code === SPAWN_FAILED.ENOENT
          ? new RedisServerMissingError()
          : new Error(
              `redis-server exited with code ${String(code)} before it was ready: ${output.slice(-500)}`,
            ),
    );
    if (this.options.persist) await writeFile(path.join(this.options.dir, URL_FILE), `${this.url}\n`);
  }

  /** Stops the server; `start()` afterwards brings it back on the same port. */
  stop(): Promise<void> {
    return this.child.stop();
  }
}
