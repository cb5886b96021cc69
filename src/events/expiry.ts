import { sql } from 'drizzle-orm';
import type { AppContext } from '../shared/context.js';
import type { Db } from '../shared/db/index.js';
import { expireLink } from '../payment-links/transitions.js';
import type { Tx } from '../shared/db/index.js';
import { linkEventData, type LinkRow } from './link-payload.js';
import { recordEvent } from './outbox.js';

/**
 * Emits `order.expired` for a link that just moved to `expired`, in the caller's transaction. The
 * payload has `order: null` (no order exists) and the link's payment_link object.
 */
export async function recordLinkExpired(tx: Tx, link: LinkRow): Promise<string> {
  const { productId, data } = await linkEventData(tx, link, null);
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

/** Active links past expiry whose job was lost or is late (oldest first, bounded batch). */
export async function overdueLinks(ctx: AppContext, graceMs: number, limit: number): Promise<string[]> {
  const rows = await ctx.db.execute<{ id: string }>(sql`
    SELECT id FROM payment_links
     WHERE status = 'active' AND expires_at < clock_timestamp() - make_interval(secs => ${graceMs / 1000})
     ORDER BY expires_at LIMIT ${limit}`);
  return rows.rows.map((r) => r.id);
}
