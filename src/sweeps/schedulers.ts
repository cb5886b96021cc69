import { QUEUE, SCHEDULERS, type Producers, type ScheduledQueueKey } from '../../queues/index.js';
import type { Config } from '../shared/config.js';
import type { Logger } from '../shared/logger.js';
import { Periodic } from './sweep.js';

const SCHEDULED = Object.keys(SCHEDULERS) as ScheduledQueueKey[];

/** Hourly: what retention prunes ages in days. */
const RETENTION_EVERY_MS = 3_600_000;

/** The period of each job scheduler, from the configuration. */
export function schedulerPeriods(config: Config): Record<ScheduledQueueKey, number> {
  return {
    linkExpiryTick: config.workers.linkExpiryTickMs,
    outboxSweep: config.workers.outboxSweepMs,
    renewalSweep: config.workers.renewalSweepMs,
    retention: RETENTION_EVERY_MS,
  };
}

/**
 * Creates each job scheduler, or leaves it as it is: BullMQ keeps the next run of a scheduler upserted
 * again with the same period, so every worker upserting at its start (and after a Redis reconnection)
 * still makes one run per period for the deployment. A different period replaces the schedule.
 */
export async function upsertSchedulers(
  producers: Producers,
  periods: Record<ScheduledQueueKey, number>,
): Promise<void> {
  await Promise.all(
    SCHEDULED.map((key) =>
      producers.queue(key).upsertJobScheduler(SCHEDULERS[key], { every: periods[key] }, { name: QUEUE[key] }),
    ),
  );
}

/** The schedulers Redis does not hold (all of them after a flush). */
export async function missingSchedulers(producers: Producers): Promise<ScheduledQueueKey[]> {
  const found = await Promise.all(
    SCHEDULED.map((key) => producers.queue(key).getJobScheduler(SCHEDULERS[key])),
  );
  return SCHEDULED.filter((_, i) => found[i] === undefined);
}

export interface KeeperOptions {
  /** The schedulers in Redis: `upsertSchedulers` and `missingSchedulers` on the worker's queues. */
  schedulers: { upsert(): Promise<void>; missing(): Promise<ScheduledQueueKey[]> };
  logger: Pick<Logger, 'info' | 'warn'>;
  /** Whether the worker's Redis connection is up. */
  redisReady: () => boolean;
  /** One run of every sweep in this process (its errors are the sweeps' to log). */
  catchUp: () => Promise<void>;
  /** The expiry tick's work, run by this process itself while Redis is unreachable. */
  expireLinks: () => Promise<unknown>;
  /** How often the schedulers' presence in Redis is checked. */
  checkMs: number;
  /** How often this process looks at all (the expiry tick's period). */
  tickMs: number;
}

/**
 * Keeps the job schedulers alive in each worker process. PostgreSQL is the source of truth and Redis
 * may lose everything (a restart without persistence, a flush), so each worker:
 *   - upserts the schedulers at its start and after every Redis reconnection, and runs one catch-up
 *     pass of every sweep then;
 *   - checks every `checkMs` that Redis still holds them (one read per scheduler): a flush without a
 *     reconnection leaves nothing to run the next tick, so one found missing is upserted again, with
 *     a catch-up pass;
 *   - while its Redis connection is down (no job runs anywhere then), expires the due links itself at
 *     the tick's period, as every worker did before the schedulers, so that a link still expires on
 *     time; their events are relayed once Redis is back.
 */
export class SchedulerKeeper {
  private readonly guard: Periodic;
  private restoring: Promise<void> | undefined;
  private catchingUp: Promise<void> | undefined;
  private checkedAt = 0;
  private offline = false;

  constructor(private readonly options: KeeperOptions) {
    this.guard = new Periodic(options.tickMs, () => this.watch());
  }

  /** Upserts the schedulers, then runs one catch-up pass (in the background). */
  restore(reason: 'start' | 'reconnected' | 'missing'): Promise<void> {
    this.restoring ??= (async () => {
      try {
        await this.options.schedulers.upsert();
        if (reason !== 'start') this.options.logger.info({ reason }, 'job schedulers upserted again');
      } finally {
        this.restoring = undefined;
      }
      this.catchUp();
    })();
    return this.restoring;
  }

  private catchUp(): void {
    this.catchingUp ??= this.options
      .catchUp()
      .catch(() => undefined)
      .finally(() => (this.catchingUp = undefined));
  }

  start(): void {
    this.checkedAt = Date.now();
    this.guard.start();
  }

  /** One turn of the guard. */
  async watch(now = Date.now()): Promise<void> {
    if (!this.options.redisReady()) {
      if (!this.offline)
        this.options.logger.warn('Redis unreachable: this worker expires due links itself until it is back');
      this.offline = true;
      await this.options.expireLinks().catch(() => undefined);
      return;
    }
    this.offline = false;
    if (now - this.checkedAt < this.options.checkMs) return;
    this.checkedAt = now;
    try {
      const missing = await this.options.schedulers.missing();
      if (missing.length === 0) return;
      this.options.logger.warn(
        { missing: missing.map((key) => QUEUE[key]) },
        'job schedulers missing from Redis',
      );
      await this.restore('missing');
    } catch (err) {
      this.options.logger.warn({ err }, 'job schedulers could not be checked; checking again shortly');
    }
  }

  async stop(): Promise<void> {
    await this.guard.stop();
    await this.restoring?.catch(() => undefined);
    await this.catchingUp;
  }
}
