import { Redis, type RedisOptions } from 'ioredis';

/**
 * A connection for BullMQ workers and blocking commands: retries forever so a Redis restart is a
 * pause, not a crash.
 */
export function createRedis(url: string, options: RedisOptions = {}): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, ...options });
  redis.on('error', () => undefined); // reconnection is automatic; readiness reports the outage
  return redis;
}

/** A connection whose commands fail fast while Redis is down (request path, readiness). */
export function createFailFastRedis(url: string): Redis {
  return createRedis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000 });
}

/** Resolves once the connection is ready, or rejects after `ms` (a fail-fast connection may still be connecting). */
export function whenReady(redis: Redis, ms: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      reject(new Error(`Redis not ready after ${ms} ms (status ${redis.status})`));
    }, ms);
    timer.unref();
    const onReady = (): void => {
      clearTimeout(timer);
      resolve();
    };
    redis.once('ready', onReady);
  });
}
