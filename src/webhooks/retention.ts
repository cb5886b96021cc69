import type { Db } from '../shared/db/index.js';
import { pruneBatch, type PrunedBatch } from './repository/retention.js';

const BATCH = 1000;
const DAY_MS = 86_400_000;

/**
 * Retention: events, deliveries and attempts older than `retentionDays` are deleted in batches of
 * a thousand until none are left, so tables that grow with traffic stay bounded. What is still in
 * flight (an unrelayed event, a pending delivery) is kept whatever its age.
 */
export async function pruneExpired(db: Db, retentionDays: number, batch = BATCH): Promise<PrunedBatch> {
  return pruneBefore(db, new Date(Date.now() - retentionDays * DAY_MS), batch);
}

/** Prunes what finished before `cutoff`, in batches, until none is left. */
export async function pruneBefore(db: Db, cutoff: Date, batch = BATCH): Promise<PrunedBatch> {
  const total: PrunedBatch = { events: 0, deliveries: 0, attempts: 0 };
  for (;;) {
    const pruned = await pruneBatch(db, cutoff, batch);
    total.events += pruned.events;
    total.deliveries += pruned.deliveries;
    total.attempts += pruned.attempts;
    if (pruned.events < batch && pruned.deliveries < batch) return total;
  }
}
