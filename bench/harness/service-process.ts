import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { isShuttingDown, registerCleanup } from './cleanup.js';
import { cpuSeconds, rssKb, sleep } from './util.js';

export type Role = 'web' | 'worker';

/** A process of the service that exited when nobody asked it to. */
export interface Death {
  role: Role;
  at: number;
  code: number | null;
  signal: string | null;
  /** The last error-level log lines and stderr output before it died. */
  evidence: string[];
}

export interface ServiceProcessOptions {
  role: Role;
  cwd: string;
  /** Entry point (`src/web.ts`, `workers/main.ts`), run through tsx unless `compiled`. */
  script: string;
  /** Run the build of `script` from `dist/` as the Procfile does (`node dist/src/web.js`). */
  compiled?: boolean;
  env: NodeJS.ProcessEnv;
  logFile: string;
  /** Resolves true once the process serves (web: /healthz answers). */
  ready?: () => Promise<boolean>;
  /** Or: ready once a line containing this has been printed since the start (worker). */
  readyLine?: string;
  readyTimeoutMs?: number;
}

const TAIL_LINES = 400;

/** One pino line made short: level, message, error type and message. Other lines pass unchanged. */
function condense(line: string): string {
  try {
    const parsed = JSON.parse(line) as {
      level?: number;
      time?: number;
      msg?: string;
      err?: { type?: string; message?: string; code?: string };
    };
    if (typeof parsed.level !== 'number') return line;
    const time = typeof parsed.time === 'number' ? new Date(parsed.time).toISOString().slice(11, 23) : '';
    // Query errors carry the whole SQL; the cause is at the end of the message.
    const message = (parsed.err?.message ?? '').replace(/\s+/g, ' ');
    const shortMessage = message.length > 200 ? `${message.slice(0, 60)} … ${message.slice(-120)}` : message;
    const err = parsed.err
      ? ` — ${parsed.err.type ?? 'Error'}${parsed.err.code ? ` ${parsed.err.code}` : ''}: ${shortMessage}`
      : '';
    return `${time} level ${parsed.level} ${parsed.msg ?? ''}${err}`;
  } catch {
    return line;
  }
}

const pinoLevel = (line: string): number | undefined => {
  try {
    const parsed = JSON.parse(line) as { level?: unknown };
    return typeof parsed.level === 'number' ? parsed.level : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Node's report of an uncaught exception (the trailing lines that are not pino JSON), kept to its
 * unindented lines (what was thrown, "Emitted 'error' event on …") and the first stack frame under
 * each; the inspected properties of the error object are left out.
 */
function condenseReport(lines: string[]): string[] {
  const kept: string[] = [];
  let frameAllowed = false;
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed.startsWith('at ')) {
      if (frameAllowed) kept.push(line);
      frameAllowed = false;
      continue;
    }
    const indented = /^\s/.test(line);
    const noise =
      trimmed === '' ||
      /^[{}^]$/.test(trimmed) ||
      trimmed.startsWith('Node.js v') ||
      trimmed.startsWith('[...');
    if (noise || (indented && !trimmed.startsWith('throw '))) continue;
    kept.push(line);
    frameAllowed = true;
  }
  return kept;
}

/**
 * A web or worker process of the service, started the way the Procfile starts it, with its output in
 * a log file. Exits it was not asked for are recorded as deaths with the log lines that explain them.
 */
export class ServiceProcess {
  readonly role: Role;
  readonly deaths: Death[] = [];
  onDeath: ((death: Death) => void) | undefined;
  private child: ChildProcess | undefined;
  private expectExit = false;
  private ready = false;
  private sawReadyLine = false;
  private readonly tail: string[] = [];
  private readonly log: WriteStream;
  private exitWaiters: Array<() => void> = [];

  constructor(private readonly options: ServiceProcessOptions) {
    this.role = options.role;
    this.log = createWriteStream(options.logFile, { flags: 'a' });
    registerCleanup({
      name: `${this.role} process`,
      run: () => this.stop(),
      force: () => {
        if (this.alive) this.child?.kill('SIGKILL');
      },
    });
  }

  get logFile(): string {
    return this.options.logFile;
  }

  get pid(): number | undefined {
    return this.alive ? this.child?.pid : undefined;
  }

  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  rssKb(): number | undefined {
    return rssKb(this.pid);
  }

  cpuSeconds(): number | undefined {
    return cpuSeconds(this.pid);
  }

  /** Starts the process and waits until it serves; rejects (with its last lines) if it exits first. */
  async start(): Promise<void> {
    if (this.alive) return;
    this.expectExit = false;
    this.ready = false;
    this.sawReadyLine = false;
    // Evidence is about this run of the process only.
    this.tail.length = 0;
    this.log.write(`\n----- ${new Date().toISOString()} harness: starting ${this.role} -----\n`);
    const args =
      this.options.compiled === true
        ? [path.join('dist', this.options.script.replace(/\.ts$/, '.js'))]
        : ['--import', 'tsx', this.options.script];
    const child = spawn(process.execPath, args, {
      cwd: this.options.cwd,
      env: this.options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream }).on('line', (line) => {
        this.log.write(`${line}\n`);
        this.tail.push(line);
        if (this.tail.length > TAIL_LINES) this.tail.shift();
        if (this.options.readyLine !== undefined && line.includes(this.options.readyLine))
          this.sawReadyLine = true;
      });
    }
    // 'close', not 'exit': only after the pipes are drained are the dying process's last lines in.
    const closed = new Promise<void>((resolve) => {
      child.once('close', (code, signal) => {
        resolve();
        const waiters = this.exitWaiters;
        this.exitWaiters = [];
        for (const wake of waiters) wake();
        this.log.write(
          `----- ${new Date().toISOString()} harness: ${this.role} exited (code ${String(code)}, signal ${String(signal)}) -----\n`,
        );
        if (!this.expectExit && this.ready && !isShuttingDown()) {
          const death: Death = { role: this.role, at: Date.now(), code, signal, evidence: this.evidence() };
          this.deaths.push(death);
          this.onDeath?.(death);
        }
      });
    });

    const deadline = Date.now() + (this.options.readyTimeoutMs ?? 60_000);
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) {
        await closed;
        throw new Error(
          `${this.role} exited before it was ready (code ${String(child.exitCode)}, signal ${String(child.signalCode)}):\n    ${this.evidence(6).join('\n    ')}`,
        );
      }
      const ready = this.options.ready ? await this.options.ready() : this.sawReadyLine;
      if (ready) {
        this.ready = true;
        return;
      }
      await sleep(100);
    }
    child.kill('SIGKILL');
    throw new Error(`${this.role} was not ready within ${this.options.readyTimeoutMs ?? 60_000} ms`);
  }

  /** Sends a signal the harness means (a fault or a stop): the exit is not a death. */
  async kill(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || !this.alive) return;
    this.expectExit = true;
    const exited = new Promise<void>((resolve) => this.exitWaiters.push(resolve));
    child.kill(signal);
    await exited;
  }

  /** SIGTERM (the service's graceful shutdown), SIGKILL after 10 s. */
  async stop(): Promise<void> {
    if (!this.alive) return;
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), 10_000);
    await this.kill('SIGTERM');
    clearTimeout(timer);
    await new Promise<void>((resolve) => this.log.end(resolve));
  }

  /** The last error-level log lines, then the crash report if the process printed one, condensed. */
  evidence(max = 14): string[] {
    const report: string[] = [];
    for (let i = this.tail.length - 1; i >= 0; i--) {
      const line = this.tail[i] ?? '';
      if (pinoLevel(line) !== undefined) break;
      report.unshift(line);
    }
    const errors = this.tail.filter((line) => (pinoLevel(line) ?? 0) >= 50).slice(-3);
    return [...errors.map(condense), ...condenseReport(report)].slice(-max).map((line) => {
      return line.length > 300 ? `${line.slice(0, 300)}…` : line;
    });
  }
}
