import { parseArgs } from 'node:util';
import { isEventKind, type EventKind } from '../events/kinds.js';
import { ListenError, parseEvents } from './listen.js';
import { QueuesCommandError, selectQueues, type QueuesAction } from './queues.js';

export const USAGE = `Usage: npm run cli -- <command> [options]

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
  company fee --company ID [--percent P] [--fixed F] [--reset]
      Set the company's platform fee on each Mercado Pago payment: P percent (0-50) of the amount
      plus F reais, each with at most two decimals; a part not given stays as it was. --reset
      returns both parts to the deployment's PLATFORM_FEE_PERCENT and PLATFORM_FEE_FIXED.
  credentials reseal [--batch N]
      Seal every stored credential again under the newest key of CREDENTIALS_ENCRYPTION_KEYS, N rows
      at a time (default 100), while the service runs, printing progress; afterwards the older keys
      can be removed from the ring (docs/operations.md, "Rotating the credentials key").
  listen --company ID [--events KIND,KIND] [--forward-to URL] [--json]
      Like \`stripe listen\`: receive the company's webhooks on a local receiver and print one
      verified line per event (whole bodies with --json), optionally forwarding each; the webhook
      integration it creates (or reuses) is removed on exit (Ctrl-C).
  events list --company ID [--type KIND[,KIND]] [--since ISO] [--limit N]
      The company's events of both modes, newest first (at most N, default 50), each the body its
      webhooks carried: a table in a terminal, one JSON body per line otherwise (piped or redirected).
  queues status|pause|resume [--queue NAME] [--json]
      Show each queue's jobs (waiting, delayed, active, failed), or pause / resume one queue or
      all: a paused queue keeps its jobs, every worker stops taking new ones. Uses REDIS_URL (or
      REDIS_CLUSTER_NODES: then each queue's master is shown), or the private redis-server of a
      running npm start with the same DATA_DIR.
  help, --help, -h
      Print this text.

Reaches the same database as the service: DATABASE_URL, or the embedded PostgreSQL under DATA_DIR.
A command line that does not parse prints this text and exits with status 2, having started nothing.`;

/** A command line the CLI does not accept: printed with the usage, exit status 2. */
export class UsageError extends Error {}

/** What the command line asks for, checked whole before anything is started. */
export type Invocation =
  | { command: 'help' }
  | { command: 'seed'; json: boolean; name: string | undefined; inactive: boolean }
  | {
      command: 'key create';
      companyId: number;
      name: string | undefined;
      kind: 'payments' | 'read_only';
      test: boolean;
    }
  | { command: 'key revoke'; companyId: number; keyId: number }
  | { command: 'token create'; companyId: number; userId: number | undefined }
  | { command: 'company activate' | 'company deactivate'; companyId: number }
  | { command: 'credentials reseal'; batch: number }
  | {
      command: 'company fee';
      companyId: number;
      percent: string | undefined;
      fixed: string | undefined;
      reset: boolean;
    }
  | {
      command: 'listen';
      companyId: number;
      events: EventKind[];
      forwardTo: string | undefined;
      json: boolean;
    }
  | { command: 'queues'; action: QueuesAction; queue: string | undefined; json: boolean }
  | { command: 'events list'; companyId: number; types: EventKind[]; since: Date | undefined; limit: number };

const OPTIONS = {
  json: { type: 'boolean' },
  name: { type: 'string' },
  inactive: { type: 'boolean' },
  company: { type: 'string' },
  key: { type: 'string' },
  user: { type: 'string' },
  kind: { type: 'string' },
  test: { type: 'boolean' },
  events: { type: 'string' },
  'forward-to': { type: 'string' },
  queue: { type: 'string' },
  type: { type: 'string', multiple: true },
  since: { type: 'string' },
  limit: { type: 'string' },
  percent: { type: 'string' },
  fixed: { type: 'string' },
  reset: { type: 'boolean' },
  batch: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type OptionName = keyof typeof OPTIONS;

/** The options each command takes; any other one is a usage error rather than silently ignored. */
const COMMAND_OPTIONS: Record<string, readonly OptionName[]> = {
  seed: ['json', 'name', 'inactive'],
  'key create': ['company', 'name', 'kind', 'test'],
  'key revoke': ['company', 'key'],
  'token create': ['company', 'user'],
  'company activate': ['company'],
  'company deactivate': ['company'],
  'company fee': ['company', 'percent', 'fixed', 'reset'],
  'credentials reseal': ['batch'],
  listen: ['company', 'events', 'forward-to', 'json'],
  'events list': ['company', 'type', 'since', 'limit'],
  'queues status': ['queue', 'json'],
  'queues pause': ['queue', 'json'],
  'queues resume': ['queue', 'json'],
};

function positiveInt(value: string | undefined, name: string): number {
  if (value === undefined) throw new UsageError(`--${name} is required`);
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`--${name} must be a positive integer`);
  return n;
}

/** A decimal with at most two places within [0, max], as a two-decimal string. */
function money(value: string | undefined, name: string, max: number): string | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+(\.\d{1,2})?$/.test(value) || n > max)
    throw new UsageError(`--${name} must be a number from 0 to ${max} with at most two decimals`);
  return n.toFixed(2);
}

const optionalInt = (value: string | undefined, name: string): number | undefined =>
  value === undefined ? undefined : positiveInt(value, name);

/** Parses and checks a command line (without the leading `node main.ts`); throws UsageError. */
export function parseInvocation(argv: string[]): Invocation {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options: OPTIONS });
  } catch (err) {
    // node:util reports an unknown option or a missing value as a TypeError with an ERR_PARSE_ARGS_ code.
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_'))
      throw new UsageError((err as Error).message);
    throw err;
  }
  const { positionals, values } = parsed;
  const command = positionals.join(' ');
  if (values.help || command === '' || command === 'help') return { command: 'help' };
  const allowed = COMMAND_OPTIONS[command];
  if (!allowed) throw new UsageError(`Unknown command "${command}"`);
  const stray = (Object.keys(values) as OptionName[]).filter((name) => !allowed.includes(name));
  if (stray.length > 0) {
    throw new UsageError(
      `${stray.map((name) => `--${name}`).join(', ')}: not an option of "${command}"` +
        (allowed.length > 0 ? ` (it takes ${allowed.map((name) => `--${name}`).join(', ')})` : ''),
    );
  }
  switch (command) {
    case 'seed':
      return { command, json: values.json ?? false, name: values.name, inactive: values.inactive ?? false };
    case 'key create': {
      const kind = values.kind ?? 'payments';
      if (kind !== 'payments' && kind !== 'read_only')
        throw new UsageError('--kind must be payments or read_only');
      return {
        command,
        companyId: positiveInt(values.company, 'company'),
        name: values.name,
        kind,
        test: values.test ?? false,
      };
    }
    case 'key revoke':
      return {
        command,
        companyId: positiveInt(values.company, 'company'),
        keyId: positiveInt(values.key, 'key'),
      };
    case 'token create':
      return {
        command,
        companyId: positiveInt(values.company, 'company'),
        userId: optionalInt(values.user, 'user'),
      };
    case 'company activate':
    case 'company deactivate':
      return { command, companyId: positiveInt(values.company, 'company') };
    case 'credentials reseal': {
      const batch = values.batch === undefined ? 100 : positiveInt(values.batch, 'batch');
      if (batch > 10_000) throw new UsageError('--batch must be at most 10000');
      return { command, batch };
    }
    case 'company fee': {
      const reset = values.reset ?? false;
      const percent = money(values.percent, 'percent', 50);
      const fixed = money(values.fixed, 'fixed', 1_000_000);
      if (reset === (percent !== undefined || fixed !== undefined))
        throw new UsageError('give --percent and/or --fixed, or --reset alone');
      return { command, companyId: positiveInt(values.company, 'company'), percent, fixed, reset };
    }
    case 'listen': {
      const companyId = positiveInt(values.company, 'company');
      try {
        const events = parseEvents(values.events);
        return { command, companyId, events, forwardTo: values['forward-to'], json: values.json ?? false };
      } catch (err) {
        throw err instanceof ListenError ? new UsageError(err.message) : err;
      }
    }
    case 'events list': {
      const companyId = positiveInt(values.company, 'company');
      const types = (values.type ?? []).flatMap((t) => t.split(',')).map((t) => t.trim());
      const unknown = types.filter((t) => !isEventKind(t));
      if (unknown.length > 0) throw new UsageError(`--type: unknown event kind ${unknown.join(', ')}`);
      let since: Date | undefined;
      if (values.since !== undefined) {
        since = new Date(values.since);
        if (!/^\d{4}-\d{2}-\d{2}/.test(values.since) || Number.isNaN(since.getTime()))
          throw new UsageError('--since must be an ISO 8601 date or date-time, e.g. 2026-11-24T00:00:00Z');
      }
      const limit = values.limit === undefined ? 50 : positiveInt(values.limit, 'limit');
      if (limit > 10_000) throw new UsageError('--limit must be at most 10000');
      return { command, companyId, types: types.filter(isEventKind), since, limit };
    }
    case 'queues status':
    case 'queues pause':
    case 'queues resume': {
      const action = command === 'queues pause' ? 'pause' : command === 'queues resume' ? 'resume' : 'status';
      try {
        selectQueues(values.queue);
      } catch (err) {
        throw err instanceof QueuesCommandError ? new UsageError(err.message) : err;
      }
      return { command: 'queues', action, queue: values.queue, json: values.json ?? false };
    }
    default:
      throw new UsageError(`Unknown command "${command}"`);
  }
}
