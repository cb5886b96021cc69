/**
 * Where an event's commit → first attempt goes, hop by hop, from each hop's own clock (all on this
 * machine's clock, in epoch milliseconds):
 *
 * - commit: the committing process, once its INSERT resolved;
 * - relay job added / taken: the entries BullMQ writes to the outbox queue's event stream (the Redis
 *   server's clock), read while the run goes on, before the stream is trimmed;
 * - claimed: `deliveries.created_at` (PostgreSQL's clock, in the fan-out statement that claims the
 *   event and writes its deliveries);
 * - request: `delivery_attempts.requested_at` (the worker's clock as the POST started);
 * - arrival: the receiver, as the request's body ended.
 *
 * Also what may stall a hop without working: PostgreSQL backends' wait events, sampled.
 */
import pg from 'pg';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { percentile } from './util.js';

const entryMs = (id: string): number => Number(id.slice(0, id.indexOf('-')));

/**
 * Follows a queue's event stream: when each job was added and first taken by a worker, and, for the
 * outbox, which events each job carries (read from the job while it still exists).
 */
export class QueueTap {
  readonly added = new Map<string, number>();
  readonly taken = new Map<string, number>();
  /** Event id → the relay job that carried it (outbox only). */
  readonly jobOf = new Map<string, string>();
  private last = '$';
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> = Promise.resolve();

  /** `client`: a connection of the tap's own to the queue's Redis (a stream read must not wait behind the queue's). */
  constructor(
    private readonly client: Redis,
    private readonly queue: Queue,
    private readonly withEvents: boolean,
  ) {}

  async start(): Promise<void> {
    const client = this.client;
    // From the stream's newest entry on: what happened before the run is not the run's.
    const [newest] = (await client.xrevrange(this.queue.toKey('events'), '+', '-', 'COUNT', 1)) as Array<
      [string, string[]]
    >;
    this.last = newest?.[0] ?? '0-0';
    this.timer = setInterval(() => {
      this.reading = this.reading.then(() => this.read()).catch(() => undefined);
    }, 50);
  }

  private async read(): Promise<void> {
    const client = this.client;
    const entries = (await client.xrange(
      this.queue.toKey('events'),
      `(${this.last}`,
      '+',
      'COUNT',
      10_000,
    )) as Array<[string, string[]]>;
    const fresh: string[] = [];
    for (const [id, fields] of entries) {
      this.last = id;
      const field = (name: string): string | undefined => fields[fields.indexOf(name) + 1];
      const jobId = field('jobId');
      if (jobId === undefined) continue;
      const event = field('event');
      if (event === 'added' && !this.added.has(jobId)) {
        this.added.set(jobId, entryMs(id));
        fresh.push(jobId);
      }
      if (event === 'active' && !this.taken.has(jobId)) this.taken.set(jobId, entryMs(id));
    }
    if (!this.withEvents || fresh.length === 0) return;
    const pipeline = client.pipeline();
    for (const jobId of fresh) pipeline.hget(this.queue.toKey(jobId), 'data');
    const answers = (await pipeline.exec()) ?? [];
    fresh.forEach((jobId, i) => {
      const data = answers[i]?.[1];
      if (typeof data !== 'string') return;
      const parsed = JSON.parse(data) as { eventId?: string; eventIds?: string[] };
      for (const eventId of [parsed.eventId, ...(parsed.eventIds ?? [])])
        if (eventId !== undefined) this.jobOf.set(eventId, jobId);
    });
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.reading;
    await this.read();
  }
}

/**
 * Samples, every 100 ms, what PostgreSQL's active backends wait on (besides working: CPU shows as no
 * wait event). Its own connection, left out of the samples. Each sample is a query of PostgreSQL's
 * own: taken every 20 ms, they cost it 47–66 µs of CPU per event in the latency runs.
 */
export class PgWaitSampler {
  private readonly counts = new Map<string, number>();
  private samples = 0;
  private client: pg.Client | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;

  constructor(private readonly databaseUrl: string) {}

  async start(): Promise<void> {
    this.client = new pg.Client({ connectionString: this.databaseUrl });
    await this.client.connect();
    const client = this.client;
    this.running = (async () => {
      while (!this.stopping) {
        const { rows } = await client.query<{ wait: string | null; n: number }>(
          `SELECT wait_event_type || ':' || wait_event AS wait, count(*)::int AS n FROM pg_stat_activity
            WHERE state = 'active' AND backend_type = 'client backend' AND pid <> pg_backend_pid()
            GROUP BY 1`,
        );
        this.samples += 1;
        for (const r of rows)
          this.counts.set(
            r.wait ?? 'working (no wait event)',
            (this.counts.get(r.wait ?? 'working (no wait event)') ?? 0) + r.n,
          );
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
  }

  /** Stops and returns, per wait, the mean number of backends in it (`working` is on CPU). */
  async stop(): Promise<string> {
    this.stopping = true;
    await this.running;
    await this.client?.end();
    const rows = [...this.counts.entries()].sort((a, b) => b[1] - a[1]);
    return rows.map(([wait, n]) => `${wait} ${(n / Math.max(1, this.samples)).toFixed(2)}`).join(', ');
  }
}

export interface EventTimes {
  commit: number;
  added?: number;
  taken?: number;
  claimed?: number;
  request?: number;
  arrival?: number;
}

export const HOPS = [
  ['commit → relay job added', 'commit', 'added'],
  ['added → taken by the worker', 'added', 'taken'],
  ['taken → claimed (fan-out)', 'taken', 'claimed'],
  ['claimed → POST started (lane)', 'claimed', 'request'],
  ['POST started → arrived', 'request', 'arrival'],
] as const;

/**
 * p50 and p99 of each hop, and for the slowest 1 % of events (by commit → arrival), the mean of each
 * hop: what the tail waits on.
 */
export function summarizeHops(times: EventTimes[]): string[] {
  const total = (t: EventTimes): number => (t.arrival ?? NaN) - t.commit;
  const complete = times.filter((t) =>
    HOPS.every(([, from, to]) => t[from] !== undefined && t[to] !== undefined),
  );
  const lines = [`hops known for ${complete.length} of ${times.length} events (ms):`];
  const sortedTotals = complete.map(total).sort((a, b) => a - b);
  const p99 = percentile(sortedTotals, 99);
  const tail = complete.filter((t) => total(t) >= p99);
  const mean = (values: number[]): number => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  let worst = { name: '', ms: Number.NEGATIVE_INFINITY };
  for (const [name, from, to] of HOPS) {
    const hop = (t: EventTimes): number => (t[to] ?? NaN) - (t[from] ?? NaN);
    const sorted = complete.map(hop).sort((a, b) => a - b);
    const inTail = mean(tail.map(hop));
    if (inTail > worst.ms) worst = { name, ms: inTail };
    lines.push(
      `    ${name.padEnd(32)} p50 ${percentile(sorted, 50).toFixed(1).padStart(6)}  p99 ${percentile(sorted, 99).toFixed(1).padStart(6)}  ` +
        `max ${(sorted.at(-1) ?? NaN).toFixed(1).padStart(6)}  in the slowest 1 %: mean ${inTail.toFixed(1).padStart(6)}`,
    );
  }
  lines.push(`    worst hop of the slowest 1 %: ${worst.name} (mean ${worst.ms.toFixed(1)} ms)`);
  return lines;
}
