import { jobIds } from '../../queues/index.js';
import { batcherFor, MicroBatcher } from '../shared/batcher.js';
import type { AppContext } from '../shared/context.js';

type Publisher = Pick<AppContext, 'producers' | 'logger'>;

/** Most events one relay job names; a larger turn's worth is split over several jobs. */
export const EVENTS_PER_RELAY_JOB = 500;

const publishers = new WeakMap<Publisher['producers'], MicroBatcher<string, void>>();

/**
 * Fast path of the outbox: enqueue the relay of events that just committed. Never throws and never
 * blocks the caller on Redis; a failure only delays the events until the next sweep.
 *
 * The events published in one turn of the event loop (a busy web process commits many requests'
 * events in one turn) go in one relay job: a job costs Redis and the worker about as much as
 * relaying its events does, and the relay of one event claims its company's earlier ones anyway.
 */
export function publishAfterCommit(ctx: Publisher, eventIds: string[]): void {
  if (eventIds.length === 0) return;
  const publisher = batcherFor(
    publishers,
    ctx.producers,
    () =>
      new MicroBatcher<string, void>(async (ids) => {
        const [first, ...rest] = ids;
        if (first === undefined) return [];
        await ctx.producers.add(
          'outbox',
          jobIds.outbox(first),
          rest.length > 0 ? { eventId: first, eventIds: rest } : { eventId: first },
        );
        return ids.map(() => undefined);
      }, EVENTS_PER_RELAY_JOB),
  );
  for (const eventId of eventIds) {
    publisher.push(eventId).catch((err: unknown) => {
      ctx.logger.warn({ err, eventId }, 'outbox fast path failed; the sweep will relay the event');
    });
  }
}
