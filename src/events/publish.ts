import { jobIds } from '../../queues/index.js';
import type { AppContext } from '../shared/context.js';

/**
 * Fast path of the outbox: enqueue the relay of events that just committed. Never throws and never
 * blocks the caller on Redis; a failure only delays the events until the next sweep.
 */
export function publishAfterCommit(ctx: Pick<AppContext, 'producers' | 'logger'>, eventIds: string[]): void {
  for (const eventId of eventIds) {
    ctx.producers.add('outbox', jobIds.outbox(eventId), { eventId }).catch((err: unknown) => {
      ctx.logger.warn({ err, eventId }, 'outbox fast path failed; the sweep will relay the event');
    });
  }
}
