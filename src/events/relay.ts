import { sql } from 'drizzle-orm';
import type { Producers } from '../../queues/index.js';
import { jobIds } from '../../queues/index.js';
import type { Db } from '../shared/db/index.js';
import { EVENT_KINDS, PRODUCTLESS_EVENT_KINDS } from '../integrations/kinds.js';
import { WEBHOOK_KIND_TYPES, subscriptionsFor } from './kinds.js';

const WEBHOOK_TYPES = sql.raw(`ARRAY[${WEBHOOK_KIND_TYPES.map((t) => `'${t}'`).join(',')}]::text[]`);
const PRODUCTLESS = sql.raw(`ARRAY[${PRODUCTLESS_EVENT_KINDS.map((k) => `'${k}'`).join(',')}]::text[]`);
const quote = (value: string): string => `'${value.replace(/'/g, "''")}'`;
/** `subscriptionsFor` as SQL over `c.type`: kinds that reach more than their own subscribers. */
const SUBSCRIPTIONS = sql.raw(
  `CASE ${EVENT_KINDS.filter((kind) => subscriptionsFor(kind).length > 1)
    .map((kind) => `WHEN c.type = ${quote(kind)} THEN ARRAY[${subscriptionsFor(kind).map(quote).join(',')}]::text[]`)
    .join(' ')} ELSE ARRAY[c.type] END`,
);

/**
 * Fans one event out into one delivery per matching integration (decisions, "Routing"): active,
 * webhook-kind, subscribed to the kind (or to `order.failed` for a declined payment), covering the
 * event's product unless the kind ignores the product filter or the event has none.
 *
 * Exactly once, in one statement: claiming the event (`relayed_at` still null) and inserting its
 * deliveries commit together; a concurrent or repeated relay claims nothing. Returns the deliveries
 * still waiting for their first attempt, so a caller can (re-)enqueue them.
 */
export async function fanOut(db: Db, eventId: string): Promise<number[]> {
  const result = await db.execute<{ id: string | number }>(sql`
    WITH claimed AS (
      UPDATE events SET relayed_at = clock_timestamp()
       WHERE id = ${eventId} AND relayed_at IS NULL
   RETURNING id, company_id, type, product_id
    ), inserted AS (
      INSERT INTO deliveries (event_id, integration_id, next_attempt_at)
      SELECT c.id, i.id, clock_timestamp()
        FROM claimed c
        JOIN integrations i ON i.company_id = c.company_id
       WHERE i.is_active
         AND i.type = ANY(${WEBHOOK_TYPES})
         AND i.events && ${SUBSCRIPTIONS}
         AND (c.type = ANY(${PRODUCTLESS}) OR c.product_id IS NULL OR i.send_to_all_products OR c.product_id = ANY(i.product_ids))
       ORDER BY i.id
      ON CONFLICT (event_id, integration_id) DO NOTHING
   RETURNING id
    )
    SELECT id FROM inserted
    UNION
    SELECT id FROM deliveries WHERE event_id = ${eventId} AND status = 'pending' AND attempts = 0`);
  return result.rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}

/** Relay one committed event: fan out, then enqueue each delivery's first attempt. */
export async function relayEvent(db: Db, producers: Producers, eventId: string): Promise<number> {
  const deliveryIds = await fanOut(db, eventId);
  await Promise.all(
    deliveryIds.map((deliveryId) =>
      producers.add('deliveries', jobIds.deliveries(deliveryId, 1), { deliveryId, attempt: 1 }),
    ),
  );
  return deliveryIds.length;
}
