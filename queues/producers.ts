import { Queue, QueueEvents, type JobsOptions, type Telemetry } from 'bullmq';
import { patientConnection, type RedisClient } from './connection.js';
import {
  DEFAULT_JOB_OPTIONS,
  QUEUE,
  QUEUE_KEYS,
  QUEUE_TRACED,
  queuePrefixFor,
  type JobOf,
  type JobResults,
  type QueueKey,
} from './definitions.js';

export type TypedQueue<Q extends QueueKey> = Queue<JobOf<Q>, JobResults[Q], string>;

/** How far back a new subscription to a queue's events starts (clock skew between hosts included). */
const EVENT_REPLAY_MS = 60_000;

/** How a wait for a job ended. */
export type JobEnd = 'completed' | 'failed' | 'timeout';

/**
 * Waits for jobs of one queue to finish through ONE QueueEvents subscription (its own connection:
 * it blocks on a stream read), however many requests wait at once. A wait never rejects: Redis
 * going away while waiting is a timeout like any other.
 */
class JobWaiter {
  private readonly waiting = new Map<string, Set<(end: JobEnd) => void>>();

  constructor(
    private readonly events: QueueEvents,
    /** The blocking connection the subscription reads on, owned by this waiter. */
    private readonly connection: RedisClient,
  ) {
    events.on('error', () => undefined); // reconnection is automatic; a waiting request times out
    events.on('completed', ({ jobId }) => this.finish(jobId, 'completed'));
    events.on('failed', ({ jobId }) => this.finish(jobId, 'failed'));
  }

  private finish(jobId: string, end: JobEnd): void {
    const resolvers = this.waiting.get(jobId);
    this.waiting.delete(jobId);
    for (const resolve of resolvers ?? []) resolve(end);
  }

  /** Subscribes first, then asks for the job's state: a job that finished in between is not missed. */
  wait(jobId: string, ms: number, currentState: () => Promise<string>): Promise<JobEnd> {
    return new Promise<JobEnd>((resolve) => {
      const done = (end: JobEnd): void => {
        clearTimeout(timer);
        this.waiting.get(jobId)?.delete(done);
        if (this.waiting.get(jobId)?.size === 0) this.waiting.delete(jobId);
        resolve(end);
      };
      const timer = setTimeout(() => done('timeout'), ms);
      timer.unref();
      this.waiting.set(jobId, (this.waiting.get(jobId) ?? new Set()).add(done));
      currentState().then(
        (state) => {
          if (state === 'completed' || state === 'failed') done(state);
        },
        () => undefined, // Redis unreachable: wait for the event or the timeout
      );
    });
  }

  async close(): Promise<void> {
    for (const jobId of [...this.waiting.keys()]) this.finish(jobId, 'timeout');
    await this.events.close();
    this.connection.disconnect();
  }
}

/** One BullMQ Queue per definition, sharing one connection, all under the configured prefix. */
export class Producers {
  private readonly queues = new Map<QueueKey, Queue>();
  private readonly waiters = new Map<QueueKey, JobWaiter>();

  /**
   * @param connection shared, not closed by BullMQ; the owner closes it.
   * @param failFast the request path must not wait for a Redis that is down: the outbox sweep
   *   delivers later whatever could not be enqueued now.
   * @param telemetry BullMQ's tracing hook (tracing on), for the queues `QUEUE_TRACED` names: each
   *   add is a producer span whose context travels in the job to the worker's consumer span.
   */
  constructor(
    private readonly connection: RedisClient,
    readonly prefix: string,
    private readonly failFast = false,
    private readonly telemetry?: Telemetry,
  ) {}

  queue<Q extends QueueKey>(key: Q): TypedQueue<Q> {
    let queue = this.queues.get(key);
    if (!queue) {
      const telemetry = QUEUE_TRACED[key] ? this.telemetry : undefined;
      queue = new Queue(QUEUE[key], {
        connection: this.connection,
        prefix: queuePrefixFor(this.prefix, QUEUE[key]),
        defaultJobOptions: DEFAULT_JOB_OPTIONS[key],
        skipWaitingForReady: this.failFast,
        ...(telemetry ? { telemetry } : {}),
      });
      queue.on('error', () => undefined); // surfaced where the add is awaited
      this.queues.set(key, queue);
    }
    return queue as TypedQueue<Q>;
  }

  add<Q extends QueueKey>(key: Q, jobId: string, data: JobOf<Q>, opts: JobsOptions = {}): Promise<unknown> {
    const queue: Queue = this.queue(key);
    return queue.add(QUEUE[key], data, { ...opts, jobId });
  }

  /** Resolves when the job completes or fails, or after `ms`; never rejects. */
  waitForJob(key: QueueKey, jobId: string, ms: number): Promise<JobEnd> {
    let waiter = this.waiters.get(key);
    if (!waiter) {
      // A connection of its own: a QueueEvents blocks on a stream read. Made like the shared one
      // (one node or the cluster), patient where that one fails fast.
      const connection = patientConnection(this.connection);
      const events = new QueueEvents(QUEUE[key], {
        connection,
        prefix: queuePrefixFor(this.prefix, QUEUE[key]),
        // Read from a little before now, not from "new events only": the subscription goes live
        // only once its connection is up (slower on a cluster, which first learns the slots), and a
        // job that finished meanwhile, after its state was read, would otherwise be waited on in vain.
        lastEventId: `${Date.now() - EVENT_REPLAY_MS}-0`,
      });
      waiter = new JobWaiter(events, connection);
      this.waiters.set(key, waiter);
    }
    const queue: Queue = this.queue(key);
    return waiter.wait(jobId, ms, () => queue.getJobState(jobId));
  }

  all(): Queue[] {
    return QUEUE_KEYS.map((key): Queue => this.queue(key));
  }

  async close(): Promise<void> {
    await Promise.all([...this.waiters.values()].map((w) => w.close()));
    this.waiters.clear();
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.queues.clear();
  }
}
/**
 * Makes sure a job with this deterministic id is on its way. Waiting, delayed and active jobs are
 * left alone (a stalled active job is BullMQ's to retry); a finished one whose work is still due in
 * PostgreSQL (it failed for good, or Redis lost it) is replaced. Returns whether it enqueued.
 */
export async function ensureJob<Q extends QueueKey>(
  producers: Producers,
  key: Q,
  jobId: string,
  data: JobOf<Q>,
): Promise<boolean> {
  const existing = await producers.queue(key).getJob(jobId);
  if (existing) {
    const state = await existing.getState();
    if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return false;
    await existing.remove();
  }
  await producers.add(key, jobId, data);
  return true;
}
