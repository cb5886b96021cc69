import type { AppContext } from '../shared/context.js';
import { batcherFor, MicroBatcher } from '../shared/batcher.js';
import { nudgeLocalLanes } from './lane-runner.js';
import { enqueueLaneJobs } from './lanes.js';
import { webhookEventsFiltered } from '../shared/metrics.js';
import { fanOutEvents, type FanOutResult, type LiveEvent } from './repository/fan-out.js';

export type { LiveEvent } from './repository/fan-out.js';

/** Counts what the integrations' filters left out of one fan-out. */
function countFiltered(fanned: FanOutResult): void {
  for (const { integrationId, count } of fanned.filtered)
    webhookEventsFiltered.inc({ integration_id: String(integrationId) }, count);
}

/** Most events one fan-out statement claims; a larger backlog takes several. */
const CLAIM_LIMIT = 1000;

/**
 * Relay jobs whose events one statement fans out. One statement at a time per process: two would lock
 * the same company's unclaimed events and wait for each other, so the jobs that arrive meanwhile join
 * the next one instead.
 */
const RELAY_BATCH_MAX = 500;

/** The ids of those of `events` whose kind is one of `kinds`. */
export function idsOfKinds(events: LiveEvent[], kinds: readonly string[]): string[] {
  return events.filter((event) => kinds.includes(event.type)).map((event) => event.id);
}

/** One event's answer from a batched fan-out. */
interface Relayed {
  /** False: the backlog before it was longer than one statement takes, so it may be unclaimed still. */
  claimed: boolean;
  /** The event, when it is live and not a test event. */
  live: LiveEvent | undefined;
}

const relayBatchers = new WeakMap<AppContext, MicroBatcher<string, Relayed>>();

/**
 * Fans out the events of every relay job running at this moment in one statement (under load this
 * saves a round trip per event), then adds the jobs of the lanes that woke. Resolves, per event,
 * whether it is surely claimed now, and the event itself when it is live.
 */
function fanOutBatched(ctx: AppContext, eventId: string): Promise<Relayed> {
  const batcher = batcherFor(
    relayBatchers,
    ctx,
    () =>
      new MicroBatcher(
        async (eventIds: string[]) => {
          const fanned = await fanOutEvents(ctx.db, [...new Set(eventIds)], CLAIM_LIMIT);
          countFiltered(fanned);
          nudgeLocalLanes(
            ctx,
            fanned.lanes.map((w) => w.integrationId),
          );
          await enqueueLaneJobs(
            ctx,
            fanned.lanes.map((w) => ({ ...w, replaces: true })),
          );
          const live = new Map(fanned.liveEvents.map((event) => [event.id, event]));
          return eventIds.map((id) => ({ claimed: fanned.claimed < CLAIM_LIMIT, live: live.get(id) }));
        },
        RELAY_BATCH_MAX,
        1,
      ),
  );
  return batcher.push(eventId);
}

/**
 * Relays committed events: claims them (with every unclaimed event of their companies written
 * before them), fans them out into deliveries and wakes their integrations' lanes, which send them.
 * Safe to run twice: a claimed event is not claimed again. Nothing is sent here, so a relay never
 * waits for a receiver. Returns those of the events that are live and not test events, with their
 * kinds, for the after-sale steps (an event relayed before is returned again: those steps are
 * idempotent, and a retried job must reach them).
 */
export async function relayEvents(ctx: AppContext, eventIds: string[]): Promise<LiveEvent[]> {
  const answers = await Promise.all(
    eventIds.map(async (eventId) => {
      let answer = await fanOutBatched(ctx, eventId);
      while (!answer.claimed) {
        // A backlog longer than one statement: claim the next part, oldest first, until ours is in.
        answer = await fanOutBatched(ctx, eventId);
      }
      return answer.live;
    }),
  );
  return answers.filter((event) => event !== undefined);
}

/** Relays these unclaimed events and their companies' earlier ones (the sweep's part), oldest first. */
export async function relayBacklog(ctx: AppContext, eventIds: string[]): Promise<number> {
  let claimed = 0;
  for (;;) {
    const fanned = await fanOutEvents(ctx.db, eventIds, CLAIM_LIMIT);
    countFiltered(fanned);
    nudgeLocalLanes(
      ctx,
      fanned.lanes.map((w) => w.integrationId),
    );
    await enqueueLaneJobs(
      ctx,
      fanned.lanes.map((w) => ({ ...w, replaces: true })),
    );
    claimed += fanned.claimed;
    if (fanned.claimed < CLAIM_LIMIT) return claimed;
  }
}
