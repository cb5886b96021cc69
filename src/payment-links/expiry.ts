import { jobIds } from '../../queues/index.js';
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
  ctx.producers
    .add('linkExpiry', jobIds.linkExpiry(link.id, link.expiresAt), { linkId: link.id }, { delay })
    .catch((err: unknown) => {
      ctx.logger.warn({ err, linkId: link.id }, 'could not schedule link expiry; the sweep will expire it');
    });
}
