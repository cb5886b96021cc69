import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** What the supervisor program (`supervisor.ts`) runs and how it stops it. */
export interface SupervisorSpec {
  command: string;
  args: string[];
  cwd?: string;
  /** Run the child as this user and group (root starting PostgreSQL as `postgres`). */
  uid?: number;
  gid?: number;
  /** First signal on stop (PostgreSQL: SIGINT, its fast shutdown); SIGKILL follows after `graceMs`. */
  stopSignal: NodeJS.Signals;
  graceMs: number;
}

/** Exit codes of the supervisor when its child could not be started at all (shell conventions). */
export const SPAWN_FAILED = { ENOENT: 127, EACCES: 126, OTHER: 125 } as const;

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A child process that cannot outlive this one (see `supervisor.ts`). */
export interface SupervisedProcess {
  /** The supervisor's pid; the child runs in its process group. */
  readonly pid: number;
  /** The child's own output. */
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Settles once the supervisor has exited, which it does only after its child has. */
  readonly exited: Promise<ExitStatus>;
  /** Stops the child (its stop signal, SIGKILL after the grace period) and waits for both to exit. */
  stop(): Promise<ExitStatus>;
}

const self = fileURLToPath(import.meta.url);
const program = path.join(path.dirname(self), `supervisor${path.extname(self)}`);
/**
 * Under tsx (npm start, tests) the program is TypeScript like this file; built code runs it with plain
 * node. tsx is found through its package.json (its "." export is the loader): that works whether this
 * module was loaded as ESM or through require(), where tsx gives `import.meta` no `resolve`.
 */
function loader(): string[] {
  if (path.extname(self) !== '.ts') return [];
  const tsx = path.dirname(createRequire(self).resolve('tsx/package.json'));
  return ['--import', pathToFileURL(path.join(tsx, 'dist', 'loader.mjs')).href];
}

export function startSupervised(
  spec: SupervisorSpec,
  env: NodeJS.ProcessEnv = process.env,
): SupervisedProcess {
  const supervisor = spawn(process.execPath, [...loader(), program, JSON.stringify(spec)], {
    stdio: ['pipe', 'pipe', 'pipe'],
    // A session of its own: Ctrl-C in a terminal reaches the service alone, which then stops its
    // children in order (after finishing in-flight work) instead of losing them all at once.
    detached: process.platform !== 'win32',
    env,
  });
  const exited = new Promise<ExitStatus>((resolve) => {
    supervisor.once('error', () => resolve({ code: SPAWN_FAILED.OTHER, signal: null }));
    supervisor.once('exit', (code, signal) => resolve({ code, signal }));
  });
  // Writing nothing, the lifeline can only fail with EPIPE once the supervisor is gone: nothing to do.
  supervisor.stdin.on('error', () => undefined);
  return {
    pid: supervisor.pid ?? 0,
    stdout: supervisor.stdout,
    stderr: supervisor.stderr,
    exited,
    stop() {
      supervisor.stdin.end();
      return exited;
    },
  };
}

/**
 * The one child process a private server (redis-server, the e-mail inbox) owns: started and waited
 * for until its output says it is ready, forgotten once it exits, stopped on demand.
 */
export class OwnedChild {
  private child: SupervisedProcess | undefined;

  get running(): boolean {
    return this.child !== undefined;
  }

  /**
   * Starts `spec` and waits until what it has written says it is ready (`ready`, read over its last
   * few kB of output), then keeps draining its output so a chatty child never blocks on a full pipe.
   * A child that exits first is stopped, and `failure` (its exit code, its last output) is thrown.
   */
  async start(
    spec: SupervisorSpec,
    ready: (output: string) => boolean,
    failure: (code: number | null, output: string) => Error,
  ): Promise<void> {
    const child = startSupervised(spec);
    this.child = child;
    let output = '';
    const onData = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-4000);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    try {
      await new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (!ready(output)) return;
          child.stdout.off('data', check);
          resolve();
        };
        child.stdout.on('data', check);
        void child.exited.then(({ code }) => {
          child.stdout.off('data', check);
          reject(failure(code, output));
        });
      });
    } catch (err) {
      this.child = undefined;
      await child.stop();
      throw err;
    } finally {
      child.stdout.off('data', onData);
      child.stderr.off('data', onData);
      child.stdout.resume();
      child.stderr.resume();
    }
    void child.exited.then(() => {
      if (this.child === child) this.child = undefined;
    });
  }

  /** Stops the child (its stop signal, then SIGKILL after its grace) and waits for it to exit. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    await child.stop();
  }
}
