import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { RedisClient } from '../../queues/index.js';
import type { Config, RedisTarget } from './config.js';

export type { RedisClient, RedisTarget };

/** The Redis the configuration names, if any (unset: `npm start` runs a private redis-server). */
export function configuredRedis(config: Pick<Config, 'redisUrl' | 'redisCluster'>): RedisTarget | undefined {
  if (config.redisCluster) return config.redisCluster;
  return config.redisUrl ? { kind: 'single', url: config.redisUrl } : undefined;
}

/** What a log line may say about the target: no credentials. */
export function describeRedis(target: RedisTarget): string {
  return target.kind === 'single'
    ? target.url.replace(/\/\/[^@]*@/, '//***@')
    : `cluster ${target.nodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
}

/**
 * The one place that decides between a single-node client and a cluster client. Retries forever by
 * default (`maxRetriesPerRequest: null`, what BullMQ requires of workers), so a Redis restart is a
 * pause, not a crash; `options` narrows that for a fail-fast connection. No `keyPrefix`, ever: BullMQ
 * refuses it (each queue's keys carry their own hash-tagged prefix instead).
 */
export function createRedis(target: RedisTarget, options: Partial<RedisOptions> = {}): RedisClient {
  const perNode: RedisOptions = { maxRetriesPerRequest: null, enableReadyCheck: true, ...options };
  let redis: RedisClient;
  if (target.kind === 'single') {
    redis = new Redis(target.url, perNode);
  } else {
    const { enableOfflineQueue, ...nodeOptions } = perNode;
    const clusterOptions: ClusterOptions = {
      enableReadyCheck: true,
      // The offline queue of a cluster client lives at the cluster level, not per node.
      ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
      redisOptions: {
        ...nodeOptions,
        ...(target.username ? { username: target.username } : {}),
        ...(target.password ? { password: target.password } : {}),
        ...(target.tls ? { tls: {} } : {}),
      },
      // A failover moves slots: look again instead of failing the command. The periodic refresh is
      // what notices a master that died without a word: its connection then leaves the pool, and the
      // commands waiting on it (patient ones wait forever otherwise) are retried on its successor.
      slotsRefreshInterval: 2000,
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 300,
      retryDelayOnTryAgain: 200,
      slotsRefreshTimeout: 2000,
      ...(target.tls ? { dnsLookup: (address, callback) => callback(null, address) } : {}),
    };
    redis = new Cluster(target.nodes, clusterOptions);
  }
  redis.on('error', () => undefined); // reconnection is automatic; readiness reports the outage
  return redis;
}

/** A connection whose commands fail fast while Redis is down (request path, readiness). */
export function createFailFastRedis(target: RedisTarget): RedisClient {
  return createRedis(target, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000 });
}

/** Resolves once the connection is ready, or rejects after `ms` (a fail-fast connection may still be connecting). */
export function whenReady(redis: RedisClient, ms: number): Promise<void> {
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
