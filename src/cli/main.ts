import path from 'node:path';
import { createKey, revokeKey } from '../keys/service.js';
import {
  createOwnerToken,
  createPanelToken,
  setCompanyActive,
  setCompanyPlatformFee,
} from '../companies/service.js';
import { findCompany } from '../companies/repository.js';
import { platformFeeRule } from '../companies/fees.js';
import { resealGatewayCredentials } from '../gateways/accounts/reseal.js';
import { installGateways } from '../gateways/install.js';
import { resealIntegrations } from '../integrations/reseal.js';
import { parseInvocation, UsageError, USAGE, type Invocation } from './arguments.js';
import { listCompanyEvents } from './events.js';
import { listen, ListenError } from './listen.js';
import { seedCompany } from './seed.js';
import { formatQueueStatus, queuesCommand, QueuesCommandError } from './queues.js';
import { exitOnStartupFailure } from '../infra/bootstrap.js';
import { loadConfig, type Config } from '../shared/config.js';
import { createDatabase, type Db } from '../shared/db/index.js';
import { configuredRedis, createRedis, type RedisClient } from '../shared/redis.js';
import { announceCompanyChange } from '../keys/key-changes.js';
import { migrate } from '../shared/db/migrate.js';
import { resolveInfrastructure } from '../infra/index.js';
import { runningPrivateRedisUrl } from '../infra/private-redis.js';
import { createLogger } from '../shared/logger.js';
import type { ResealProgress } from '../shared/reseal.js';

/**
 * Running web processes cache key lookups; a change made here is announced through the service's
 * Redis (REDIS_URL, or npm start's private redis-server); without one they see it when their cache
 * entry expires.
 */
async function withAnnouncer<T>(config: Config, work: (redis: RedisClient | null) => Promise<T>): Promise<T> {
  const target = configuredRedis(config);
  const redis = target ? createRedis(target, { maxRetriesPerRequest: 1 }) : null;
  try {
    return await work(redis);
  } finally {
    redis?.disconnect();
  }
}

/** Runs a parsed command that needs the database (every one but `queues`). */
async function run(
  db: Db,
  config: Config,
  invocation: Exclude<Invocation, { command: 'help' | 'queues' }>,
): Promise<void> {
  switch (invocation.command) {
    case 'seed': {
      const seeded = await seedCompany(db, {
        ...(invocation.name ? { name: invocation.name } : {}),
        inactive: invocation.inactive,
      });
      if (invocation.json) {
        process.stdout.write(`${JSON.stringify(seeded)}\n`);
        // npm writes its "> script" banner to stdout before the script runs; only --silent stops it.
        if (process.env.npm_lifecycle_event === 'cli' && process.env.npm_config_loglevel !== 'silent') {
          console.error(
            'note: npm printed its banner above the JSON; run `npm run --silent cli -- seed --json` for the JSON alone',
          );
        }
      } else {
        console.log(
          `Created company ${seeded.company.id} "${seeded.company.name}" (${seeded.company.active ? 'active' : 'inactive'})`,
        );
        console.log(`  panel token     ${seeded.panel_token}`);
        console.log(`  test key        ${seeded.keys.test}`);
        console.log(`  live key        ${seeded.keys.live}`);
        console.log(`  read-only key   ${seeded.keys.read_only}`);
        for (const o of seeded.offers)
          console.log(`  offer ${o.code}  ${o.status.padEnd(8)} ${o.price}  ${o.name}`);
        for (const p of seeded.plans)
          console.log(`  plan  ${p.code}  ${p.status.padEnd(8)} ${p.price}  ${p.name} (${p.billing_cycle})`);
        for (const c of seeded.coupons) console.log(`  coupon ${c.code}`);
      }
      return;
    }
    case 'key create': {
      const { companyId, kind, test } = invocation;
      const created = await createKey(db, { companyId, name: invocation.name ?? `${kind} key`, kind, test });
      console.log(
        `Created ${kind} ${test ? 'test' : 'live'} key ${created.row.id} for company ${companyId} (shown once):`,
      );
      console.log(created.value);
      return;
    }
    case 'key revoke': {
      const { companyId, keyId } = invocation;
      const row = await withAnnouncer(config, (redis) => revokeKey({ db, redis }, companyId, keyId));
      console.log(
        `Revoked key ${row.id} (${row.prefix}…${row.last4}) of company ${companyId} at ${row.revokedAt?.toISOString() ?? ''}` +
          (configuredRedis(config)
            ? ''
            : ` (no Redis to announce it on: running web processes stop accepting it within ${config.limits.keyCacheTtlMs / 1000} s)`),
      );
      return;
    }
    case 'token create': {
      const { companyId, userId } = invocation;
      const token =
        userId === undefined
          ? await createOwnerToken(db, companyId)
          : await createPanelToken(db, userId, companyId);
      console.log(`Created panel token for company ${companyId} (shown once):`);
      console.log(token);
      return;
    }
    case 'company deactivate':
    case 'company activate': {
      const active = invocation.command === 'company activate';
      const { companyId } = invocation;
      const row = await withAnnouncer(config, async (redis) => {
        const changed = await setCompanyActive(db, companyId, active);
        if (redis) await announceCompanyChange(redis, companyId);
        return changed;
      });
      console.log(`Company ${row.id} "${row.name}" is now ${row.active ? 'active' : 'inactive'}`);
      return;
    }
    case 'company fee': {
      const { companyId } = invocation;
      const before = await findCompany(db, companyId);
      if (!before) throw new Error(`No company ${companyId}`);
      const row = await setCompanyPlatformFee(db, companyId, {
        percent: invocation.reset ? null : (invocation.percent ?? before.platformFeePercent),
        fixed: invocation.reset ? null : (invocation.fixed ?? before.platformFeeFixed),
      });
      const rule = platformFeeRule(config, row);
      const whose = (own: string | null) => (own === null ? 'the deployment’s' : 'the company’s');
      console.log(
        `Company ${row.id} "${row.name}": platform fee ${rule.percent}% (${whose(row.platformFeePercent)}) + ` +
          `R$ ${rule.fixed} (${whose(row.platformFeeFixed)}) on each Mercado Pago payment from now on`,
      );
      return;
    }
    case 'credentials reseal': {
      const newest = config.credentialsKey?.keys[0]?.id;
      if (newest === undefined)
        throw new Error('no CREDENTIALS_ENCRYPTION_KEY(S) is set: nothing can be resealed');
      console.log(`Resealing stored credentials under key "${newest}", ${invocation.batch} rows at a time`);
      // Every sealed value: the gateways' (PSP tokens, pending OAuth verifiers), the integrations'.
      const report = (p: ResealProgress) =>
        console.log(
          `  ${p.table}: ${p.checked} checked, ${p.resealed} resealed, ${p.unreadable.length} unreadable`,
        );
      const done = [
        ...(await resealGatewayCredentials({ db, config }, invocation.batch, report)),
        await resealIntegrations({ db, config }, invocation.batch, report),
      ];
      const unreadable = done.flatMap((p) => p.unreadable.map((id) => `${p.table} ${id}`));
      if (unreadable.length > 0)
        throw new Error(
          `no key of the ring opens ${unreadable.join(', ')}: keep the older keys until they are dealt with`,
        );
      console.log(`Done: every credential is sealed under key "${newest}"; older keys may be removed.`);
      return;
    }
    case 'events list': {
      await listCompanyEvents(db, {
        companyId: invocation.companyId,
        types: invocation.types,
        since: invocation.since,
        limit: invocation.limit,
        table: process.stdout.isTTY === true,
        out: (line) => process.stdout.write(`${line}\n`),
      });
      return;
    }
    case 'listen': {
      const stop = new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
        // Run in the background of a script (`… listen &`, then `kill %1` without job control), only
        // npm gets the signal and this process is orphaned: stop as if signalled when the parent goes.
        const parent = process.ppid;
        setInterval(() => {
          if (process.ppid !== parent) resolve();
        }, 500).unref();
      });
      try {
        const options = {
          companyId: invocation.companyId,
          events: invocation.events,
          forwardTo: invocation.forwardTo,
          json: invocation.json,
          out: (line: string) => process.stdout.write(`${line}\n`),
        };
        await listen(db, config, options, stop);
      } catch (err) {
        throw err instanceof ListenError ? new UsageError(err.message) : err;
      }
      return;
    }
  }
}

/** `queues` needs only the service's Redis: no database is started for it. */
async function queues(config: Config, invocation: Extract<Invocation, { command: 'queues' }>): Promise<void> {
  try {
    const rows = await queuesCommand(config, invocation.action, invocation.queue);
    console.log(invocation.json ? JSON.stringify(rows) : formatQueueStatus(rows));
  } catch (err) {
    throw err instanceof QueuesCommandError ? new UsageError(err.message) : err;
  }
}

async function main(invocation: Exclude<Invocation, { command: 'help' }>): Promise<void> {
  const loaded = loadConfig();
  // Without REDIS_URL, the private redis-server of a running `npm start` with this DATA_DIR is the
  // service's Redis: key revokes are announced there, and `queues` reads it.
  const privateRedis = configuredRedis(loaded)
    ? undefined
    : await runningPrivateRedisUrl(path.join(loaded.dataDir, 'redis'));
  const config: Config = privateRedis ? { ...loaded, redisUrl: privateRedis } : loaded;
  if (invocation.command === 'queues') return queues(config, invocation);
  // Logs go to stderr so that `seed --json` leaves exactly one JSON object on stdout.
  const logger = createLogger(process.env.LOG_LEVEL ?? 'warn', 'cli', 2);
  const infra = await resolveInfrastructure(config, logger, { redis: false }).catch((err: unknown) =>
    exitOnStartupFailure(err),
  );
  const database = createDatabase(infra.databaseUrl, 2, {
    preparedStatements: config.databasePreparedStatements,
  });
  try {
    // The migration lock is a session lock: taken where DATABASE_MIGRATION_URL points, never through a
    // transaction-mode pooler.
    if (infra.migrationUrl === infra.databaseUrl) await migrate(database.pool);
    else {
      const migrations = createDatabase(infra.migrationUrl, 1);
      await migrate(migrations.pool).finally(() => migrations.close());
    }
    // The gateway integration type's kind, as every process has it (cli listen edits integrations).
    installGateways();
    await run(database.db, config, invocation);
  } finally {
    await database.close();
    await infra.stop();
  }
}

let exitCode = 0;
try {
  // The whole command line is checked before anything starts: `--help` or a typo boots nothing.
  const invocation = parseInvocation(process.argv.slice(2));
  if (invocation.command === 'help') console.log(USAGE);
  else await main(invocation);
} catch (err) {
  exitCode = err instanceof UsageError ? 2 : 1;
  console.error(`error: ${(err as Error).message}`);
  if (err instanceof UsageError) console.error(`\n${USAGE}`);
}
process.exit(exitCode);
