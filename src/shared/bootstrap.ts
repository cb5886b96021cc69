import { loadConfig, type Config } from './config.js';
import type { AppContext } from './context.js';
import { createDatabase } from './db/index.js';
import { migrate } from './db/migrate.js';
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
  /** Apply pending migrations before returning (web and `npm start` do; Procfile `release` does it alone). */
  migrate?: boolean;
}

/** Config → infrastructure → migrations → pools: the start-up every process shares. */
export async function boot(options: BootOptions = {}): Promise<Runtime> {
  const config = options.config ?? loadConfig();
  const logger = options.logger ?? createLogger(config.logLevel);
  const infra = await resolveInfrastructure(config, logger);
  const database = createDatabase(infra.databaseUrl);
  if (options.migrate ?? true) {
    const applied = await migrate(database.pool);
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  }
  const redis = createFailFastRedis(infra.redisUrl);
  const ctx: AppContext = { config, db: database.db, pool: database.pool, redis, logger };
  return {
    ctx,
    infra,
    async close() {
      redis.disconnect();
      await database.close();
      await infra.stop();
    },
  };
}
