import { writeFileSync } from 'node:fs';
import { fuzzConfig, replayHint } from './config.js';
import type { RawRequest, RawResponse } from './raw-http.js';

/** One thing the service did that the documents or docs/api.md say it must not. */
export interface Problem {
  /** Short class, the first level of the grouping: `5xx`, `doc allows, server refuses`, ... */
  group: string;
  /** Operation id, or `METHOD /path` where no operation applies. */
  where: string;
  /** What was wrong, without the per-request details (so equal problems collapse into one). */
  reason: string;
  request: string;
  response: string;
}

interface Entry {
  problem: Problem;
  count: number;
  size: number;
}

const MAX_TEXT = 700;

const clip = (text: string, max = MAX_TEXT): string =>
  text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;

/** Credentials never appear in reports; the reader only needs to know which one was used. */
export function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const [index, secret] of secrets.entries())
    if (secret) out = out.split(secret).join(`<credential ${index + 1}>`);
  return out;
}

export function describeRequest(req: RawRequest, secrets: string[] = []): string {
  const lines = [`${req.method} ${clip(req.path, 300)}`];
  for (const [name, value] of Object.entries(req.headers ?? {})) {
    if (name.toLowerCase() === 'content-length') continue;
    lines.push(`${name}: ${clip(value, 120)}`);
  }
  if (req.body !== undefined) {
    const text = typeof req.body === 'string' ? req.body : req.body.toString('latin1');
    const bytes = typeof req.body === 'string' ? Buffer.byteLength(req.body) : req.body.length;
    lines.push(
      bytes > MAX_TEXT ? `body (${bytes} bytes): ${clip(JSON.stringify(text), 240)}` : `body: ${text}`,
    );
  }
  return redact(lines.join('\n      '), secrets);
}

export function describeResponse(res: RawResponse): string {
  const interesting = ['allow', 'content-type', 'location', 'retry-after'];
  const headers = interesting
    .filter((h) => res.headers[h] !== undefined)
    .map((h) => `${h}: ${String(res.headers[h])}`);
  return [
    `${res.status}${headers.length ? ` (${headers.join('; ')})` : ''}`,
    clip(res.text.replace(/\s+/g, ' '), 500),
  ].join(' ');
}

/** Problems of one run, each kept once with its smallest request (a readable stand-in for shrinking). */
export class ProblemLog {
  private readonly entries = new Map<string, Entry>();
  requests = 0;
  skipped = 0;
  readonly skipReasons = new Map<string, number>();

  add(problem: Problem): void {
    const key = `${problem.group}\u0000${problem.where}\u0000${problem.reason}`;
    const size = problem.request.length;
    const existing = this.entries.get(key);
    if (!existing) this.entries.set(key, { problem, count: 1, size });
    else {
      existing.count += 1;
      if (size < existing.size) {
        existing.problem = problem;
        existing.size = size;
      }
    }
  }

  skip(reason: string): void {
    this.skipped += 1;
    const short = reason.slice(0, 160);
    this.skipReasons.set(short, (this.skipReasons.get(short) ?? 0) + 1);
  }

  get size(): number {
    return this.entries.size;
  }

  all(): Array<Problem & { count: number }> {
    return [...this.entries.values()].map((e) => ({ ...e.problem, count: e.count }));
  }

  /** The readable failure: every distinct problem with one example request and response. */
  format(title: string): string {
    const lines = [
      `${title}: ${this.size} distinct problem(s) in ${this.requests} request(s); ${replayHint()}`,
    ];
    const byGroup = new Map<string, Entry[]>();
    for (const entry of this.entries.values()) {
      byGroup.set(entry.problem.group, [...(byGroup.get(entry.problem.group) ?? []), entry]);
    }
    let n = 0;
    for (const [group, entries] of byGroup) {
      lines.push('', `  == ${group} ==`);
      for (const { problem, count } of entries) {
        n += 1;
        lines.push(
          `  ${n}. [${problem.where}] ${problem.reason}${count > 1 ? ` (seen ${count}×)` : ''}`,
          `      request:  ${problem.request}`,
          `      response: ${problem.response}`,
        );
      }
    }
    return lines.join('\n');
  }
}

const everything: Array<{ suite: string; problems: Array<Problem & { count: number }> }> = [];

/** Keeps the run's problems for `FUZZ_REPORT`, written when the process ends. */
export function remember(suite: string, log: ProblemLog): void {
  everything.push({ suite, problems: log.all() });
}

process.on('exit', () => {
  if (!fuzzConfig.reportFile || everything.length === 0) return;
  writeFileSync(
    fuzzConfig.reportFile,
    JSON.stringify({ seed: fuzzConfig.seed, runs: fuzzConfig.runs, suites: everything }, null, 2),
  );
});
