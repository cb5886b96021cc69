/**
 * The state of each integration's delivery lane (table `delivery_lanes`). PostgreSQL decides who
 * sends for a lane and when its next job is due; Redis only carries the jobs that start a runner.
 * See `lane-runner.ts` for the runner and docs/webhooks.md for the design.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../shared/db/index.js';
import { executeNamed } from '../../shared/db/prepared.js';
import type { DeliveryStatus } from '../../shared/enums/delivery-statuses.js';
import { traceCarrierFrom, type TraceCarrier } from '../../shared/tracing.js';
import { deliveryTarget, SENDING_COLUMNS, toDate, toId, type SendingRow } from './shared.js';
import type { DeliveryTarget } from '../../integrations/kinds/kind.js';

/** A lane that a wake touched: `enqueue` when that wake started a new generation (add its job). */
export interface LaneWake {
  integrationId: number;
  generation: number;
  enqueue: boolean;
}

/**
 * The upsert that wakes the lanes of the integration ids `source` selects (in id order, so
 * concurrent wakes lock rows in one order). A lane that is idle or sleeping starts a new generation
 * due now (its job must be added); a lane whose job is queued or running only has its `wake_seq`
 * bumped, which its runner sees before it stops. Returns `integration_id, generation, enqueue`.
 */
export const WAKE_LANES_SET = (source: SQL): SQL => sql`
  INSERT INTO delivery_lanes AS l (integration_id, job_at)
  SELECT integration_id, statement_timestamp() FROM (${source}) AS woken_ids
  ON CONFLICT (integration_id) DO UPDATE SET
    wake_seq = l.wake_seq + 1,
    generation = CASE WHEN l.job_at IS NULL OR l.job_at > statement_timestamp() THEN l.generation + 1 ELSE l.generation END,
    bumped_at_wake = CASE WHEN l.job_at IS NULL OR l.job_at > statement_timestamp() THEN l.wake_seq + 1 ELSE l.bumped_at_wake END,
    job_at = CASE WHEN l.job_at IS NULL OR l.job_at > statement_timestamp() THEN statement_timestamp() ELSE l.job_at END,
    updated_at = clock_timestamp()
  RETURNING integration_id, generation, bumped_at_wake = wake_seq AS enqueue`;

interface WakeRow extends Record<string, unknown> {
  integration_id: number;
  generation: string | number;
  enqueue: boolean;
}
const toWake = (r: WakeRow): LaneWake => ({
  integrationId: r.integration_id,
  generation: toId(r.generation),
  enqueue: r.enqueue,
});

/** Wakes the lanes of these integrations (their deliveries were reopened or made due). */
export async function wakeLanes(db: Executor, integrationIds: number[]): Promise<LaneWake[]> {
  if (integrationIds.length === 0) return [];
  const ids = [...new Set(integrationIds)].sort((a, b) => a - b);
  const result = await executeNamed<WakeRow>(
    db,
    'webhooks_lane_wake',
    WAKE_LANES_SET(sql`SELECT unnest(${sql.param(ids)}::int[]) AS integration_id ORDER BY 1`),
  );
  return result.rows.map(toWake);
}

export type AcquireResult =
  | {
      kind: 'acquired';
      wakeSeq: number;
      pausedUntil: Date | null;
      nextStartAt: Date | null;
    }
  /** The job belongs to a generation that was replaced (or the lane is gone): nothing to do. */
  | { kind: 'stale' }
  /** Another runner holds the lane; its claim lapses at `leaseUntil` if it died. */
  | { kind: 'busy'; leaseUntil: Date };

/** Claims the lane for the runner of `generation`, unless a live runner holds it. */
export async function acquireLane(
  db: Executor,
  integrationId: number,
  generation: number,
  token: string,
  leaseMs: number,
): Promise<AcquireResult> {
  const result = await executeNamed<{
    acquired: boolean | null;
    wake_seq: string | number | null;
    paused_until: Date | string | null;
    next_start_at: Date | string | null;
    generation: string | number;
    lease_until: Date | string | null;
  }>(
    db,
    'webhooks_lane_acquire',
    sql`
    WITH acquired AS (
      UPDATE delivery_lanes
         SET owner = ${token}, lease_until = clock_timestamp() + make_interval(secs => ${leaseMs / 1000}),
             updated_at = clock_timestamp()
       WHERE integration_id = ${integrationId} AND generation = ${generation}
         AND (owner IS NULL OR owner = ${token} OR lease_until < clock_timestamp())
   RETURNING wake_seq, paused_until, next_start_at
    )
    SELECT a.wake_seq IS NOT NULL AS acquired, a.wake_seq, a.paused_until, a.next_start_at,
           l.generation, l.lease_until
      FROM delivery_lanes l LEFT JOIN acquired a ON true
     WHERE l.integration_id = ${integrationId}`,
  );
  const row = result.rows[0];
  if (!row || (!row.acquired && toId(row.generation) !== generation)) return { kind: 'stale' };
  if (!row.acquired) return { kind: 'busy', leaseUntil: toDate(row.lease_until) ?? new Date() };
  return {
    kind: 'acquired',
    wakeSeq: toId(row.wake_seq ?? 0),
    pausedUntil: toDate(row.paused_until),
    nextStartAt: toDate(row.next_start_at),
  };
}

/** One pending delivery a lane will send, with what the attempt needs (read at run time: the secret never travels through Redis). */
export interface LaneDelivery {
  id: number;
  eventId: string;
  integrationId: number;
  /** Attempts recorded so far: this one is number `attempts + 1`. */
  attempts: number;
  payload: Record<string, unknown>;
  /** The trace the event was recorded in (tracing on): its webhook POSTs continue it. */
  traceContext: TraceCarrier | null;
}

export interface LaneBatch {
  wakeSeq: number;
  pausedUntil: Date | null;
  integration: DeliveryTarget & { active: boolean; rateLimitPerSecond: number | null };
  /** Due deliveries in id order (first attempts in commit order, retries whose time has come). */
  deliveries: LaneDelivery[];
}

/**
 * The lane's next due deliveries (at most `limit`, leaving out `skipIds`: those in flight or
 * already read), the integration's sending facts and the lane's wake counter, in one statement
 * that also renews the runner's claim. Undefined when the runner no longer holds the lane.
 * First attempts are read from the one after `afterId` on (0: from the lane's oldest).
 */
export async function readLaneBatch(
  db: Executor,
  integrationId: number,
  token: string,
  leaseMs: number,
  skipIds: number[],
  limit: number,
  afterId = 0,
): Promise<LaneBatch | undefined> {
  const skip = sql`${sql.param(skipIds)}::bigint[]`;
  const result = await executeNamed<
    SendingRow & {
      wake_seq: string | number;
      paused_until: Date | string | null;
      is_active: boolean;
      rate_limit_per_second: number | null;
      id: string | number | null;
      event_id: string | null;
      attempts: number | null;
      payload: Record<string, unknown> | null;
      trace_context: unknown;
    }
  >(
    db,
    'webhooks_lane_read',
    sql`
    WITH lane AS (
      UPDATE delivery_lanes
         SET lease_until = clock_timestamp() + make_interval(secs => ${leaseMs / 1000})
       WHERE integration_id = ${integrationId} AND owner = ${token}
   RETURNING integration_id, wake_seq, paused_until
    ), due AS (
      (SELECT d.id, d.event_id, d.attempts FROM deliveries d
        WHERE d.integration_id = ${integrationId} AND d.status = 'pending' AND d.attempts = 0
          AND d.id > ${afterId} AND d.id <> ALL(${skip})
        ORDER BY d.id LIMIT ${limit})
      UNION ALL
      (SELECT d.id, d.event_id, d.attempts FROM deliveries d
        WHERE d.integration_id = ${integrationId} AND d.status = 'pending' AND d.attempts > 0
          AND d.next_attempt_at <= clock_timestamp() AND d.id <> ALL(${skip})
        ORDER BY d.next_attempt_at LIMIT ${limit})
    ), first AS (
      SELECT * FROM due ORDER BY id LIMIT ${limit}
    )
    SELECT lane.wake_seq, lane.paused_until, i.is_active, i.rate_limit_per_second, ${SENDING_COLUMNS},
           first.id, first.event_id, first.attempts, e.payload, e.trace_context
      FROM lane
      JOIN integrations i ON i.id = lane.integration_id
      LEFT JOIN first ON true
      LEFT JOIN events e ON e.id = first.event_id
     ORDER BY first.id`,
  );
  const [head] = result.rows;
  // No row: the runner lost its claim (it lapsed and another runner took it), or the integration is gone.
  if (!head) return undefined;
  return {
    wakeSeq: toId(head.wake_seq),
    pausedUntil: toDate(head.paused_until),
    integration: {
      ...deliveryTarget(head),
      active: head.is_active,
      rateLimitPerSecond: head.rate_limit_per_second,
    },
    deliveries: result.rows.flatMap((r) =>
      r.id === null || r.event_id === null || r.payload === null
        ? []
        : [
            {
              id: toId(r.id),
              eventId: r.event_id,
              integrationId,
              attempts: r.attempts ?? 0,
              payload: r.payload,
              traceContext: traceCarrierFrom(r.trace_context),
            },
          ],
    ),
  };
}

/** Renews the runner's claim while its requests are in flight; false when the claim was lost. */
export async function renewLease(
  db: Executor,
  integrationId: number,
  token: string,
  leaseMs: number,
): Promise<boolean> {
  const result = await executeNamed(
    db,
    'webhooks_lane_renew',
    sql`
    UPDATE delivery_lanes SET lease_until = clock_timestamp() + make_interval(secs => ${leaseMs / 1000})
     WHERE integration_id = ${integrationId} AND owner = ${token}`,
  );
  return (result.rowCount ?? 0) > 0;
}

/** What a runner hands on when it stops: the pause and the rate limit's next free start. */
export interface LaneCarry {
  pausedUntil: Date | null;
  nextStartAt: Date | null;
}

export type ReleaseResult =
  /** A wake arrived since the runner last read the lane: read again. */
  | { kind: 'woken' }
  /** Work is due now (a retry's time came): read again. */
  | { kind: 'due' }
  /** Released: idle (`jobAt` null), or sleeping until `jobAt` under a new `generation`. */
  | { kind: 'released'; generation: number; jobAt: Date | null }
  | { kind: 'lost' };

/**
 * The runner stops: if nothing woke the lane since `seenWakeSeq` and nothing is due, the lane goes
 * idle, or to sleep until its next due delivery (no earlier than `notBefore`: the end of a pause
 * or the next rate-limit slot), with a new generation whose job the caller adds, delayed.
 */
export async function releaseLane(
  db: Executor,
  integrationId: number,
  token: string,
  seenWakeSeq: number,
  notBefore: Date | null,
  carry: LaneCarry,
): Promise<ReleaseResult> {
  const ts = (d: Date | null) => sql`${d === null ? null : d.toISOString()}::timestamptz`;
  const result = await executeNamed<{
    outcome: 'woken' | 'due' | 'released';
    generation: string | number | null;
    job_at: Date | string | null;
  }>(
    db,
    'webhooks_lane_release',
    sql`
    WITH lane AS (
      SELECT integration_id, wake_seq FROM delivery_lanes
       WHERE integration_id = ${integrationId} AND owner = ${token}
         FOR UPDATE
    ), next AS (
      SELECT LEAST(
        (SELECT clock_timestamp() FROM deliveries
          WHERE integration_id = ${integrationId} AND status = 'pending' AND attempts = 0 LIMIT 1),
        (SELECT min(next_attempt_at) FROM deliveries
          WHERE integration_id = ${integrationId} AND status = 'pending' AND attempts > 0)) AS due
    ), decision AS (
      SELECT lane.integration_id,
             CASE WHEN next.due IS NULL THEN NULL ELSE GREATEST(next.due, ${ts(notBefore)}) END AS wake_at,
             CASE WHEN lane.wake_seq <> ${seenWakeSeq} THEN 'woken'
                  WHEN next.due IS NOT NULL
                   AND GREATEST(next.due, ${ts(notBefore)}) <= clock_timestamp() + interval '5 milliseconds'
                  THEN 'due'
                  ELSE 'released' END AS outcome
        FROM lane, next
    ), released AS (
      UPDATE delivery_lanes l
         SET owner = NULL, lease_until = NULL, job_at = d.wake_at,
             generation = l.generation + CASE WHEN d.wake_at IS NULL THEN 0 ELSE 1 END,
             paused_until = ${ts(carry.pausedUntil)}, next_start_at = ${ts(carry.nextStartAt)},
             updated_at = clock_timestamp()
        FROM decision d
       WHERE l.integration_id = d.integration_id AND d.outcome = 'released'
   RETURNING l.generation, l.job_at
    )
    SELECT d.outcome, r.generation, r.job_at FROM decision d LEFT JOIN released r ON true`,
  );
  const row = result.rows[0];
  if (!row) return { kind: 'lost' };
  if (row.outcome !== 'released') return { kind: row.outcome };
  return { kind: 'released', generation: toId(row.generation ?? 0), jobAt: toDate(row.job_at) };
}

/**
 * The runner gives its turn up (its time slice ended, or its worker is shutting down): the lane is
 * queued again under a new generation, due now, for whichever worker takes its job next.
 */
export async function yieldLane(
  db: Executor,
  integrationId: number,
  token: string,
  carry: LaneCarry,
): Promise<number | undefined> {
  const ts = (d: Date | null) => sql`${d === null ? null : d.toISOString()}::timestamptz`;
  const result = await executeNamed<{ generation: string | number }>(
    db,
    'webhooks_lane_yield',
    sql`
    UPDATE delivery_lanes
       SET owner = NULL, lease_until = NULL, generation = generation + 1, job_at = clock_timestamp(),
           paused_until = ${ts(carry.pausedUntil)}, next_start_at = ${ts(carry.nextStartAt)},
           updated_at = clock_timestamp()
     WHERE integration_id = ${integrationId} AND owner = ${token}
 RETURNING generation`,
  );
  const row = result.rows[0];
  return row ? toId(row.generation) : undefined;
}

/**
 * Records the due deliveries of an integration that no longer sends (inactive) as skipped: recorded,
 * never attempted. Only its lane's runner calls this.
 */
export async function skipDueDeliveries(
  db: Executor,
  integrationId: number,
  reason: string,
): Promise<number> {
  const result = await db.execute(sql`
    UPDATE deliveries
       SET status = ${'skipped' satisfies DeliveryStatus}, last_error = ${reason}, next_attempt_at = NULL,
           updated_at = clock_timestamp()
     WHERE integration_id = ${integrationId} AND status = 'pending'
       AND (attempts = 0 OR next_attempt_at <= clock_timestamp())`);
  return result.rowCount ?? 0;
}

/** Lanes whose job is due but that no live runner holds: their job may have been lost. */
export async function lanesAwaitingJob(
  db: Executor,
  graceMs: number,
  limit: number,
): Promise<Array<{ integrationId: number; generation: number }>> {
  const result = await db.execute<{ integration_id: number; generation: string | number }>(sql`
    SELECT integration_id, generation FROM delivery_lanes
     WHERE job_at < clock_timestamp() - make_interval(secs => ${graceMs / 1000})
       AND (owner IS NULL OR lease_until < clock_timestamp())
     ORDER BY job_at LIMIT ${limit}`);
  return result.rows.map((r) => ({ integrationId: r.integration_id, generation: toId(r.generation) }));
}

/**
 * Integrations with deliveries overdue by more than `graceMs` whose lane expects no job (or has no
 * row yet: deliveries written before lanes existed): they need a wake.
 */
export async function idleLanesWithDueWork(db: Executor, graceMs: number, limit: number): Promise<number[]> {
  const before = sql`clock_timestamp() - make_interval(secs => ${graceMs / 1000})`;
  const result = await db.execute<{ id: number }>(sql`
    SELECT i.id FROM integrations i
      LEFT JOIN delivery_lanes l ON l.integration_id = i.id
     WHERE l.job_at IS NULL
       AND (EXISTS (SELECT 1 FROM deliveries d
                     WHERE d.integration_id = i.id AND d.status = 'pending' AND d.attempts = 0
                       AND d.next_attempt_at < ${before})
         OR EXISTS (SELECT 1 FROM deliveries d
                     WHERE d.integration_id = i.id AND d.status = 'pending' AND d.attempts > 0
                       AND d.next_attempt_at < ${before}))
     ORDER BY i.id LIMIT ${limit}`);
  return result.rows.map((r) => r.id);
}
