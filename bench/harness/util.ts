import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

/** Epoch milliseconds with the sub-millisecond part: comparable across processes on one machine. */
export const epochNow = (): number => performance.timeOrigin + performance.now();

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves once `done()` holds, checking every 5 ms; rejects after `timeoutMs`, naming `what`.
 * `progress`, when given, is called every 2 s while it waits (a long drain says where it is).
 */
export async function waitFor(
  what: string,
  done: () => boolean,
  timeoutMs: number,
  progress?: () => void,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastProgress = Date.now();
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    if (progress && Date.now() - lastProgress > 2000) {
      progress();
      lastProgress = Date.now();
    }
    await sleep(5);
  }
}

/** Nearest-rank percentile of an ascending array (NaN when empty). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))] ?? Number.NaN;
}

export const ms = (value: number): string =>
  Number.isNaN(value) ? '–' : value >= 100 ? value.toFixed(0) : value.toFixed(1);

export const mb = (kb: number | undefined): string =>
  kb === undefined ? '–' : `${(kb / 1024).toFixed(0)} MB`;

export function clock(startedAt: number): string {
  const s = Math.floor((Date.now() - startedAt) / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

/** Resident set size in kB from /proc (undefined once the process is gone). */
export function rssKb(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}

/**
 * User + system CPU time of a process in seconds, from /proc/<pid>/stat (clock ticks of 1/100 s);
 * with `mainThread`, that of its main thread alone (JavaScript's), without V8's compiler and
 * garbage-collector helpers or libuv's pool.
 */
export function cpuSeconds(pid: number | undefined, mainThread = false): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces; the numeric fields follow its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return Number.isFinite(utime) && Number.isFinite(stime) ? (utime + stime) / 100 : undefined;
  } catch {
    return undefined;
  }
}

/** Renders rows as a Markdown table (pasteable into the README as it is). */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

export const pick = <T>(items: readonly T[]): T => {
  const item = items[Math.floor(Math.random() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
};

/** The pid, parent pid and command line of every process on this machine (Linux; empty elsewhere). */
export async function processTable(): Promise<Array<{ pid: number; ppid: number; cmdline: string }>> {
  const pids = (await readdir('/proc').catch(() => [])).filter((name) => /^\d+$/.test(name));
  const rows = await Promise.all(
    pids.map(async (pid) => {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
      const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] ?? 0);
      return { pid: Number(pid), ppid, cmdline: cmdline.replaceAll('\0', ' ') };
    }),
  );
  return rows.filter((r) => r.cmdline !== '');
}

/**
 * The bench's own PostgreSQL (the postmaster listening on `pgPort` and its backends) and
 * redis-server, found afresh at each sample (backends come and go with the pools).
 */
export async function serverPids(
  pgPort: string,
  redisPort: number,
): Promise<{ postgres: number[]; redis: number[] }> {
  const table = await processTable();
  const postmaster = table.find(
    (r) => /\bpostgres -D /.test(r.cmdline) && r.cmdline.includes(` -p ${pgPort} `),
  );
  return {
    postgres: postmaster
      ? [postmaster.pid, ...table.filter((r) => r.ppid === postmaster.pid).map((r) => r.pid)]
      : [],
    redis: table
      .filter((r) => r.cmdline.startsWith('redis-server') && r.cmdline.includes(`:${redisPort}`))
      .map((r) => r.pid),
  };
}

/**
 * CPU seconds of PostgreSQL (`serverPids`'s list, postmaster first): the postmaster, its live backends, and the backends that have exited
 * (their time is the postmaster's reaped children's, fields cutime and cstime).
 */
export function postgresCpuSeconds(postgres: number[]): number {
  const [postmaster] = postgres;
  let total = postgres.reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0);
  if (postmaster !== undefined) {
    try {
      const stat = readFileSync(`/proc/${postmaster}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(fields[13] ?? 0) + Number(fields[14] ?? 0)) / 100;
    } catch {
      // gone: nothing more to count
    }
  }
  return total;
}
