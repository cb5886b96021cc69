import { sql } from 'drizzle-orm';
import type { Producers } from '../../queues/index.js';
import type { AppContext } from '../shared/context.js';
import type { Db } from '../shared/db/index.js';
import { deliverAttempt } from '../webhooks/deliver.js';
import { batcherFor, MicroBatcher } from './batcher.js';
import { toDeliveryTarget, type DeliveryTarget, type TargetRow } from '../webhooks/repository.js';
import { EVENT_KINDS, PRODUCTLESS_EVENT_KINDS } from '../integrations/kinds.js';
import { WEBHOOK_KIND_TYPES, subscriptionsFor } from './kinds.js';

const WEBHOOK_TYPES = sql.raw(`ARRAY[${WEBHOOK_KIND_TYPES.map((t) => `'${t}'`).join(',')}]::text[]`);
const PRODUCTLESS = sql.raw(`ARRAY[${PRODUCTLESS_EVENT_KINDS.map((k) => `'${k}'`).join(',')}]::text[]`);
const quote = (value: string): string => `'${value.replace(/'/g, "''")}'`;
/** `subscriptionsFor` as SQL over `c.type`: kinds that reach more than their own subscribers. */
const SUBSCRIPTIONS = sql.raw(
  `CASE ${EVENT_KINDS.filter((kind) => subscriptionsFor(kind).length > 1)
    .map(
      (kind) =>
        `WHEN c.type = ${quote(kind)} THEN ARRAY[${subscriptionsFor(kind).map(quote).join(',')}]::text[]`,
    )
    .join(' ')} ELSE ARRAY[c.type] END`,
);

/**
 * Fans one event out into one delivery per matching integration (decisions, "Routing"): active,
 * webhook-kind, subscribed to the kind (or to `order.failed` for a declined payment), covering the
 * event's product unless the kind ignores the product filter or the event has none.
 *
 * Exactly once, in one statement: claiming the event (`relayed_at` still null) and inserting its
 * deliveries commit together; a concurrent or repeated relay claims nothing. Returns every delivery
 * of the event still waiting for its first attempt, with what that attempt needs (the same
 * statement, so one round trip per event).
 */
export async function fanOutMany(db: Db, eventIds: string[]): Promise<DeliveryTarget[]> {
  const ids = sql.raw(`ARRAY[${eventIds.map(quote).join(',')}]::text[]`);
  const result = await db.execute<TargetRow>(sql`
    WITH claimed AS (
      UPDATE events SET relayed_at = clock_timestamp()
       WHERE id = ANY(${ids}) AND relayed_at IS NULL
   RETURNING id, company_id, type, product_id, payload
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
   RETURNING id, event_id, integration_id
    )
    -- Rows inserted by this statement are invisible to its own scans, so the two halves never overlap.
    SELECT n.id, n.event_id, n.integration_id, 'pending' AS status, 0 AS attempts, c.payload, i.is_active, i.type, i.config
      FROM inserted n JOIN claimed c ON c.id = n.event_id JOIN integrations i ON i.id = n.integration_id
    UNION ALL
    SELECT d.id, d.event_id, d.integration_id, d.status, d.attempts, e.payload, i.is_active, i.type, i.config
      FROM deliveries d JOIN events e ON e.id = d.event_id JOIN integrations i ON i.id = d.integration_id
     WHERE d.event_id = ANY(${ids}) AND d.status = 'pending' AND d.attempts = 0`);
  return result.rows.map(toDeliveryTarget).sort((a, b) => a.id - b.id);
}

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
export async function relayEvent(ctx: AppContext, producers: Producers, eventId: string): Promise<number> {
  const targets = await fanOut(ctx.db, eventId);
  // Every attempt runs to its end before the job can fail and be retried: a retry started while a
  // sibling's request is still in flight would send that webhook twice.
  const results = await Promise.allSettled(
    targets.map((target) => deliverAttempt(ctx, producers, target.id, 1, target)),
  );
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) throw failure.reason;
  return targets.length;
}
