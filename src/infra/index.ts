import path from 'node:path';
import { ConfigError, type Config } from '../shared/config.js';
import type { Logger } from '../shared/logger.js';
import { configuredRedis, type RedisTarget } from '../shared/redis.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';
import { PrivateInbox } from './private-inbox.js';
import { PrivateRedis } from './private-redis.js';

export interface Infrastructure {
  databaseUrl: string;
  /** Where migrations run: DATABASE_MIGRATION_URL, else the database itself. */
  migrationUrl: string;
  /** Undefined only when the caller said it needs no Redis and none is configured. */
  redis: RedisTarget | undefined;
  /** Where e-mail goes: SMTP_URL, or the private inbox's SMTP server; undefined when not asked for. */
  smtpUrl: string | undefined;
  /** The web inbox of the private SMTP server, when this process started one. */
  inboxUrl: string | undefined;
  /** Stops whatever this process started (embedded PostgreSQL, private redis-server, private inbox). */
  stop(): Promise<void>;
}

/**
 * Uses DATABASE_URL and REDIS_URL (or REDIS_CLUSTER_NODES) when set; otherwise starts the embedded defaults under DATA_DIR
 * so that `npm start` works on a machine with nothing but Node and redis-server. A process that
 * sends e-mail (`needs.mail`) uses SMTP_URL, or outside production a private SMTP server with a web
 * inbox; in production it refuses to start without SMTP_URL. A failure stops whatever was already
 * started before it is thrown.
 */
export async function resolveInfrastructure(
  config: Config,
  logger: Logger,
  needs: { redis: boolean; mail?: boolean } = { redis: true },
): Promise<Infrastructure> {
  if (needs.mail && !config.email.smtpUrl && config.env === 'production')
    throw new ConfigError(
      'Invalid configuration:\n  SMTP_URL: is required in production: the SMTP server (smtp:// or smtps://, with its user and password) that e-mails buyers (docs/email.md)',
    );
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
    let smtpUrl = needs.mail ? config.email.smtpUrl : undefined;
    let inboxUrl: string | undefined;
    if (needs.mail && !smtpUrl) {
      const inbox = new PrivateInbox({
        dir: path.join(config.dataDir, 'mail'),
        webPort: config.email.inboxPort,
      });
      await inbox.start();
      smtpUrl = inbox.smtpUrl;
      inboxUrl = inbox.webUrl;
      stops.push(() => inbox.stop());
      logger.info({ smtpPort: inbox.smtpPort, webPort: inbox.webPort }, 'private e-mail inbox ready');
    }
    const migrationUrl = config.databaseUrl ? (config.databaseMigrationUrl ?? databaseUrl) : databaseUrl;
    return { databaseUrl, migrationUrl, redis, smtpUrl, inboxUrl, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
