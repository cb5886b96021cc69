import { Queue, QueueEvents, type JobsOptions, type RedisOptions } from 'bullmq';
import { Redis } from 'ioredis';
import {
  DEFAULT_JOB_OPTIONS,
  QUEUE,
  QUEUE_KEYS,
  queuePrefixFor,
  type JobOf,
  type JobResults,
  type QueueKey,
} from './definitions.js';

export type TypedQueue<Q extends QueueKey> = Queue<JobOf<Q>, JobResults[Q], string>;

/** How a wait for a job ended. */
export type JobEnd = 'completed' | 'failed' | 'timeout';

/**
 * Waits for jobs of one queue to finish through ONE QueueEvents subscription (its own connection:
 * it blocks on a stream read), however many requests wait at once. A wait never rejects: Redis
 * going away while waiting is a timeout like any other.
 */
class JobWaiter {
  private readonly waiting = new Map<string, Set<(end: JobEnd) => void>>();

  constructor(private readonly events: QueueEvents) {
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

  close(): Promise<void> {
    for (const jobId of [...this.waiting.keys()]) this.finish(jobId, 'timeout');
    return this.events.close();
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
   */
  constructor(
    private readonly connection: Redis,
    readonly prefix: string,
    private readonly failFast = false,
  ) {}

  queue<Q extends QueueKey>(key: Q): TypedQueue<Q> {
    let queue = this.queues.get(key);
    if (!queue) {
      queue = new Queue(QUEUE[key], {
        connection: this.connection,
        prefix: queuePrefixFor(this.prefix, QUEUE[key]),
        defaultJobOptions: DEFAULT_JOB_OPTIONS[key],
        skipWaitingForReady: this.failFast,
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
      // Options, not a connection: the QueueEvents owns (and closes) its blocking connection.
      const events = new QueueEvents(QUEUE[key], {
        connection: patientOptions(this.connection),
        prefix: queuePrefixFor(this.prefix, QUEUE[key]),
      });
      waiter = new JobWaiter(events);
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
 * Where `like` connects, for a connection that waits out an outage instead of failing fast (blocking
 * readers such as QueueEvents and Bull Board, which must never crash on a Redis restart).
 */
export function patientOptions(like: Redis): RedisOptions {
  const { host, port, username, password, db, tls } = like.options;
  return { host, port, username, password, db, tls, maxRetriesPerRequest: null };
}

export function patientConnection(like: Redis): Redis {
  const redis = new Redis(patientOptions(like));
  redis.on('error', () => undefined); // reconnection is automatic; readiness reports the outage
  return redis;
}
