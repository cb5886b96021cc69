import { sql, type SQL } from 'drizzle-orm';
import { EVENT_KINDS, PRODUCTLESS_EVENT_KINDS, subscribedKindsFor } from '../../events/kinds.js';
import type { Executor } from '../../shared/db/index.js';
import { executeNamed } from '../../shared/db/prepared.js';
import { EVENT_UNCLAIMED, toId } from './shared.js';
import { WAKE_LANES_SET, type LaneWake } from './lanes.js';

/**
 * Kinds that reach more than their own subscribers, as the JSON the fan-out statement reads
 * (`order.payment_declined` also reaches `order.failed`): bound as one parameter.
 */
const SUBSCRIBERS = JSON.stringify(
  Object.fromEntries(
    EVENT_KINDS.filter((kind) => subscribedKindsFor(kind).length > 1).map((kind) => [
      kind,
      subscribedKindsFor(kind),
    ]),
  ),
);

export interface FanOutResult {
  /** Events this statement claimed (the asked-for ones and their companies' unclaimed earlier ones). */
  claimed: number;
  deliveries: number;
  /** Per integration, the events its filter left out (no delivery made): counted in /metrics. */
  filtered: Array<{ integrationId: number; count: number }>;
  /** Lanes woken for the new deliveries; those with `enqueue` need their job added. */
  lanes: LaneWake[];
  /**
   * Of the asked-for events, claimed now or before, those of live mode that are not test events,
   * with their kind: the only ones the after-sale steps (buyer e-mail, service invoices) look at.
   */
  liveEvents: LiveEvent[];
}

/** A live, non-test event the relay was asked for: what the after-sale steps choose by. */
export interface LiveEvent {
  id: string;
  type: string;
}

/**
 * Fans events out into one delivery per matching integration: active, webhook-kind, subscribed to
 * the kind (or to `order.failed` for a declined payment), covering the event's product unless the
 * kind ignores the product filter or the event has none; never the integration an operational
 * event describes; and whose webhook filter, if any, the event's body matches (every entry: the value
 * at its dotted path equals the entry's value or one of its list). An event a filter leaves out makes
 * no delivery, so it costs the lane nothing; it is only counted.
 *
 * In outbox order: for each company of `eventIds`, the statement claims every unclaimed event of
 * that company written up to the newest of them (at most `limit` in all, oldest first), waiting for
 * a concurrent relay that holds some of them, and numbers the deliveries in that order. So an integration's deliveries are numbered in the order
 * their events committed, whichever relay job runs first. Claiming, inserting the deliveries and
 * waking their lanes commit together: a repeated relay claims nothing.
 */
export async function fanOutEvents(db: Executor, eventIds: string[], limit = 1000): Promise<FanOutResult> {
  const result = await executeNamed<{
    claimed: number;
    deliveries: number;
    lanes: Array<{ integration_id: number; generation: string | number; enqueue: boolean }> | null;
    filtered: Array<{ integration_id: number; count: number }> | null;
    live_events: LiveEvent[] | null;
  }>(db, 'webhooks_fan_out', fanOutSql(eventIds, limit));
  const row = result.rows[0];
  return {
    claimed: row?.claimed ?? 0,
    deliveries: row?.deliveries ?? 0,
    filtered: (row?.filtered ?? []).map((f) => ({ integrationId: f.integration_id, count: f.count })),
    lanes: (row?.lanes ?? []).map((l) => ({
      integrationId: l.integration_id,
      generation: toId(l.generation),
      enqueue: l.enqueue,
    })),
    liveEvents: row?.live_events ?? [],
  };
}

function fanOutSql(eventIds: string[], limit: number): SQL {
  return sql`
    WITH asked AS MATERIALIZED (
      -- By primary key, and whether each is still in the outbox (by its primary key there). Its kind
      -- and mode too: the after-sale steps read them here rather than look the events up again.
      SELECT e.id, e.company_id, e.seq, e.type, e.livemode AND NOT e.test AS live,
             ${EVENT_UNCLAIMED} AS unclaimed
        FROM events e WHERE e.id = ANY(${sql.param(eventIds)}::text[])
    ), target AS (
      -- An event already claimed asks for nothing more: its relay costs two primary-key lookups.
      SELECT company_id, max(seq) AS upto FROM asked WHERE unclaimed GROUP BY company_id
    ), claimable AS (
      -- Per company, a range scan of its outbox rows up to the newest asked for, which stops at the
      -- limit. The outbox holds only unclaimed events (and, until the sweep's vacuum, the dead rows of
      -- those claimed since), so this reads a few pages whatever the size of \`events\`.
      SELECT c.seq, c.event_id FROM target t CROSS JOIN LATERAL (
        SELECT o.seq, o.event_id FROM event_outbox o
         WHERE o.company_id = t.company_id AND o.seq <= t.upto
         ORDER BY o.seq LIMIT ${limit}
           FOR UPDATE
      ) c
       ORDER BY c.seq LIMIT ${limit}
    ), taken AS (
      DELETE FROM event_outbox o WHERE o.seq = ANY(ARRAY(SELECT seq FROM claimable))
   RETURNING o.event_id
    ), claimed AS (
      -- Read, not written: leaving the outbox is what claims an event, so \`events\` is not rewritten
      -- (a new version of each row and of its index entries) as it was when the claim set relayed_at.
      -- By primary key, as an array (one index descent per event, whatever the planner guesses of the
      -- CTE's size). "relayed_at IS NULL": an event a worker of the version before the outbox claimed
      -- (while a deployment rolls) is not fanned out twice.
      SELECT e.id, e.seq, e.company_id, e.type, e.livemode, e.product_id, e.integration_id, e.payload
        FROM events e
       WHERE e.id = ANY(ARRAY(SELECT event_id FROM taken)) AND e.relayed_at IS NULL
    ), matched AS (
      SELECT c.id, c.seq, i.id AS integration_id,
             -- No filter, or every entry's path holds its value (or one of its list's).
             (i.filter IS NULL OR NOT EXISTS (
                SELECT 1 FROM jsonb_each(i.filter) f(path, wanted)
                 WHERE NOT EXISTS (
                   SELECT 1 FROM jsonb_array_elements(CASE jsonb_typeof(f.wanted) WHEN 'array' THEN f.wanted
                                                      ELSE jsonb_build_array(f.wanted) END) w(value)
                    WHERE w.value = c.payload #> string_to_array(f.path, '.')))) AS passes
        FROM claimed c
        JOIN integrations i ON i.company_id = c.company_id
       WHERE i.is_active
         -- As the integration's kind decided: every event, live ones only, or none.
         AND (i.receives = 'all' OR (i.receives = 'live' AND c.livemode))
         AND i.events && COALESCE(
               (SELECT array_agg(k) FROM jsonb_array_elements_text(${SUBSCRIBERS}::jsonb -> c.type) k),
               ARRAY[c.type])
         AND (c.type = ANY(${sql.param(PRODUCTLESS_EVENT_KINDS)}::text[]) OR c.product_id IS NULL
              OR i.send_to_all_products OR c.product_id = ANY(i.product_ids))
         AND (c.integration_id IS NULL OR c.integration_id <> i.id)
    ), inserted AS (
      INSERT INTO deliveries (event_id, integration_id, next_attempt_at)
      SELECT m.id, m.integration_id, clock_timestamp()
        FROM matched m
       WHERE m.passes
       ORDER BY m.seq, m.integration_id
      ON CONFLICT (event_id, integration_id) DO NOTHING
   RETURNING integration_id
    ), woken AS (
      ${WAKE_LANES_SET(sql`SELECT DISTINCT integration_id FROM inserted ORDER BY integration_id`)}
    )
    SELECT (SELECT count(*) FROM taken)::int AS claimed,
           (SELECT count(*) FROM inserted)::int AS deliveries,
           (SELECT json_agg(json_build_object('integration_id', integration_id, 'generation', generation,
                                              'enqueue', enqueue)) FROM woken) AS lanes,
           (SELECT json_agg(json_build_object('integration_id', integration_id, 'count', n))
              FROM (SELECT integration_id, count(*)::int AS n FROM matched WHERE NOT passes
                     GROUP BY integration_id) f) AS filtered,
           (SELECT json_agg(json_build_object('id', id, 'type', type)) FROM asked WHERE live) AS live_events`;
}

/** Events committed more than `graceMs` ago that no relay has claimed, oldest first. */
export async function unrelayedEvents(db: Executor, graceMs: number, limit: number): Promise<string[]> {
  const result = await db.execute<{ id: string }>(sql`
    SELECT o.event_id AS id FROM event_outbox o JOIN events e ON e.id = o.event_id
     WHERE e.created_at < clock_timestamp() - make_interval(secs => ${graceMs / 1000})
     ORDER BY o.seq LIMIT ${limit}`);
  return result.rows.map((r) => r.id);
}

/** Seconds since the oldest committed event that no relay has claimed (0 when there is none). */
export async function oldestUnrelayedAgeSeconds(db: Executor): Promise<number> {
  const result = await db.execute<{ age: number | string | null }>(sql`
    SELECT EXTRACT(EPOCH FROM clock_timestamp() - e.created_at) AS age
      FROM event_outbox o JOIN events e ON e.id = o.event_id ORDER BY o.seq LIMIT 1`);
  return Number(result.rows[0]?.age ?? 0);
}

/**
 * Vacuums the outbox: each claim deletes its rows, and until a vacuum their dead index entries stay
 * in the way of the next claims' reads. The table holds only events in flight, so this takes
 * milliseconds; the sweep runs it every OUTBOX_SWEEP_MS, autovacuum or not. SKIP_LOCKED: another
 * worker's vacuum already running is enough.
 */
export async function vacuumOutbox(db: Executor): Promise<void> {
  await db.execute(sql`VACUUM (SKIP_LOCKED) event_outbox`);
}
