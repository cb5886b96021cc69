import path from 'node:path';
import type { Config } from '../shared/config.js';
import type { Logger } from '../shared/logger.js';
import { configuredRedis, type RedisTarget } from '../shared/redis.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';
import { PrivateRedis } from './private-redis.js';

export interface Infrastructure {
  databaseUrl: string;
  /** Where migrations run: DATABASE_MIGRATION_URL, else the database itself. */
  migrationUrl: string;
  /** Undefined only when the caller said it needs no Redis and none is configured. */
  redis: RedisTarget | undefined;
  /** Stops whatever this process started (embedded PostgreSQL, private redis-server). */
  stop(): Promise<void>;
}

/**
 * Uses DATABASE_URL and REDIS_URL (or REDIS_CLUSTER_NODES) when set; otherwise starts the embedded defaults under DATA_DIR
 * so that `npm start` works on a machine with nothing but Node and redis-server. A failure stops
 * whatever was already started before it is thrown.
 */
export async function resolveInfrastructure(
  config: Config,
  logger: Logger,
  needs: { redis: boolean } = { redis: true },
): Promise<Infrastructure> {
  const stops: Array<() => Promise<void>> = [];
  const stop = async (): Promise<void> => {
    for (const step of stops.reverse()) await step();
  };
  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      const started = Date.now();
      const requested = path.resolve(config.dataDir, 'pg');
      const pg = await startEmbeddedPostgres({
        dir: requested,
        port: config.embeddedPostgresPort,
        database: 'payment_links',
        persistent: true,
        onLog: (message) => logger.debug({ component: 'embedded-postgres' }, message.trim()),
      });
      databaseUrl = pg.url;
      stops.push(pg.stop);
      logger.info(
        { port: config.embeddedPostgresPort, dataDir: pg.dataDir, ms: Date.now() - started },
        pg.dataDir === requested
          ? 'embedded PostgreSQL ready'
          : `embedded PostgreSQL ready; its data is in ${pg.dataDir} (${requested} links there: the postgres OS user it runs as cannot enter DATA_DIR)`,
      );
    }
    let redis = configuredRedis(config);
    if (!redis && needs.redis) {
      const server = new PrivateRedis({ dir: path.join(config.dataDir, 'redis'), persist: true });
      await server.start();
      redis = { kind: 'single', url: server.url };
      stops.push(() => server.stop());
      logger.info({ port: server.port }, 'private redis-server ready');
    }
    const migrationUrl = config.databaseUrl ? (config.databaseMigrationUrl ?? databaseUrl) : databaseUrl;
    return { databaseUrl, migrationUrl, redis, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
