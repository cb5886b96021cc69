import { Producers } from '../../queues/index.js';
import { loadConfig, type Config } from './config.js';
import type { AppContext } from './context.js';
import { createDatabase } from './db/index.js';
import { migrateWhenReachable } from './db/migrate.js';
import { resolveInfrastructure, type Infrastructure } from './infra/index.js';
import { createLogger, type Logger } from './logger.js';
import { createFailFastRedis } from './redis.js';

export interface Runtime {
  ctx: AppContext;
  infra: Infrastructure;
  /** Closes pools and connections, then stops embedded servers this process started. */
  close(): Promise<void>;
}

export interface BootOptions {
  config?: Config;
  logger?: Logger;
  /**
   * Apply pending migrations before returning, waiting for PostgreSQL if it is not reachable yet
   * (`npm start` does; the Procfile's web and worker do not: its `release` step migrates, so a web
   * process starts, and serves 503s, while PostgreSQL is down).
   */
  migrate?: boolean;
}

export interface OwnedContext {
  ctx: AppContext;
  /** Closes the queues, the Redis connection and the pool the context holds. */
  close(): Promise<void>;
}

/** The pools and connections of one process, built once and passed down explicitly. */
export function createContext(
  config: Config,
  logger: Logger,
  urls: { databaseUrl: string; redisUrl: string },
  poolSize?: number,
): OwnedContext {
  const database = createDatabase(urls.databaseUrl, poolSize);
  const redis = createFailFastRedis(urls.redisUrl);
  const producers = new Producers(redis, config.queuePrefix, true);
  return {
    ctx: { config, db: database.db, pool: database.pool, redis, producers, logger },
    async close() {
      await producers.close();
      redis.disconnect();
      await database.close();
    },
  };
}

/** Config → infrastructure → migrations → pools: the start-up every process shares. */
export async function boot(options: BootOptions = {}): Promise<Runtime> {
  const config = options.config ?? loadConfig();
  const logger = options.logger ?? createLogger(config.logLevel);
  const infra = await resolveInfrastructure(config, logger);
  const owned = createContext(config, logger, infra);
  if (options.migrate ?? false) await migrateWhenReachable(owned.ctx.pool, logger);
  return {
    ctx: owned.ctx,
    infra,
    async close() {
      await owned.close();
      await infra.stop();
    },
  };
}
