import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { DEFAULT_JOB_OPTIONS, QUEUE, QUEUE_KEYS, type JobOf, type JobResults, type QueueKey } from './definitions.js';

export type TypedQueue<Q extends QueueKey> = Queue<JobOf<Q>, JobResults[Q], string>;

/** One BullMQ Queue per definition, sharing one connection, all under the configured prefix. */
export class Producers {
  private readonly queues = new Map<QueueKey, Queue>();

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
        prefix: this.prefix,
        defaultJobOptions: DEFAULT_JOB_OPTIONS[key],
        skipWaitingForReady: this.failFast,
      });
      queue.on('error', () => undefined); // surfaced where the add is awaited
      this.queues.set(key, queue);
    }
    return queue as unknown as TypedQueue<Q>;
  }

  add<Q extends QueueKey>(key: Q, jobId: string, data: JobOf<Q>, opts: JobsOptions = {}): Promise<unknown> {
    const queue = this.queue(key) as unknown as Queue;
    return queue.add(QUEUE[key], data, { ...opts, jobId });
  }

  all(): Queue[] {
    return QUEUE_KEYS.map((key) => this.queue(key) as unknown as Queue);
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.queues.clear();
  }
}
