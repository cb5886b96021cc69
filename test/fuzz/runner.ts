import fc from 'fast-check';
import Mocha from 'mocha';
import { fuzzConfig, replayHint, seedFor } from './config.js';
import { remember, type ProblemLog } from './report.js';

/**
 * Runs a fast-check property whose body records problems instead of throwing, so one run lists every
 * distinct disagreement rather than the first. With FUZZ_SHRINK=1 the first problem fails the
 * property and fast-check shrinks it.
 */
export async function runProperty<T>(name: string, arb: fc.Arbitrary<T>, numRuns: number, log: ProblemLog, body: (value: T) => Promise<void>): Promise<void> {
  const property = fc.asyncProperty(arb, async (value) => {
    const before = log.size;
    await body(value);
    if (fuzzConfig.shrink && log.size > before) throw new Error(log.format(name));
  });
  try {
    await fc.assert(property, {
      numRuns,
      seed: seedFor(name),
      maxSkipsPerRun: 200,
      // Collecting mode fails only on a fault of the suite itself; shrinking that against a live
      // service would only replay it.
      endOnFailure: !fuzzConfig.shrink,
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(`${name}: ${message}\n${replayHint()}`, { cause: err });
  }
}

/**
 * Adds a test to the running suite: the operations are known only once the service serves its
 * documents, after Mocha has collected the files. Tests added by a `before` hook still run.
 */
export function addFuzzTest(suite: Mocha.Suite | undefined, title: string, timeoutMs: number, fn: () => Promise<ProblemLog>): void {
  if (!suite) throw new Error('addFuzzTest needs the suite of the calling hook');
  const test = new Mocha.Test(title, async () => {
    const log = await fn();
    remember(title, log);
    if (log.size > 0) throw new Error(log.format(title));
  });
  test.timeout(timeoutMs);
  suite.addTest(test);
}
