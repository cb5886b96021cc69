import { envelopeOf } from '../../src/events/outbox.js';
import { publishAfterCommit } from '../../src/events/publish.js';
import type { AppContext } from '../../src/shared/context.js';
import { schema } from '../../src/shared/db/index.js';
import { newEventId } from '../../src/shared/ids.js';
import type { TraceCarrier } from '../../src/shared/tracing.js';
import { sleep } from './util.js';

/**
 * An event row as `recordEvent` writes it; with `traceContext`, what a traced web process stores with
 * an event its sampled request recorded.
 */
export function benchEventRow(
  companyId: number,
  traceContext: TraceCarrier | null,
): typeof schema.events.$inferInsert & { id: string } {
  const id = newEventId();
  const createdAt = new Date();
  const event = { type: 'lead.created' as const, livemode: false, test: false, data: { bench: true } };
  return {
    id,
    companyId,
    ...event,
    productId: null,
    integrationId: null,
    payload: envelopeOf(id, event, createdAt),
    createdAt,
    traceContext,
  };
}

/**
 * Commits one event and takes the fast path, as a web process does. No state change to join here,
 * so the event row is its own transaction. `onCommitted` runs once the INSERT resolved.
 */
export async function commitBenchEvent(
  ctx: Pick<AppContext, 'db' | 'producers' | 'logger'>,
  companyId: number,
  traceContext: TraceCarrier | null = null,
  onCommitted?: (id: string) => void,
): Promise<string> {
  const row = benchEventRow(companyId, traceContext);
  await ctx.db.insert(schema.events).values(row);
  onCommitted?.(row.id);
  publishAfterCommit(ctx, [row.id]);
  return row.id;
}

/**
 * Commits events at `rate` per second for `seconds`, as web processes would (at most 64 in flight:
 * a PostgreSQL that falls behind slows the commits, and the committed rate says so, rather than
 * queueing them past the pool's 5 s connection timeout). Returns the rate achieved.
 */
export async function commitAtRate(
  rate: number,
  seconds: number,
  commit: () => Promise<unknown>,
): Promise<number> {
  const total = Math.round(rate * seconds);
  const started = performance.now();
  const inflight: Array<Promise<unknown>> = [];
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 1) await sleep(wait);
    if (inflight.length >= 64) await inflight[inflight.length - 64];
    inflight.push(commit());
  }
  await Promise.all(inflight);
  return total / ((performance.now() - started) / 1000);
}
