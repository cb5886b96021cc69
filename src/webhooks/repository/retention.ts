import { sql } from 'drizzle-orm';
import type { Executor } from '../../shared/db/index.js';
import { EVENT_UNCLAIMED } from './shared.js';

export interface PrunedBatch {
  events: number;
  deliveries: number;
  attempts: number;
}

/**
 * Deletes at most `batch` finished deliveries created before `cutoff` (their attempts go with
 * them), then at most `batch` relayed events before `cutoff` that no delivery still needs. Pending
 * deliveries and unrelayed events are never touched, whatever their age. Small batches keep each
 * statement's locks and WAL short on a busy database.
 */
export async function pruneBatch(db: Executor, cutoff: Date, batch: number): Promise<PrunedBatch> {
  const before = cutoff.toISOString();
  const deliveriesResult = await db.execute<{ deliveries: number; attempts: number }>(sql`
    WITH doomed AS (
      SELECT id FROM deliveries
       WHERE created_at < ${before}::timestamptz AND status <> 'pending'
       ORDER BY id LIMIT ${batch}
    ), attempts AS (
      DELETE FROM delivery_attempts a USING doomed WHERE a.delivery_id = doomed.id RETURNING a.id
    ), removed AS (
      DELETE FROM deliveries d USING doomed WHERE d.id = doomed.id RETURNING d.id
    )
    SELECT (SELECT count(*) FROM removed)::int AS deliveries, (SELECT count(*) FROM attempts)::int AS attempts`);
  const eventsResult = await db.execute<{ events: number }>(sql`
    WITH doomed AS (
      SELECT e.id FROM events e
       WHERE e.created_at < ${before}::timestamptz
         AND NOT ${EVENT_UNCLAIMED}
         AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id)
       ORDER BY e.created_at LIMIT ${batch}
    ), removed AS (
      DELETE FROM events e USING doomed WHERE e.id = doomed.id RETURNING e.id
    )
    SELECT count(*)::int AS events FROM removed`);
  await db.execute(sql`
    DELETE FROM delivery_recoveries WHERE id IN (
      SELECT id FROM delivery_recoveries
       WHERE finished_at IS NOT NULL AND created_at < ${before}::timestamptz LIMIT ${batch})`);
  return {
    events: eventsResult.rows[0]?.events ?? 0,
    deliveries: deliveriesResult.rows[0]?.deliveries ?? 0,
    attempts: deliveriesResult.rows[0]?.attempts ?? 0,
  };
}
