import { createDatabase } from './shared/db/index.js';
import { migrateWhenReachable } from './shared/db/migrate.js';
import { loadConfig } from './shared/config.js';
import { resolveInfrastructure } from './infra/index.js';
import { createLogger } from './shared/logger.js';

/** `npm run migrate` and the Procfile `release` step: apply pending migrations and exit. */
const config = loadConfig();
const logger = createLogger(config.logLevel);
const infra = await resolveInfrastructure(config, logger, { redis: false });
// DATABASE_MIGRATION_URL when set: the migration lock is a session lock, which PgBouncer's
// transaction mode cannot hold.
const database = createDatabase(infra.migrationUrl, 1);
try {
  await migrateWhenReachable(database.pool, logger);
} finally {
  await database.close();
  await infra.stop();
}
