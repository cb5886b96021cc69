import { expect } from 'chai';
import fc from 'fast-check';
import { stopAfterTimeLimitPast } from '../fuzz/runner.js';

/** The fuzz suite's time limit: it trims runs beyond a property's minimum, never below it. */
describe('fuzz runner: the time limit never takes a property below its minimum runs', () => {
  const check = async (minimum: number, deadline: number, skipEvery?: number) => {
    let calls = 0;
    const property = fc.asyncProperty(fc.nat(), async () => {
      calls += 1;
      if (skipEvery !== undefined && calls % skipEvery === 0) fc.pre(false);
    });
    return fc.check(property, {
      numRuns: 50,
      seed: 42,
      plugins: [stopAfterTimeLimitPast(minimum, deadline)],
    });
  };

  it('stops at the minimum once the time is up', async () => {
    const details = await check(12, performance.now() - 1);
    expect(details).to.include({ failed: false, interrupted: true, numRuns: 12 });
  });

  it('counts only the runs made, not the skipped ones, toward the minimum', async () => {
    const details = await check(12, performance.now() - 1, 3);
    expect(details).to.include({ failed: false, interrupted: true, numRuns: 12 });
    expect(details.numSkips).to.be.greaterThan(0);
  });

  it('makes every run while time is left', async () => {
    const details = await check(12, performance.now() + 60_000);
    expect(details).to.include({ failed: false, interrupted: false, numRuns: 50 });
  });
});
