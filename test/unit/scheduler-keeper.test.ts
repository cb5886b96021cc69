import { expect } from 'chai';
import type { ScheduledQueueKey } from '../../queues/index.js';
import { SchedulerKeeper } from '../../src/sweeps/schedulers.js';

/** A keeper over counters instead of Redis and PostgreSQL; each turn is driven by the test with its own clock. */
function keeperOf(world: { ready: boolean; missing: ScheduledQueueKey[] }) {
  const seen = { upserts: 0, checks: 0, catchUps: 0, expiries: 0, warnings: [] as string[] };
  const keeper = new SchedulerKeeper({
    schedulers: {
      upsert: async () => {
        seen.upserts += 1;
        world.missing = [];
      },
      missing: async () => {
        seen.checks += 1;
        return world.missing;
      },
    },
    logger: {
      info: () => undefined,
      warn: (...args: unknown[]) => void seen.warnings.push(String(args.at(-1))),
    },
    redisReady: () => world.ready,
    catchUp: async () => {
      seen.catchUps += 1;
    },
    expireLinks: async () => {
      seen.expiries += 1;
    },
    checkMs: 1000,
    tickMs: 250,
  });
  return { keeper, seen };
}

describe('SchedulerKeeper', () => {
  it('upserts the schedulers, then runs one catch-up pass; restores asked at once share one', async () => {
    const { keeper, seen } = keeperOf({ ready: true, missing: [] });
    await Promise.all([keeper.restore('start'), keeper.restore('reconnected')]);
    await keeper.stop();
    expect(seen).to.deep.include({ upserts: 1, catchUps: 1, checks: 0, expiries: 0 });
  });

  it('looks for the schedulers in Redis at most once per checkMs', async () => {
    const { keeper, seen } = keeperOf({ ready: true, missing: [] });
    for (const now of [0, 250, 500, 750, 1000, 1250, 1999, 2000]) await keeper.watch(now);
    await keeper.stop();
    // Not started: its last look counts from time 0 of the test's clock (at 1000 and 2000, not between).
    expect(seen).to.deep.include({ checks: 2, upserts: 0, catchUps: 0, expiries: 0 });
  });

  it('upserts them again, with a catch-up pass, once a flush took them', async () => {
    const world = { ready: true, missing: [] as ScheduledQueueKey[] };
    const { keeper, seen } = keeperOf(world);
    await keeper.watch(1000);
    world.missing = ['linkExpiryTick', 'outboxSweep', 'renewalSweep', 'retention'];
    await keeper.watch(2000);
    await keeper.watch(3000);
    await keeper.stop();
    expect(seen).to.deep.include({ checks: 3, upserts: 1, catchUps: 1, expiries: 0 });
    expect(seen.warnings).to.deep.equal(['job schedulers missing from Redis']);
  });

  it('expires due links itself at every turn while its Redis is down, says so once, and stops when it is back', async () => {
    const world = { ready: false, missing: [] as ScheduledQueueKey[] };
    const { keeper, seen } = keeperOf(world);
    for (const now of [250, 500, 750]) await keeper.watch(now);
    world.ready = true;
    await keeper.watch(1000);
    await keeper.watch(1250);
    await keeper.stop();
    expect(seen).to.deep.include({ expiries: 3, checks: 1 });
    expect(seen.warnings).to.deep.equal([
      'Redis unreachable: this worker expires due links itself until it is back',
    ]);
  });
});
