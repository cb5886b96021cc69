import { jobIds, QUEUE, type Producers } from '../../queues/index.js';
import { batcherFor, MicroBatcher } from '../shared/batcher.js';
import { recordEvent } from '../events/outbox.js';
import type { AppContext } from '../shared/context.js';
import type { Db, Tx } from '../shared/db/index.js';
import { purchaseData } from './purchase-data.js';
import type { LinkRow } from './repository.js';
import { expireLink } from './transitions.js';

/**
 * Emits `order.expired` for a link that just moved to `expired`, in the caller's transaction. The
 * payload has `order: null` (no order exists) and the link's payment_link object.
 */
export async function recordLinkExpired(tx: Tx, link: LinkRow): Promise<string> {
  const { productId, data } = await purchaseData(tx, link, null);
  const event = await recordEvent(tx, {
    companyId: link.companyId,
    type: 'order.expired',
    livemode: link.livemode,
    test: false,
    productId,
    data,
  });
  return event.id;
}

/**
 * Expires a link whose `expires_at` has passed, with its event, in one transaction. Idempotent:
 * a link already expired, paid, canceled, or not yet due is left alone. Returns the event id.
 */
export async function expireDueLink(db: Db, linkId: string): Promise<string | undefined> {
  return db.transaction(async (tx) => {
    const link = await expireLink(tx, linkId);
    return link ? recordLinkExpired(tx, link) : undefined;
  });
}

type ExpiryJob = { jobId: string; linkId: string; delay: number };

const expiryBatchers = new WeakMap<Producers, MicroBatcher<ExpiryJob, undefined>>();

/**
 * The expiry jobs of the links created in one turn of the event loop go to Redis together: one
 * addBulk (one round trip, one MULTI in the queue's slot) instead of one add per link. Each job
 * keeps its own id and delay, so nothing changes for the worker.
 */
function expiryBatcher(producers: Producers): MicroBatcher<ExpiryJob, undefined> {
  return batcherFor(
    expiryBatchers,
    producers,
    () =>
      new MicroBatcher(async (jobs: ExpiryJob[]) => {
        await producers.queue('linkExpiry').addBulk(
          jobs.map((job) => ({
            name: QUEUE.linkExpiry,
            data: { linkId: job.linkId },
            opts: { jobId: job.jobId, delay: job.delay },
          })),
        );
        return jobs.map(() => undefined);
      }),
  );
}

/**
 * Schedules the expiry job of a link (deterministic id per link and expiry time, so a changed
 * `expires_at` gets its own job and the old one finds nothing to do). Never throws: the sweep
 * expires overdue links whose job was lost.
 */
export function scheduleLinkExpiry(
  ctx: Pick<AppContext, 'producers' | 'logger'>,
  link: { id: string; expiresAt: Date },
): void {
  const delay = Math.max(0, link.expiresAt.getTime() - Date.now());
  expiryBatcher(ctx.producers)
    .push({ jobId: jobIds.linkExpiry(link.id, link.expiresAt), linkId: link.id, delay })
    .catch((err: unknown) => {
      ctx.logger.warn({ err, linkId: link.id }, 'could not schedule link expiry; the sweep will expire it');
    });
}
