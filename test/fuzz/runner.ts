import fc from 'fast-check';
import Mocha from 'mocha';
import { fuzzConfig, replayHint, seedFor, type PropertyRuns } from './config.js';
import { remember, type ProblemLog } from './report.js';

/**
 * Runs a fast-check property whose body records problems instead of throwing, so one run lists every
 * distinct disagreement rather than the first. With FUZZ_SHRINK=1 the first problem fails the
 * property and fast-check shrinks it. The property makes at least `minimum` runs whatever the time
 * (see fuzzConfig) and stops beyond it once its time is up; fewer runs than the minimum fail it.
 */
export async function runProperty<T>(
  name: string,
  arb: fc.Arbitrary<T>,
  { runs, minimum }: PropertyRuns,
  log: ProblemLog,
  body: (value: T) => Promise<void>,
): Promise<void> {
  const property = fc.asyncProperty(arb, async (value) => {
    const before = log.size;
    await body(value);
    if (fuzzConfig.shrink && log.size > before) throw new Error(log.format(name));
  });
  const limitMs = timeLimitMs();
  const details = await fc.check(property, {
    numRuns: runs,
    seed: seedFor(name),
    maxSkipsPerRun: 200,
    // Collecting mode fails only on a fault of the suite itself; shrinking that against a live
    // service would only replay it.
    endOnFailure: !fuzzConfig.shrink,
    plugins: [stopAfterTimeLimitPast(minimum, performance.now() + limitMs)],
  });
  if (details.failed) {
    throw new Error(`${name}: ${fc.defaultReportMessage(details) ?? 'property failed'}\n${replayHint()}`, {
      cause: details.errorInstance,
    });
  }
  if (details.numRuns < minimum) {
    throw new Error(
      `${name}: ${details.numRuns} of ${runs} runs, below its minimum of ${minimum}: it cannot vouch ` +
        `for the inputs it did not try\n${replayHint()}`,
    );
  }
  if (details.numRuns < runs) {
    console.log(
      `      ${name}: stopped after ${details.numRuns} of ${runs} runs (time limit ${limitMs} ms; minimum ${minimum})`,
    );
  }
}

/**
 * Interrupts the property once `deadline` has passed, but never before `minimum` runs have been
 * made (skipped runs do not count). The check comes between runs: the run in progress always
 * finishes, so its writes cannot land in the next property's row counts.
 */
export function stopAfterTimeLimitPast<T>(minimum: number, deadline: number): fc.Plugin<T> {
  return () => {
    let made = 0;
    return {
      decorateRun: (run) => async (value) => {
        if (made >= minimum && performance.now() >= deadline) return new fc.PreconditionFailure(true);
        const outcome = await run(value);
        if (outcome === null) made += 1;
        return outcome;
      },
    };
  };
}

let startedAt: number | undefined;

/**
 * Beyond its minimum a property may run FUZZ_PROPERTY_MS, and once FUZZ_BUDGET_S (counted from the
 * first property, so that the suites run before it in `npm test` do not spend it) is spent the
 * remaining ones stop at their minimum: on a slow machine the suite makes fewer requests rather than
 * overrun its budget, and never fewer than the minimums. The seed still replays the same requests
 * in the same order.
 */
function timeLimitMs(): number {
  startedAt ??= performance.now();
  const left = fuzzConfig.budgetMs - (performance.now() - startedAt);
  return Math.max(0, Math.round(Math.min(fuzzConfig.propertyMs, left)));
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
