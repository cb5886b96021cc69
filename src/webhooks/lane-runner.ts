/**
 * A lane runner sends one integration's deliveries: in commit order, at most WEBHOOK_MAX_IN_FLIGHT
 * at once and no faster than the integration's `rate_limit_per_second`, across every worker process
 * (one runner holds a lane at a time, by a claim in PostgreSQL). A slow or hanging receiver only
 * keeps its own runner busy; a paused or rate-limited lane with nothing in flight sleeps as a delayed
 * job instead of holding a worker slot. Everything it sends is recorded in PostgreSQL before it
 * counts as done, so a runner that dies loses nothing: its claim lapses, another runner takes the
 * lane, and what was in flight is sent again (receivers deduplicate on `webhook-id`).
 */
import { kindOf } from '../integrations/kinds/registry.js';
import type { AppContext } from '../shared/context.js';
import {
  noteBreakerOpened,
  recordAttempt,
  reportFailedAttempt,
  sendAttempt,
  type AttemptOutcome,
} from './attempt.js';
import { enqueueLaneJobs } from './lanes.js';
import {
  acquireLane,
  readLaneBatch,
  releaseLane,
  renewLease,
  skipDueDeliveries,
  yieldLane,
  type LaneBatch,
  type LaneDelivery,
} from './repository/lanes.js';

export interface LaneJobData {
  integrationId: number;
  generation: number;
}

export interface LaneRunOptions {
  /** How long a claim holds without renewal: a dead runner's lane is taken over once it lapses. */
  leaseMs: number;
  /** After this long a runner hands its lane on, so lanes waiting for a worker slot get their turn. */
  sliceMs: number;
  /** True once the worker is shutting down: finish what is in flight, then hand the lane on. */
  stopping: () => boolean;
  /** How long an idle runner keeps its lane while a slot is free (LINGER_MS unless given). */
  lingerMs?: number;
}

export type LaneRunOutcome =
  /** The job's generation was replaced (a newer job runs the lane): nothing to do. */
  | { kind: 'stale' }
  /** Another runner holds the lane; try again once its claim would have lapsed. */
  | { kind: 'busy'; retryAt: Date }
  | { kind: 'released'; sent: number; sleepingUntil: Date | null }
  | { kind: 'yielded'; sent: number }
  | { kind: 'lost'; sent: number };

/** A wait longer than this (a pause, the next rate-limit slot) is slept as a delayed job. */
const SLEEP_AFTER_MS = 250;
/** How soon to look again for new deliveries while slots are free and nothing is buffered. */
const IDLE_POLL_MS = [20, 50, 100, 200, 400, 800];
/**
 * How long a runner with nothing to send keeps its lane, while its process has a lane slot free,
 * before releasing it. Under a steady stream a lane runs dry between deliveries many times a second:
 * released each time, the next delivery waited for a new lane job to be added, taken and claimed
 * (the slowest 1 % of first attempts at 500 events/s were all such waits). Kept, it is sent as soon
 * as a relay in this process nudges the runner, or at the runner's next idle look (20–200 ms).
 */
const LINGER_MS = 500;
/**
 * How often a runner reads its lane's first attempts from the oldest. Between such reads it reads
 * on from the newest first attempt it has read: the index of pending deliveries keeps the entries of
 * every delivery sent since the last vacuum, which a read from the oldest walks over (about 1.4 ms a
 * read with 150,000 of them, at every read). Nothing is missed by reading on: the fan-out numbers an
 * integration's new deliveries after every delivery committed before it, since fan-outs of one
 * company wait for one another (their claims lock the same events). What the full read is for is a
 * delivery made due again with an old id: a skipped one reopened by a recovery or a resend.
 */
const FULL_READ_EVERY_MS = 1000;

/** The runners this process is running, by database handle and integration: a relay here nudges them. */
const localRunners = new WeakMap<object, Map<number, Set<LaneRunner>>>();

/**
 * Tells this process's running runners of these integrations that new deliveries were written, so
 * they read now rather than at their next idle poll. Only a shortcut: a runner elsewhere learns of
 * them at its next poll, and one about to stop sees the lane's wake counter moved.
 */
export function nudgeLocalLanes(ctx: Pick<AppContext, 'db'>, integrationIds: Iterable<number>): void {
  const running = localRunners.get(ctx.db);
  if (!running) return;
  for (const id of integrationIds) running.get(id)?.forEach((runner) => runner.nudge());
}

/** Lane runners running in this process (each holds one of its DELIVERY_CONCURRENCY lane slots). */
function runnersIn(ctx: Pick<AppContext, 'db'>): number {
  let count = 0;
  for (const runners of localRunners.get(ctx.db)?.values() ?? []) count += runners.size;
  return count;
}

export async function runLane(
  ctx: AppContext,
  job: LaneJobData,
  token: string,
  options: LaneRunOptions,
): Promise<LaneRunOutcome> {
  const claim = await acquireLane(ctx.db, job.integrationId, job.generation, token, options.leaseMs);
  if (claim.kind === 'stale') return claim;
  if (claim.kind === 'busy') return { kind: 'busy', retryAt: claim.leaseUntil };
  const runner = new LaneRunner(ctx, job.integrationId, token, options, {
    wakeSeq: claim.wakeSeq,
    pausedUntil: claim.pausedUntil?.getTime() ?? 0,
    nextStartAt: claim.nextStartAt?.getTime() ?? 0,
  });
  return runner.run();
}

class LaneRunner {
  private readonly cap: number;
  private readonly fetchSize: number;
  private wakeSeq: number;
  private pausedUntil: number;
  private nextStartAt: number;
  private facts: LaneBatch['integration'] | undefined;
  /** Read and not yet started, in id order. */
  private readonly buffer: LaneDelivery[] = [];
  /** Requests on the wire. */
  private readonly sending = new Set<number>();
  /** Started and not yet recorded (a read must not hand them out again). */
  private readonly unrecorded = new Set<number>();
  private readonly work = new Set<Promise<void>>();
  private moreMayBeDue = true;
  /** Nudges so far: a read that began before the latest one cannot have seen what it announced. */
  private nudges = 0;
  private idlePolls = 0;
  private sent = 0;
  private lost = false;
  private failure: unknown;
  private poke: (() => void) | undefined;
  private sliceStartedAt = Date.now();
  /** When a read last brought deliveries (or the run started): an idle runner lingers from then. */
  private lastBroughtAt = Date.now();
  /** The newest first attempt read so far: every pending one before it was read too. */
  private readFloor = 0;
  /** When the last read from the lane's oldest first attempt started. */
  private fullReadAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly ctx: AppContext,
    private readonly integrationId: number,
    private readonly token: string,
    private readonly options: LaneRunOptions,
    carried: { wakeSeq: number; pausedUntil: number; nextStartAt: number },
  ) {
    this.cap = ctx.config.webhooks.maxInFlight;
    this.fetchSize = Math.max(32, 2 * this.cap);
    this.wakeSeq = carried.wakeSeq;
    this.pausedUntil = carried.pausedUntil;
    this.nextStartAt = carried.nextStartAt;
  }

  async run(): Promise<LaneRunOutcome> {
    const heartbeat = setInterval(() => void this.renew(), Math.max(100, this.options.leaseMs / 3));
    heartbeat.unref();
    let byIntegration = localRunners.get(this.ctx.db);
    if (!byIntegration) {
      byIntegration = new Map();
      localRunners.set(this.ctx.db, byIntegration);
    }
    const mine = byIntegration.get(this.integrationId) ?? new Set<LaneRunner>();
    byIntegration.set(this.integrationId, mine.add(this));
    try {
      return await this.loop();
    } finally {
      clearInterval(heartbeat);
      mine.delete(this);
      if (mine.size === 0 && byIntegration.get(this.integrationId) === mine)
        byIntegration.delete(this.integrationId);
    }
  }

  /** New deliveries were written for this lane: read them at the next turn instead of polling. */
  nudge(): void {
    this.nudges += 1;
    this.moreMayBeDue = true;
    this.idlePolls = 0;
    this.poke?.();
  }

  private async loop(): Promise<LaneRunOutcome> {
    for (;;) {
      if (this.failure !== undefined || this.lost) {
        await Promise.allSettled([...this.work]);
        if (this.failure !== undefined) throw this.failure;
        return { kind: 'lost', sent: this.sent };
      }
      const ending = this.options.stopping() || this.sliceOver();
      // What is buffered starts before the next read: a read is a round trip, and while deliveries
      // keep coming, nudges keep asking for one.
      if (!ending) this.startWhatMay();
      if (!ending && this.moreMayBeDue && this.buffer.length < this.cap) {
        await this.read();
        continue;
      }
      if (this.sending.size === 0 && this.unrecorded.size === 0) {
        if (ending && this.buffer.length > 0) return this.handOn();
        if (this.buffer.length === 0) {
          if (!ending && this.mayLinger()) {
            await this.nextEvent(false);
            continue;
          }
          const released = await this.release(null);
          if (released) return released;
          if (ending) return this.handOn();
          continue;
        }
        const blockedUntil = this.blockedUntil();
        if (blockedUntil - Date.now() > SLEEP_AFTER_MS) {
          const released = await this.release(new Date(blockedUntil));
          if (released) return released;
          continue;
        }
      }
      await this.nextEvent(ending);
    }
  }

  /**
   * Whether the runner's time slice is over. A slice lets the lanes waiting for a worker slot have
   * one; while this process has a slot free, none waits for this one (any worker takes a waiting lane
   * job), so the runner goes on with a new slice rather than stall its lane to hand it on.
   */
  private sliceOver(): boolean {
    if (Date.now() - this.sliceStartedAt < this.options.sliceMs) return false;
    if (runnersIn(this.ctx) < this.ctx.config.workers.deliveryConcurrency) {
      this.sliceStartedAt = Date.now();
      return false;
    }
    return true;
  }

  /**
   * Whether an idle runner keeps its lane a while longer: not once it has been idle for LINGER_MS,
   * and not when every lane slot of its process is taken (a lane job waiting for one goes first).
   */
  private mayLinger(): boolean {
    return (
      Date.now() - this.lastBroughtAt < (this.options.lingerMs ?? LINGER_MS) &&
      runnersIn(this.ctx) < this.ctx.config.workers.deliveryConcurrency
    );
  }

  /** Reads the next due deliveries, and what the integration looks like now. */
  private async read(): Promise<void> {
    let batch: LaneBatch | undefined;
    const nudgesBefore = this.nudges;
    const startedAt = Date.now();
    const full = startedAt - this.fullReadAt >= FULL_READ_EVERY_MS;
    try {
      const skip = [...this.unrecorded, ...this.buffer.map((d) => d.id)];
      batch = await readLaneBatch(
        this.ctx.db,
        this.integrationId,
        this.token,
        this.options.leaseMs,
        skip,
        this.fetchSize,
        full ? 0 : this.readFloor,
      );
    } catch (err) {
      this.failure ??= err;
      return;
    }
    if (!batch) {
      this.lost = true;
      return;
    }
    this.wakeSeq = batch.wakeSeq;
    this.pausedUntil = Math.max(this.pausedUntil, batch.pausedUntil?.getTime() ?? 0);
    this.facts = batch.integration;
    const skipReason = !batch.integration.active
      ? 'integration inactive'
      : kindOf(batch.integration.type).destination
        ? undefined
        : `type ${batch.integration.type} receives no events`;
    if (skipReason !== undefined) {
      // Deliveries to an inactive integration are not attempted: they are recorded as skipped.
      this.buffer.length = 0;
      this.moreMayBeDue = false;
      try {
        await skipDueDeliveries(this.ctx.db, this.integrationId, skipReason);
      } catch (err) {
        this.failure ??= err;
      }
      return;
    }
    if (batch.deliveries.length > 0) this.lastBroughtAt = Date.now();
    if (full) this.fullReadAt = startedAt;
    // The read returns first attempts in id order from its start: all of them up to the newest it
    // returned were read (or are buffered or in flight).
    for (const delivery of batch.deliveries)
      if (delivery.attempts === 0) this.readFloor = Math.max(this.readFloor, delivery.id);
    this.buffer.push(...batch.deliveries);
    // A retry that came due may be older than what is buffered: keep commit order.
    this.buffer.sort((a, b) => a.id - b.id);
    // A nudge during the read announced deliveries its snapshot may predate: read again at once,
    // rather than wait for the next idle poll.
    const nudged = this.nudges !== nudgesBefore;
    this.moreMayBeDue = nudged || batch.deliveries.length >= this.fetchSize;
    this.idlePolls = nudged || batch.deliveries.length > 0 ? 0 : this.idlePolls + 1;
  }

  /** Starts, oldest first, as many buffered deliveries as the cap, the pause and the rate limit allow. */
  private startWhatMay(): void {
    const facts = this.facts;
    if (!facts) return;
    for (;;) {
      const next = this.buffer[0];
      if (!next || this.sending.size >= this.cap) return;
      const now = Date.now();
      if (now < this.pausedUntil) return;
      const rate = facts.rateLimitPerSecond;
      if (rate !== null && now < this.nextStartAt) return;
      this.buffer.shift();
      if (rate !== null) this.nextStartAt = Math.max(this.nextStartAt, now) + 1000 / rate;
      this.start(facts, next);
    }
  }

  private start(facts: LaneBatch['integration'], delivery: LaneDelivery): void {
    this.sending.add(delivery.id);
    this.unrecorded.add(delivery.id);
    this.sent += 1;
    const work: Promise<void> = this.attempt(facts, delivery)
      .catch((err: unknown) => {
        this.failure ??= err;
      })
      .finally(() => {
        this.work.delete(work);
        this.poke?.();
      });
    this.work.add(work);
  }

  private async attempt(facts: LaneBatch['integration'], delivery: LaneDelivery): Promise<void> {
    let outcome: AttemptOutcome;
    try {
      outcome = await sendAttempt(this.ctx, facts, delivery);
    } finally {
      this.sending.delete(delivery.id);
    }
    if (outcome.pauseUntil) {
      this.pausedUntil = Math.max(this.pausedUntil, outcome.pauseUntil.getTime());
      this.ctx.logger.info(
        { integrationId: this.integrationId, until: outcome.pauseUntil.toISOString() },
        'receiver asked to slow down (429 Retry-After): its integration is paused',
      );
    }
    // A slot is free: start the next buffered one now, and look for new ones if none is buffered.
    if (this.buffer.length === 0) this.moreMayBeDue = true;
    this.poke?.();
    try {
      const recorded = await recordAttempt(this.ctx, {
        delivery,
        attempt: outcome.attempt,
        result: outcome.result,
        status: outcome.status,
        nextAttemptAt: outcome.nextAttemptAt,
      });
      if (recorded?.breakerOpened) {
        noteBreakerOpened(this.ctx, this.integrationId, recorded.failureCount);
        // Nothing more starts: the next read finds the integration inactive and skips the rest.
        this.buffer.length = 0;
        this.moreMayBeDue = true;
      }
      if (recorded && !outcome.result.ok) await reportFailedAttempt(this.ctx, delivery, outcome);
    } finally {
      this.unrecorded.delete(delivery.id);
    }
  }

  /** When the first buffered delivery may start: the end of a pause, or the next rate-limit slot. */
  private blockedUntil(): number {
    const rateSlot = this.facts?.rateLimitPerSecond == null ? 0 : this.nextStartAt;
    return Math.max(this.pausedUntil, rateSlot);
  }

  /** Waits for a request to finish, a slot to open in time, or the next look for new deliveries. */
  private nextEvent(ending: boolean): Promise<void> {
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (): void => {
        clearTimeout(timer);
        this.poke = undefined;
        resolve();
      };
      this.poke = done;
      let waitMs: number | undefined;
      let onTimer = (): void => undefined;
      if (!ending && this.sending.size < this.cap) {
        if (this.buffer.length > 0) {
          waitMs = Math.max(1, this.blockedUntil() - Date.now());
        } else if (!this.moreMayBeDue) {
          waitMs = IDLE_POLL_MS[Math.min(this.idlePolls, IDLE_POLL_MS.length - 1)] ?? 800;
          onTimer = () => {
            this.moreMayBeDue = true;
          };
        }
      }
      // Nothing outstanding and nothing to wait for would hang the runner: look again shortly.
      if (waitMs === undefined && this.work.size === 0) waitMs = 5;
      if (waitMs !== undefined) {
        timer = setTimeout(() => {
          onTimer();
          done();
        }, waitMs);
      }
    });
  }

  private carry() {
    return {
      pausedUntil: this.pausedUntil > Date.now() ? new Date(this.pausedUntil) : null,
      nextStartAt: this.nextStartAt > Date.now() ? new Date(this.nextStartAt) : null,
    };
  }

  /**
   * Stops if nothing woke the lane and nothing is due: idle, or asleep until its next due delivery
   * (or `notBefore`) as a delayed job. Undefined when the runner must go on.
   */
  private async release(notBefore: Date | null): Promise<LaneRunOutcome | undefined> {
    const result = await releaseLane(
      this.ctx.db,
      this.integrationId,
      this.token,
      this.wakeSeq,
      notBefore,
      this.carry(),
    );
    if (result.kind === 'lost') return { kind: 'lost', sent: this.sent };
    if (result.kind !== 'released') {
      this.moreMayBeDue = true;
      return undefined;
    }
    if (result.jobAt) {
      await enqueueLaneJobs(this.ctx, [
        { integrationId: this.integrationId, generation: result.generation, at: result.jobAt },
      ]);
    }
    return { kind: 'released', sent: this.sent, sleepingUntil: result.jobAt };
  }

  /** Gives the turn up with work possibly left: the lane is queued again for any worker. */
  private async handOn(): Promise<LaneRunOutcome> {
    const generation = await yieldLane(this.ctx.db, this.integrationId, this.token, this.carry());
    if (generation === undefined) return { kind: 'lost', sent: this.sent };
    await enqueueLaneJobs(this.ctx, [{ integrationId: this.integrationId, generation }]);
    return { kind: 'yielded', sent: this.sent };
  }

  private async renew(): Promise<void> {
    try {
      if (!(await renewLease(this.ctx.db, this.integrationId, this.token, this.options.leaseMs))) {
        this.lost = true;
        this.poke?.();
      }
    } catch {
      // PostgreSQL unreachable: the next read fails the run, and the job is retried.
    }
  }
}
