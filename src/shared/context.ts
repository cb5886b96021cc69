import type pg from 'pg';
import type { Producers, RedisClient } from '../../queues/index.js';
import type { Config } from './config.js';
import type { Db } from './db/index.js';
import type { Logger } from './logger.js';

/** What the HTTP apps and the workers are built from: created once at start, passed down explicitly. */
export interface AppContext {
  config: Config;
  db: Db;
  pool: pg.Pool;
  /** Fail-fast connection for the request path (rate limits, readiness): one node or a cluster. */
  redis: RedisClient;
  /**
   * Queues to add jobs to. On the request path they share the fail-fast connection (a Redis outage
   * costs a request nothing: the outbox sweep enqueues later); workers carry their own.
   */
  producers: Producers;
  logger: Logger;
}
