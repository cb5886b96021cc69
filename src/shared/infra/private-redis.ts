import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { freePort } from './free-port.js';
import { StartupError } from './startup-error.js';
import { startSupervised, SPAWN_FAILED, type SupervisedProcess } from './supervised.js';

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

/**
 * Two servers appending to one append-only file corrupt it, so a persistent folder is refused
 * while the redis-server named in its pid file still runs (redis removes the file when it stops).
 */
async function refuseSharedDir(dir: string): Promise<void> {
  const pid = Number((await readFile(path.join(dir, PID_FILE), 'utf8').catch(() => '')).trim());
  if (!Number.isSafeInteger(pid) || pid <= 0) return;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return;
  }
  // On Linux, make sure the pid was not reused by something else since (after a reboot, say).
  const name = await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => 'redis-server');
  if (!name.startsWith('redis-server')) return;
  throw new StartupError(
    `${dir} is used by a running redis-server (pid ${pid}) of another instance of this service: stop that instance, set REDIS_URL to share its Redis, or give this one its own DATA_DIR.`,
  );
}

/** A redis-server child process owned by this process, on loopback only; it cannot outlive it. */
export class PrivateRedis {
  private child: SupervisedProcess | undefined;
  port = 0;

  constructor(private readonly options: PrivateRedisOptions) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (this.child) return;
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
    const child = startSupervised({ command: 'redis-server', args, stopSignal: 'SIGTERM', graceMs: 10_000 });
    this.child = child;
    let output = '';
    const onData = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-2000);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    try {
      await new Promise<void>((resolve, reject) => {
        const ready = (): void => {
          if (!output.includes('Ready to accept connections')) return;
          child.stdout.off('data', ready);
          resolve();
        };
        child.stdout.on('data', ready);
        void child.exited.then(({ code }) => {
          child.stdout.off('data', ready);
          reject(
            code === SPAWN_FAILED.ENOENT
              ? new RedisServerMissingError()
              : new Error(
                  `redis-server exited with code ${String(code)} before it was ready: ${output.slice(-500)}`,
                ),
          );
        });
      });
    } catch (err) {
      this.child = undefined;
      await child.stop();
      throw err;
    }
    // Keep draining its output so a chatty server never blocks on a full pipe.
    child.stdout.off('data', onData);
    child.stderr.off('data', onData);
    child.stdout.resume();
    child.stderr.resume();
    void child.exited.then(() => {
      if (this.child === child) this.child = undefined;
    });
  }

  /** Stops the server; `start()` afterwards brings it back on the same port. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    await child.stop();
  }
}
