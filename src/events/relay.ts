import { sql } from 'drizzle-orm';
import type { Producers } from '../../queues/index.js';
import { jobIds } from '../../queues/index.js';
import type { Db, Executor } from '../shared/db/index.js';
import { WEBHOOK_KIND_TYPES, ignoresProductFilter, subscriptionsFor } from './kinds.js';

interface EventRoutingRow extends Record<string, unknown> {
  id: string;
  company_id: string | number;
  type: string;
  product_id: number | null;
  relayed_at: Date | null;
}

/**
 * Integrations that receive an event (decisions, "Routing"): active, webhook-kind, subscribed to
 * the kind (or to `order.failed` for a declined payment), and covering the event's product unless
 * the kind ignores the product filter or the event has no product.
 */
async function matchingIntegrations(tx: Executor, event: EventRoutingRow): Promise<number[]> {
  const kinds = subscriptionsFor(event.type);
  const anyProduct = ignoresProductFilter(event.type) || event.product_id === null;
  const result = await tx.execute<{ id: number }>(sql`
    SELECT id FROM integrations
     WHERE company_id = ${event.company_id}
       AND is_active
       AND type = ANY(${sql.raw(`ARRAY[${WEBHOOK_KIND_TYPES.map((t) => `'${t}'`).join(',')}]`)})
       AND events && ${sql.raw(`ARRAY[${kinds.map((k) => `'${k.replace(/'/g, "''")}'`).join(',')}]`)}::text[]
       AND (${anyProduct} OR send_to_all_products OR ${event.product_id} = ANY(product_ids))
     ORDER BY id`);
  return result.rows.map((r) => Number(r.id));
}

/**
 * Fans one event out into one delivery per matching integration, exactly once: the event row is
 * locked and `relayed_at` set in the same transaction as the delivery rows. Returns the deliveries
 * still waiting for their first attempt (all of them on a re-run), so a caller can (re-)enqueue them.
 */
export async function fanOut(db: Db, eventId: string): Promise<number[]> {
  return db.transaction(async (tx) => {
    const locked = await tx.execute<EventRoutingRow>(
      sql`SELECT id, company_id, type, product_id, relayed_at FROM events WHERE id = ${eventId} FOR UPDATE`,
    );
    const event = locked.rows[0];
    if (!event) return [];
    if (event.relayed_at === null) {
      const targets = await matchingIntegrations(tx, event);
      if (targets.length > 0) {
        await tx.execute(sql`
          INSERT INTO deliveries (event_id, integration_id, next_attempt_at)
          SELECT ${eventId}, unnest(${sql.raw(`ARRAY[${targets.join(',')}]`)}::int[]), clock_timestamp()
          ON CONFLICT (event_id, integration_id) DO NOTHING`);
      }
      await tx.execute(sql`UPDATE events SET relayed_at = clock_timestamp() WHERE id = ${eventId}`);
    }
    const pending = await tx.execute<{ id: string | number }>(
      sql`SELECT id FROM deliveries WHERE event_id = ${eventId} AND status = 'pending' AND attempts = 0 ORDER BY id`,
    );
    return pending.rows.map((r) => Number(r.id));
  });
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
