import { closeConnection, Producers } from '../../queues/index.js';
import { ConfigError, loadConfig, type Config } from '../shared/config.js';
import type { AppContext } from '../shared/context.js';
import { createDatabase } from '../shared/db/index.js';
import { migrateWhenReachable } from '../shared/db/migrate.js';
import { resolveInfrastructure, type Infrastructure } from './index.js';
import { assertPortFree, portInUse, StartupError } from './startup-error.js';
import { createLogger, type Logger } from '../shared/logger.js';
import { queueTelemetry } from '../shared/tracing.js';
import { configuredRedis, createFailFastRedis, type RedisTarget } from '../shared/redis.js';

export interface Runtime {
  ctx: AppContext;
  infra: Infrastructure;
  /** The stores the context was built on (workers make their own Redis connection to the same one). */
  stores: Stores;
  /** Closes pools and connections, then stops embedded servers this process started. */
  close(): Promise<void>;
  /** Ends a start-up that failed after boot (say, the web port was taken meanwhile): see `exitOnStartupFailure`. */
  abort(err: unknown): never;
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
  /** Refuse to start, before starting anything, when the web port (PORT) is taken. */
  checkPort?: boolean;
  /**
   * This process sends e-mail (a worker): SMTP_URL, or outside production the private inbox it
   * starts, becomes `config.email.smtpUrl`; production without SMTP_URL stops the start.
   */
  mail?: boolean;
}

export interface OwnedContext {
  ctx: AppContext;
  /** Closes the queues, the Redis connection and the pool the context holds. */
  close(): Promise<void>;
}

/** Where the stores of a process are, once the embedded defaults (if any) run. */
export interface Stores {
  databaseUrl: string;
  redis: RedisTarget;
}

/**
 * The stores a configuration names outright (DATABASE_URL, and REDIS_URL or REDIS_CLUSTER_NODES):
 * for tools and tests that start no embedded default.
 */
export function configuredStores(config: Config): Stores {
  const redis = configuredRedis(config);
  if (!config.databaseUrl || !redis)
    throw new ConfigError('DATABASE_URL and a Redis (REDIS_URL or REDIS_CLUSTER_NODES) are required here');
  return { databaseUrl: config.databaseUrl, redis };
}

/** The pools and connections of one process, built once and passed down explicitly. */
export function createContext(
  config: Config,
  logger: Logger,
  stores: Stores,
  poolSize?: number,
): OwnedContext {
  const database = createDatabase(stores.databaseUrl, poolSize, {
    preparedStatements: config.databasePreparedStatements,
  });
  const redis = createFailFastRedis(stores.redis);
  const producers = new Producers(redis, config.queuePrefix, true, queueTelemetry());
  return {
    ctx: { config, db: database.db, pool: database.pool, redis, producers, logger },
    async close() {
      await producers.close();
      closeConnection(redis);
      await database.close();
    },
  };
}

/**
 * Says in one line why the process cannot start and exits with status 1. A StartupError or
 * ConfigError is its own message (it names what to change); anything else is logged with its stack.
 * Children this process started stop with it: each runs under a supervisor that watches it.
 */
export function exitOnStartupFailure(err: unknown, logger?: Logger): never {
  const listen = err as (NodeJS.ErrnoException & { port?: number }) | undefined;
  const cause =
    listen?.code === 'EADDRINUSE' && listen.syscall === 'listen' ? portInUse('PORT', listen.port ?? 0) : err;
  const sentence = cause instanceof StartupError || cause instanceof ConfigError ? cause.message : undefined;
  if (logger?.isLevelEnabled('fatal')) {
    if (sentence) logger.fatal(sentence);
    else logger.fatal({ err: cause }, 'start-up failed');
  } else {
    process.stderr.write(
      `${sentence ?? `start-up failed: ${(cause as Error | undefined)?.stack ?? String(cause)}`}\n`,
    );
  }
  process.exit(1);
}

/**
 * Config → infrastructure → migrations → pools: the start-up every process shares. It does not
 * return on failure: the process ends through `exitOnStartupFailure`, after stopping what it started.
 */
export async function boot(options: BootOptions = {}): Promise<Runtime> {
  let logger = options.logger;
  try {
    const loaded = options.config ?? loadConfig();
    logger ??= createLogger(loaded.logLevel);
    if (options.checkPort) await assertPortFree('PORT', loaded.port, loaded.host);
    const infra = await resolveInfrastructure(loaded, logger, { redis: true, mail: options.mail ?? false });
    const redis = infra.redis;
    if (!redis) throw new Error('no Redis resolved'); // resolveInfrastructure starts one when none is configured
    const stores: Stores = { databaseUrl: infra.databaseUrl, redis };
    const config = { ...loaded, email: { ...loaded.email, smtpUrl: infra.smtpUrl ?? loaded.email.smtpUrl } };
    const owned = createContext(config, logger, stores);
    if (options.migrate ?? false) {
      // A pool of its own: migrations hold a session advisory lock, which a transaction-mode pooler
      // (DATABASE_URL behind PgBouncer) cannot keep; DATABASE_MIGRATION_URL reaches PostgreSQL directly.
      const migrations = createDatabase(infra.migrationUrl, 1);
      try {
        await migrateWhenReachable(migrations.pool, logger);
      } catch (err) {
        await migrations.close();
        await owned.close();
        await infra.stop();
        throw err;
      }
      await migrations.close();
    }
    return {
      ctx: owned.ctx,
      infra,
      stores,
      async close() {
        await owned.close();
        await infra.stop();
      },
      // No graceful close here: workers may already hold the connections, and their complaints
      // would bury the one line that matters. The supervisors stop the children.
      abort: (err: unknown) => exitOnStartupFailure(err, owned.ctx.logger),
    };
  } catch (err) {
    return exitOnStartupFailure(err, logger);
  }
}
