import type { AppContext } from '../shared/context.js';
import type { Db } from '../shared/db/index.js';
import { batcherFor, MicroBatcher } from '../shared/batcher.js';
import { deliverAttempt, type AttemptFailure } from './deliver.js';
import { failuresOf } from './failed-jobs.js';
import { fanOutMany, type DeliveryTarget } from './repository.js';

const fanOutBatchers = new WeakMap<Db, MicroBatcher<string, DeliveryTarget[]>>();

/**
 * `fanOutMany` for one event. Relay jobs running at the same moment share one statement: under load
 * this saves a round trip per event, the largest cost of a relay after the HTTP request itself.
 */
export function fanOut(db: Db, eventId: string): Promise<DeliveryTarget[]> {
  const batcher = batcherFor(
    fanOutBatchers,
    db,
    () =>
      new MicroBatcher(async (eventIds: string[]) => {
        const targets = await fanOutMany(db, [...new Set(eventIds)]);
        return eventIds.map((id) => targets.filter((t) => t.eventId === id));
      }),
  );
  return batcher.push(eventId);
}

/**
 * Relay one committed event: fan out, then make each delivery's first attempt right here (no second
 * hop through Redis; later attempts are delayed jobs on the deliveries queue). Safe to run twice:
 * a rerun finds the deliveries whose first attempt is not recorded and makes it.
 */
export async function relayEvent(
  ctx: AppContext,
  eventId: string,
): Promise<{ deliveries: number; failures: AttemptFailure[] }> {
  const targets = await fanOut(ctx.db, eventId);
  // Every attempt runs to its end before the job can fail and be retried: a retry started while a
  // sibling's request is still in flight would send that webhook twice.
  const results = await Promise.allSettled(
    targets.map((target) => deliverAttempt(ctx, target.id, 1, target)),
  );
  const error = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (error) throw error.reason;
  const reports = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  return { deliveries: targets.length, failures: failuresOf(reports) };
}
