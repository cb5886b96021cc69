import { Queue } from 'bullmq';
import {
  isCluster,
  QUEUE,
  QUEUE_KEYS,
  queuePrefixFor,
  type QueueName,
  type RedisClient,
} from '../../queues/index.js';
import type { Config } from '../shared/config.js';
import { configuredRedis, createRedis } from '../shared/redis.js';
import { formatTable } from './table.js';

export class QueuesCommandError extends Error {}

export type QueuesAction = 'status' | 'pause' | 'resume';

export interface QueueStatus {
  queue: QueueName;
  paused: boolean;
  waiting: number;
  delayed: number;
  active: number;
  failed: number;
  /** On a Redis Cluster: the master (`host:port`) whose slot holds this queue's keys. */
  node?: string;
}

const QUEUE_NAMES = QUEUE_KEYS.map((key) => QUEUE[key]);

/** The queues `--queue` names (all of them without it); throws QueuesCommandError for an unknown one. */
export function selectQueues(only: string | undefined): QueueName[] {
  if (only === undefined) return QUEUE_NAMES;
  const name = QUEUE_NAMES.find((n) => n === only);
  if (!name) throw new QueuesCommandError(`--queue must be one of ${QUEUE_NAMES.join(', ')}`);
  return [name];
}

/**
 * Pauses, resumes or reports the service's queues in Redis. A pause is global (every worker process
 * stops taking jobs from that queue; running jobs finish) and nothing is lost: jobs keep waiting in
 * Redis and PostgreSQL still holds the outbox.
 */
export async function queuesCommand(
  config: Config,
  action: QueuesAction,
  only: string | undefined,
): Promise<QueueStatus[]> {
  const target = configuredRedis(config);
  if (!target) {
    throw new QueuesCommandError(
      'queues needs the Redis the workers use: set REDIS_URL (or REDIS_CLUSTER_NODES), or start the service (npm start) with the same DATA_DIR first',
    );
  }
  const names = selectQueues(only);
  const connection = createRedis(target, { maxRetriesPerRequest: 1 });
  const queues = names.map((name) => ({
    name,
    queue: new Queue(name, { connection, prefix: queuePrefixFor(config.queuePrefix, name) }),
  }));
  try {
    return await Promise.all(
      queues.map(async ({ name, queue }): Promise<QueueStatus> => {
        if (action === 'pause') await queue.pause();
        if (action === 'resume') await queue.resume();
        const counts = await queue.getJobCounts('waiting', 'delayed', 'active', 'failed');
        return {
          queue: name,
          paused: await queue.isPaused(),
          // BullMQ 6 keeps a paused queue's jobs in its waiting list.
          waiting: counts.waiting ?? 0,
          delayed: counts.delayed ?? 0,
          active: counts.active ?? 0,
          failed: counts.failed ?? 0,
          ...(isCluster(connection)
            ? { node: await masterOf(connection, queuePrefixFor(config.queuePrefix, name)) }
            : {}),
        };
      }),
    );
  } finally {
    await Promise.all(queues.map(({ queue }) => queue.close()));
    connection.disconnect();
  }
}

/** The master serving the slot of a queue's keys (its hash tag), as the cluster client knows it. */
async function masterOf(cluster: RedisClient, prefix: string): Promise<string> {
  const slot = await cluster.cluster('KEYSLOT', prefix);
  return isCluster(cluster) ? (cluster.slots[slot]?.[0] ?? 'unknown') : 'single';
}

export function formatQueueStatus(rows: QueueStatus[]): string {
  const onCluster = rows.some((r) => r.node !== undefined);
  const header = ['queue', 'state', 'waiting', 'delayed', 'active', 'failed', ...(onCluster ? ['node'] : [])];
  const lines = rows.map((r) => [
    r.queue,
    r.paused ? 'paused' : 'running',
    String(r.waiting),
    String(r.delayed),
    String(r.active),
    String(r.failed),
    ...(onCluster ? [r.node ?? ''] : []),
  ]);
  return formatTable(header, lines);
}
