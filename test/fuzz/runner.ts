import fc from 'fast-check';
import Mocha from 'mocha';
import { fuzzConfig, replayHint, seedFor } from './config.js';
import { remember, type ProblemLog } from './report.js';

/**
 * Runs a fast-check property whose body records problems instead of throwing, so one run lists every
 * distinct disagreement rather than the first. With FUZZ_SHRINK=1 the first problem fails the
 * property and fast-check shrinks it.
 */
export async function runProperty<T>(
  name: string,
  arb: fc.Arbitrary<T>,
  numRuns: number,
  log: ProblemLog,
  body: (value: T) => Promise<void>,
): Promise<void> {
  // The time budget interrupts the property without waiting for the run in progress: its request
  // must still finish before the next operation counts rows, or its writes land in the next one's.
  let inflight: Promise<unknown> = Promise.resolve();
  const property = fc.asyncProperty(arb, async (value) => {
    const before = log.size;
    const run = body(value);
    inflight = run.catch(() => undefined);
    await run;
    if (fuzzConfig.shrink && log.size > before) throw new Error(log.format(name));
  });
  const limitMs = timeLimitMs();
  const details = await fc.check(property, {
    numRuns,
    seed: seedFor(name),
    maxSkipsPerRun: 200,
    // Collecting mode fails only on a fault of the suite itself; shrinking that against a live
    // service would only replay it.
    endOnFailure: !fuzzConfig.shrink,
    plugins: [fc.interruptAfterTimeLimit(limitMs)],
  });
  await inflight;
  if (details.interrupted) {
    console.log(
      `      ${name}: stopped after ${details.numRuns} of ${numRuns} runs (time budget, ${limitMs} ms)`,
    );
  }
  if (details.failed) {
    throw new Error(`${name}: ${fc.defaultReportMessage(details) ?? 'property failed'}\n${replayHint()}`, {
      cause: details.errorInstance,
    });
  }
}

const startedAt = Date.now();

/**
 * Each property may run FUZZ_PROPERTY_MS at most, and once the run's FUZZ_BUDGET_S is spent the
 * remaining ones get a quarter of a second each: on a slow CI machine the suite does fewer requests
 * rather than overrun its budget. The seed still replays the same requests in the same order.
 */
function timeLimitMs(): number {
  const left = fuzzConfig.budgetMs - (Date.now() - startedAt);
  return Math.max(250, Math.min(fuzzConfig.propertyMs, left));
}

/**
 * Adds a test to the running suite: the operations are known only once the service serves its
 * documents, after Mocha has collected the files. Tests added by a `before` hook still run.
 */
export function addFuzzTest(
  suite: Mocha.Suite | undefined,
  title: string,
  timeoutMs: number,
  fn: () => Promise<ProblemLog>,
): void {
  if (!suite) throw new Error('addFuzzTest needs the suite of the calling hook');
  const test = new Mocha.Test(title, async () => {
    const log = await fn();
    remember(title, log);
    if (log.size > 0) throw new Error(log.format(title));
  });
  test.timeout(timeoutMs);
  suite.addTest(test);
}
