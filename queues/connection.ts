import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';

/**
 * A connection to one Redis or to a Redis Cluster. Everything the service does with Redis (queues,
 * waits, rate limits, key-change announcements, Bull Board) works on either; which one is made is
 * decided once, from the configuration (src/shared/redis.ts). Code that needs a second connection
 * like an existing one duplicates it (`patientConnection`), so it never chooses again.
 */
export type RedisClient = Redis | Cluster;

export const isCluster = (client: RedisClient): client is Cluster => client instanceof Cluster;

/**
 * Options that make a connection wait out an outage instead of failing fast: BullMQ requires
 * `maxRetriesPerRequest: null` on blocking connections (workers, QueueEvents), and a board or a
 * subscriber should pause through a Redis restart, not error.
 */
const PATIENT: Partial<RedisOptions> = { maxRetriesPerRequest: null, connectTimeout: 10_000 };

/**
 * A new connection to where `like` connects (the same node, or the same cluster through the nodes
 * it knows), patient whatever `like` is (a request path's fail-fast connection, say). Its owner
 * closes it.
 */
export function patientConnection(like: RedisClient, options: Partial<RedisOptions> = {}): RedisClient {
  const redis: RedisClient = isCluster(like)
    ? like.duplicate(undefined, {
        enableOfflineQueue: true,
        redisOptions: { ...like.options.redisOptions, ...PATIENT, ...options },
      } satisfies ClusterOptions)
    : like.duplicate({ enableOfflineQueue: true, ...PATIENT, ...options });
  redis.on('error', () => undefined); // reconnection is automatic; readiness reports the outage
  return redis;
}

const dependents = new WeakMap<RedisClient, Set<() => void>>();

/**
 * Has `close` run when `connection` is closed through `closeConnection`: for what lives as long as
 * a connection (a connection made from it, a cache subscribed on one). Not an 'end' listener:
 * ioredis emits no 'end' for a connection closed while it waits to reconnect (Redis down), and a
 * dependent left open then retries forever and keeps its process alive.
 */
export function closeWith(connection: RedisClient, close: () => void): void {
  dependents.set(connection, (dependents.get(connection) ?? new Set()).add(close));
}

/** Closes what was made to live as long as `connection` (`closeWith`), then the connection. */
export function closeConnection(connection: RedisClient): void {
  const closers = dependents.get(connection);
  dependents.delete(connection);
  for (const close of closers ?? []) close();
  connection.disconnect();
}
