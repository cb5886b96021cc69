import { sql } from 'drizzle-orm';
import type { Executor } from '../../shared/db/index.js';
import { insertedRow } from '../../shared/db/inserted.js';

/**
 * Starts a bulk recovery: remembers the integration's newest delivery (later ones are not part of
 * it) and counts the failed and skipped deliveries it will reopen, in one statement.
 */
export async function insertRecovery(
  db: Executor,
  integrationId: number,
  since: Date,
): Promise<{ id: number; requested: number }> {
  const result = await db.execute<{ id: string | number; requested: number }>(sql`
    INSERT INTO delivery_recoveries (integration_id, since, up_to_id, requested)
    SELECT ${integrationId}, ${since.toISOString()}::timestamptz, COALESCE(max(id), 0),
           (count(*) FILTER (WHERE status IN ('failed', 'skipped') AND created_at >= ${since.toISOString()}::timestamptz))::int
      FROM deliveries WHERE integration_id = ${integrationId}
 RETURNING id, requested`);
  const row = insertedRow(result.rows, 'delivery_recoveries');
  return { id: Number(row.id), requested: row.requested };
}

export interface RecoveredPage {
  /** The integration whose deliveries were reopened (its lane sends them). */
  integrationId: number;
  /** Reopened deliveries, pending again, with the attempts made so far. */
  reopened: Array<{ deliveryId: number; attempts: number }>;
  finished: boolean;
}

/**
 * One page of a recovery, in one statement: reopens the next `pageSize` failed or skipped deliveries
 * after the recovery's cursor and advances the cursor with them, so the page and the progress commit
 * together. A rerun (a worker restarted midway) continues after the last committed page; the row
 * lock keeps two runs of one recovery from taking the same page.
 */
export async function recoverPage(
  db: Executor,
  recoveryId: number,
  pageSize: number,
): Promise<RecoveredPage> {
  const result = await db.execute<{
    reopened: Array<{ id: number; attempts: number }> | null;
    finished: boolean | null;
    integration_id: number | null;
  }>(sql`
    WITH r AS (
      SELECT * FROM delivery_recoveries WHERE id = ${recoveryId} AND finished_at IS NULL FOR UPDATE
    ), page AS (
      SELECT d.id FROM deliveries d, r
       WHERE d.integration_id = r.integration_id AND d.id > r.cursor AND d.id <= r.up_to_id
         AND d.created_at >= r.since AND d.status IN ('failed', 'skipped')
       ORDER BY d.id LIMIT ${pageSize}
    ), reopened AS (
      UPDATE deliveries d
         SET status = 'pending', next_attempt_at = clock_timestamp(), updated_at = clock_timestamp()
        FROM page WHERE d.id = page.id AND d.status IN ('failed', 'skipped')
      RETURNING d.id, d.attempts
    ), advanced AS (
      UPDATE delivery_recoveries x
         SET cursor = COALESCE((SELECT max(id) FROM page), x.cursor),
             recovered = x.recovered + (SELECT count(*) FROM reopened),
             finished_at = CASE WHEN (SELECT count(*) FROM page) < ${pageSize} THEN clock_timestamp() END
        FROM r WHERE x.id = r.id
      RETURNING x.finished_at
    )
    SELECT (SELECT json_agg(json_build_object('id', id, 'attempts', attempts) ORDER BY id) FROM reopened) AS reopened,
           COALESCE((SELECT finished_at IS NOT NULL FROM advanced), true) AS finished,
           (SELECT integration_id FROM r) AS integration_id`);
  const row = result.rows[0];
  return {
    integrationId: row?.integration_id ?? 0,
    reopened: (row?.reopened ?? []).map((d) => ({ deliveryId: Number(d.id), attempts: d.attempts })),
    finished: row?.finished ?? true,
  };
}
