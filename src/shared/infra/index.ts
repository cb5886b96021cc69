import path from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';
import { PrivateRedis } from './private-redis.js';

export interface Infrastructure {
  databaseUrl: string;
  redisUrl: string;
  /** Stops whatever this process started (embedded PostgreSQL, private redis-server). */
  stop(): Promise<void>;
}

/**
 * Uses DATABASE_URL and REDIS_URL when set; otherwise starts the embedded defaults under DATA_DIR
 * so that `npm start` works on a machine with nothing but Node and redis-server.
 */
export async function resolveInfrastructure(
  config: Config,
  logger: Logger,
  needs: { redis: boolean } = { redis: true },
): Promise<Infrastructure> {
  const stops: Array<() => Promise<void>> = [];
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    const started = Date.now();
    const pg = await startEmbeddedPostgres({
      dir: path.join(config.dataDir, 'pg'),
      port: config.embeddedPostgresPort,
      database: 'payment_links',
      persistent: true,
      onLog: (message) => logger.debug({ component: 'embedded-postgres' }, message.trim()),
    });
    databaseUrl = pg.url;
    stops.push(pg.stop);
    logger.info({ port: config.embeddedPostgresPort, ms: Date.now() - started }, 'embedded PostgreSQL ready');
  }
  let redisUrl = config.redisUrl ?? '';
  if (!redisUrl && needs.redis) {
    const redis = new PrivateRedis({ dir: path.join(config.dataDir, 'redis'), persist: true });
    await redis.start();
    redisUrl = redis.url;
    stops.push(() => redis.stop());
    logger.info({ port: redis.port }, 'private redis-server ready');
  }
  return {
    databaseUrl,
    redisUrl,
    async stop() {
      for (const stop of stops.reverse()) await stop();
    },
  };
}
