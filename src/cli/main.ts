import path from 'node:path';
import { parseArgs } from 'node:util';
import { createKey, revokeKey } from '../keys/service.js';
import { createOwnerToken, createPanelToken, setCompanyActive } from '../companies/service.js';
import { listen, ListenError, parseEvents } from './listen.js';
import { seedCompany } from './seed.js';
import { formatQueueStatus, queuesCommand, QueuesCommandError } from './queues.js';
import { exitOnStartupFailure } from '../shared/bootstrap.js';
import { loadConfig, type Config } from '../shared/config.js';
import { createDatabase, type Db } from '../shared/db/index.js';
import { createRedis } from '../shared/redis.js';
import type { Redis } from 'ioredis';
import { announceCompanyChange } from '../keys/key-changes.js';
import { migrate } from '../shared/db/migrate.js';
import { resolveInfrastructure } from '../shared/infra/index.js';
import { runningPrivateRedisUrl } from '../shared/infra/private-redis.js';
import { createLogger } from '../shared/logger.js';

const USAGE = `Usage: npm run cli -- <command> [options]

  seed [--json] [--name NAME] [--inactive]
      Create a demo company: owner, panel token, test/live/read-only keys, products, offers,
      plans and a coupon. With --json, prints exactly one JSON object on stdout; npm prints
      its own banner there first unless told --silent: npm run --silent cli -- seed --json
  key create --company ID [--name NAME] [--kind payments|read_only] [--test]
      Create an API key and print it (shown once).
  key revoke --company ID --key KEY_ID
      Revoke a key; it is refused from the next request.
  token create --company ID [--user USER_ID]
      Issue a panel token for the company's owner (or the given user).
  company deactivate --company ID      (and: company activate --company ID)
  listen --company ID [--events KIND,KIND] [--forward-to URL] [--json]
      Like \`stripe listen\`: receive the company's webhooks on a local receiver and print one
      verified line per event (whole bodies with --json), optionally forwarding each; the webhook
      integration it creates (or reuses) is removed on exit (Ctrl-C).
  queues status|pause|resume [--queue NAME] [--json]
      Show each queue's jobs (waiting, delayed, active, failed), or pause / resume one queue or
      all: a paused queue keeps its jobs, every worker stops taking new ones. Uses REDIS_URL, or the
      private redis-server of a running npm start with the same DATA_DIR.

Reaches the same database as the service: DATABASE_URL, or the embedded PostgreSQL under DATA_DIR.`;

class UsageError extends Error {}

/**
 * Running web processes cache key lookups; a change made here is announced through the service's
 * Redis (REDIS_URL, or npm start's private redis-server); without one they see it when their cache
 * entry expires.
 */
async function withAnnouncer<T>(config: Config, work: (redis: Redis | null) => Promise<T>): Promise<T> {
  const redis = config.redisUrl ? createRedis(config.redisUrl, { maxRetriesPerRequest: 1 }) : null;
  try {
    return await work(redis);
  } finally {
    redis?.disconnect();
  }
}

function intOption(value: string | boolean | undefined, name: string): number {
  const n = typeof value === 'string' ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`--${name} must be a positive integer`);
  return n;
}

async function run(db: Db, config: Config, argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      name: { type: 'string' },
      inactive: { type: 'boolean', default: false },
      company: { type: 'string' },
      key: { type: 'string' },
      user: { type: 'string' },
      kind: { type: 'string', default: 'payments' },
      test: { type: 'boolean', default: false },
      events: { type: 'string' },
      'forward-to': { type: 'string' },
      queue: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const command = positionals.join(' ');
  switch (command) {
    case 'seed': {
      const seeded = await seedCompany(db, {
        ...(values.name ? { name: values.name } : {}),
        inactive: values.inactive,
      });
      if (values.json) {
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
      const kind = values.kind;
      if (kind !== 'payments' && kind !== 'read_only')
        throw new UsageError('--kind must be payments or read_only');
      const companyId = intOption(values.company, 'company');
      const created = await createKey(db, {
        companyId,
        name: values.name ?? `${kind} key`,
        kind,
        test: values.test,
      });
      console.log(
        `Created ${kind} ${values.test ? 'test' : 'live'} key ${created.row.id} for company ${companyId} (shown once):`,
      );
      console.log(created.value);
      return;
    }
    case 'key revoke': {
      const companyId = intOption(values.company, 'company');
      const row = await withAnnouncer(config, (redis) =>
        revokeKey({ db, redis }, companyId, intOption(values.key, 'key')),
      );
      console.log(
        `Revoked key ${row.id} (${row.prefix}…${row.last4}) of company ${companyId} at ${row.revokedAt?.toISOString() ?? ''}` +
          (config.redisUrl
            ? ''
            : ` (no Redis to announce it on: running web processes stop accepting it within ${config.limits.keyCacheTtlMs / 1000} s)`),
      );
      return;
    }
    case 'token create': {
      const companyId = intOption(values.company, 'company');
      const token = values.user
        ? await createPanelToken(db, intOption(values.user, 'user'), companyId)
        : await createOwnerToken(db, companyId);
      console.log(`Created panel token for company ${companyId} (shown once):`);
      console.log(token);
      return;
    }
    case 'company deactivate':
    case 'company activate': {
      const active = command === 'company activate';
      const companyId = intOption(values.company, 'company');
      const row = await withAnnouncer(config, async (redis) => {
        const changed = await setCompanyActive(db, companyId, active);
        if (redis) await announceCompanyChange(redis, companyId);
        return changed;
      });
      console.log(`Company ${row.id} "${row.name}" is now ${row.active ? 'active' : 'inactive'}`);
      return;
    }
    case 'listen': {
      const companyId = intOption(values.company, 'company');
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
          companyId,
          events: parseEvents(values.events),
          forwardTo: values['forward-to'],
          json: values.json,
          out: (line: string) => process.stdout.write(`${line}\n`),
        };
        await listen(db, config, options, stop);
      } catch (err) {
        throw err instanceof ListenError ? new UsageError(err.message) : err;
      }
      return;
    }
    case 'queues status':
    case 'queues pause':
    case 'queues resume': {
      const action = command === 'queues pause' ? 'pause' : command === 'queues resume' ? 'resume' : 'status';
      try {
        const rows = await queuesCommand(config, action, values.queue);
        console.log(values.json ? JSON.stringify(rows) : formatQueueStatus(rows));
      } catch (err) {
        throw err instanceof QueuesCommandError ? new UsageError(err.message) : err;
      }
      return;
    }
    default:
      if (values.help || command === '' || command === 'help') {
        console.log(USAGE);
        return;
      }
      throw new UsageError(`Unknown command "${command}"`);
  }
}

const loaded = loadConfig();
// Without REDIS_URL, the private redis-server of a running `npm start` with this DATA_DIR is the
// service's Redis: key revokes are announced there, and `queues` reads it.
const privateRedis = loaded.redisUrl
  ? undefined
  : await runningPrivateRedisUrl(path.join(loaded.dataDir, 'redis'));
const config: Config = privateRedis ? { ...loaded, redisUrl: privateRedis } : loaded;
// Logs go to stderr so that `seed --json` leaves exactly one JSON object on stdout.
const logger = createLogger(process.env.LOG_LEVEL ?? 'warn', 'cli', 2);
let exitCode = 0;
const infra = await resolveInfrastructure(config, logger, { redis: false }).catch((err: unknown) =>
  exitOnStartupFailure(err),
);
const database = createDatabase(infra.databaseUrl, 2);
try {
  await migrate(database.pool);
  await run(database.db, config, process.argv.slice(2));
} catch (err) {
  exitCode = err instanceof UsageError ? 2 : 1;
  console.error(`error: ${(err as Error).message}`);
  if (err instanceof UsageError) console.error(`\n${USAGE}`);
} finally {
  await database.close();
  await infra.stop();
}
process.exit(exitCode);
