import { expect } from 'chai';
import FakeTimers from '@sinonjs/fake-timers';
import { MicroBatcher, type BatchClock } from '../../src/shared/batcher.js';

/** A clock of the test's own (not the process's timers): time moves only when the test says. */
function fakeClock(): { clock: FakeTimers.Clock; timers: BatchClock } {
  const clock = FakeTimers.createClock(0);
  return {
    clock,
    timers: {
      now: () => clock.now,
      setTimeout: (run, ms) => clock.setTimeout(run, ms),
      setImmediate: (run) => clock.setImmediate(run),
    },
  };
}

/** Settles every call: its value, or the message of its error. */
const settled = <T>(calls: Array<Promise<T>>): Promise<Array<T | string>> =>
  Promise.all(
    calls.map((c) => c.catch((err: unknown) => (err instanceof Error ? err.message : String(err)))),
  );

describe('MicroBatcher', () => {
  it('runs the calls of one turn as one batch and gives each caller its own result', async () => {
    const batches: number[][] = [];
    const batcher = new MicroBatcher(async (items: number[]) => {
      batches.push(items);
      return items.map((i) => i * 10);
    }, 3);
    const results = await Promise.all([1, 2, 3, 4, 5].map((i) => batcher.push(i)));
    expect(results).to.deep.equal([10, 20, 30, 40, 50]);
    expect(batches).to.deep.equal([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it('fails every caller of a batch answered with too few results', async () => {
    const batcher = new MicroBatcher(async (items: string[]) => items.slice(1));
    expect(await settled(['a', 'b', 'c'].map((i) => batcher.push(i)))).to.deep.equal(
      Array(3).fill('batch of 3 items answered with 2 results'),
    );
  });

  it('fails every caller of a batch answered with too many results', async () => {
    const batcher = new MicroBatcher(async (items: string[]) => [...items, 'extra']);
    expect(await settled(['a', 'b'].map((i) => batcher.push(i)))).to.deep.equal(
      Array(2).fill('batch of 2 items answered with 3 results'),
    );
  });

  it('keeps a result that is undefined when it is the one for its item', async () => {
    const batcher = new MicroBatcher(async (items: number[]) => items.map((i) => (i % 2 ? undefined : i)));
    expect(await Promise.all([1, 2].map((i) => batcher.push(i)))).to.deep.equal([undefined, 2]);
  });

  it('fails every caller with the error of a failed run, thrown or rejected, and keeps working after', async () => {
    let fail: 'reject' | 'throw' | undefined = 'reject';
    const batcher = new MicroBatcher((items: number[]): Promise<number[]> => {
      if (fail === 'throw') throw new Error('thrown');
      if (fail === 'reject') return Promise.reject(new Error('rejected'));
      return Promise.resolve(items);
    });
    expect(await settled([1, 2].map((i) => batcher.push(i)))).to.deep.equal(['rejected', 'rejected']);
    fail = 'throw';
    expect(await settled([1, 2].map((i) => batcher.push(i)))).to.deep.equal(['thrown', 'thrown']);
    fail = undefined;
    expect(await Promise.all([1, 2].map((i) => batcher.push(i)))).to.deep.equal([1, 2]);
  });

  it('runs at most maxRunning batches at once: what arrives meanwhile goes in the next batch', async () => {
    const { clock, timers } = fakeClock();
    const batches: number[][] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const batcher = new MicroBatcher(
      async (items: number[]) => {
        batches.push(items);
        if (batches.length === 1) await gate;
        return items;
      },
      100,
      1,
      0,
      timers,
    );
    const first = batcher.push(1);
    await clock.tickAsync(0);
    const later = [2, 3].map((i) => batcher.push(i));
    await clock.tickAsync(0);
    const more = batcher.push(4);
    // Every timer the batcher set has run: none started a second batch beside the first.
    await clock.runAllAsync();
    expect(clock.countTimers(), 'nothing left to run').to.equal(0);
    expect(batches).to.deep.equal([[1]]);
    release();
    await clock.runAllAsync();
    expect(await Promise.all([first, ...later, more])).to.deep.equal([1, 2, 3, 4]);
    expect(batches).to.deep.equal([[1], [2, 3, 4]]);
  });

  it('spaces batches by minSpacingMs: the first item after a quiet spell at once, a stream shares a batch per spacing', async () => {
    const { clock, timers } = fakeClock();
    const started: Array<{ items: number[]; at: number }> = [];
    const batcher = new MicroBatcher(
      async (items: number[]) => {
        started.push({ items, at: clock.now });
        return items;
      },
      100,
      Number.POSITIVE_INFINITY,
      50,
      timers,
    );
    const first = batcher.push(1);
    await clock.tickAsync(0);
    expect(
      started.map((b) => b.items),
      'the first item went at once',
    ).to.deep.equal([[1]]);
    // Within the spacing: these wait for it, and go together, exactly when it has passed.
    const stream = [2, 3, 4].map((i) => batcher.push(i));
    await clock.tickAsync(49);
    expect(started, 'nothing before the spacing').to.have.length(1);
    await clock.tickAsync(1);
    expect(await Promise.all([first, ...stream])).to.deep.equal([1, 2, 3, 4]);
    expect(started).to.deep.equal([
      { items: [1], at: 0 },
      { items: [2, 3, 4], at: 50 },
    ]);
    // After a quiet spell longer than the spacing, the next item goes at once again.
    await clock.tickAsync(60);
    const fifth = batcher.push(5);
    await clock.tickAsync(0);
    expect(started[2]).to.deep.equal({ items: [5], at: 110 });
    expect(await fifth).to.equal(5);
  });
});
