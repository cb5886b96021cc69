import { jobIds } from '../../queues/index.js';
import { batcherFor, MicroBatcher } from '../shared/batcher.js';
import type { AppContext } from '../shared/context.js';

type Publisher = Pick<AppContext, 'producers' | 'logger'>;

/** Most events one relay job names; a larger turn's worth is split over several jobs. */
export const EVENTS_PER_RELAY_JOB = 500;

/**
 * Relay jobs from one process start at least this far apart. A job costs Redis and the worker about
 * as much as relaying its events does: under a steady stream of commits, the events of each spacing
 * share one job; the first event after a quiet spell is published at once.
 */
export const RELAY_JOB_SPACING_MS = 10;

const publishers = new WeakMap<Publisher['producers'], MicroBatcher<string, void>>();

/**
 * Fast path of the outbox: enqueue the relay of events that just committed. Never throws and never
 * blocks the caller on Redis; a failure only delays the events until the next sweep.
 *
 * The events published in one turn of the event loop go in one relay job, and jobs are spaced by
 * RELAY_JOB_SPACING_MS: the relay of one event claims its company's earlier ones anyway.
 */
export function publishAfterCommit(ctx: Publisher, eventIds: string[]): void {
  if (eventIds.length === 0) return;
  const publisher = batcherFor(
    publishers,
    ctx.producers,
    () =>
      new MicroBatcher<string, void>(
        async (ids) => {
          const [first, ...rest] = ids;
          if (first === undefined) return [];
          await ctx.producers.add(
            'outbox',
            jobIds.outbox(first),
            rest.length > 0 ? { eventId: first, eventIds: rest } : { eventId: first },
          );
          return ids.map(() => undefined);
        },
        EVENTS_PER_RELAY_JOB,
        Number.POSITIVE_INFINITY,
        RELAY_JOB_SPACING_MS,
      ),
  );
  for (const eventId of eventIds) {
    publisher.push(eventId).catch((err: unknown) => {
      ctx.logger.warn({ err, eventId }, 'outbox fast path failed; the sweep will relay the event');
    });
  }
}
