import { recordEvent, recordEvents, type NewEvent } from '../events/outbox.js';
import type { Db, Executor, Tx } from '../shared/db/index.js';
import { cachedItemLookup, purchaseData, type ItemLookup } from './purchase-data.js';
import { anyLinkDue, type LinkRow } from './repository.js';
import { expireDueLinks, expireLink } from './transitions.js';

/** Most links one expiry transaction takes; a larger backlog is taken a batch after another. */
export const EXPIRY_BATCH = 500;

/** The `order.expired` event of a link that just moved to `expired`: `order: null`, its payment_link object. */
async function linkExpiredEvent(tx: Executor, link: LinkRow, findItem?: ItemLookup): Promise<NewEvent> {
  const { productId, data } = await purchaseData(tx, link, null, findItem);
  return {
    companyId: link.companyId,
    type: 'order.expired',
    livemode: link.livemode,
    test: false,
    productId,
    data,
  };
}

/**
 * Emits `order.expired` for a link that just moved to `expired`, in the caller's transaction. The
 * payload has `order: null` (no order exists) and the link's payment_link object.
 */
export async function recordLinkExpired(tx: Tx, link: LinkRow): Promise<string> {
  const event = await recordEvent(tx, await linkExpiredEvent(tx, link));
  return event.id;
}

/**
 * Expires a link whose `expires_at` has passed, with its event, in one transaction. Idempotent:
 * a link already expired, paid, canceled, or not yet due is left alone. Returns the event id.
 * (What a `link-expiry` job left in Redis by an earlier version runs.)
 */
export async function expireDueLink(db: Db, linkId: string): Promise<string | undefined> {
  return db.transaction(async (tx) => {
    const link = await expireLink(tx, linkId);
    return link ? recordLinkExpired(tx, link) : undefined;
  });
}

/**
 * Expires up to `limit` links past their `expires_at` (earliest first) and records their
 * `order.expired` events, in one transaction: one UPDATE … RETURNING, one read per offer or plan
 * they name, one INSERT of the events. Returns the events' ids (to publish once committed).
 */
export async function expireDueBatch(db: Db, limit = EXPIRY_BATCH): Promise<string[]> {
  if (!(await anyLinkDue(db))) return [];
  return db.transaction(async (tx) => {
    const links = await expireDueLinks(tx, limit);
    if (links.length === 0) return [];
    const findItem = cachedItemLookup(tx);
    // One after another: a transaction is one connection, which runs one query at a time (pg
    // deprecates queueing them on it).
    const events: Awaited<ReturnType<typeof linkExpiredEvent>>[] = [];
    for (const link of links) events.push(await linkExpiredEvent(tx, link, findItem));
    return (await recordEvents(tx, events)).map((event) => event.id);
  });
}
