import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { freePort } from './free-port.js';

export class RedisServerMissingError extends Error {
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

/** A redis-server child process owned by this process, on loopback only. */
export class PrivateRedis {
  private child: ChildProcess | undefined;
  port = 0;

  constructor(private readonly options: PrivateRedisOptions) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (this.child) return;
    await mkdir(this.options.dir, { recursive: true });
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
    ];
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const onData = (chunk: Buffer): void => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          child.stdout?.off('data', onData);
          resolve();
        }
      };
      child.stdout?.on('data', onData);
      child.once('error', (err: NodeJS.ErrnoException) => {
        this.child = undefined;
        reject(err.code === 'ENOENT' ? new RedisServerMissingError() : err);
      });
      child.once('exit', (code) => {
        this.child = undefined;
        reject(
          new Error(
            `redis-server exited with code ${String(code)} before it was ready: ${output.slice(-500)}`,
          ),
        );
      });
    });
    child.stdout?.resume();
    child.stderr?.resume();
    child.removeAllListeners('exit');
    child.once('exit', () => {
      if (this.child === child) this.child = undefined;
    });
  }

  /** Stops the server; `start()` afterwards brings it back on the same port. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }
}
