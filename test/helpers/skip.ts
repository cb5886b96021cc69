/** Why each skipped test or suite was skipped, as `skipBecause` printed it. */
const reasons = new WeakMap<Mocha.Test | Mocha.Suite, string>();

const isTest = (runnable: Mocha.Runnable): runnable is Mocha.Test =>
  'type' in runnable && runnable.type === 'test';

/**
 * Skips the running test (or, from a `before` hook, its whole suite) and prints why on the run's
 * output. The one way to skip: a test skipped any other way (`this.skip()`, `it.skip`) fails the
 * run (`unexplainedSkips`), so a skip never hides silently in CI.
 */
export function skipBecause(ctx: Mocha.Context, reason: string): never {
  const runnable = ctx.test;
  // From a test: that test. From a hook: the suite the hook belongs to (what a hook skips).
  const skipped: Mocha.Test | Mocha.Suite | undefined =
    runnable === undefined ? undefined : isTest(runnable) ? runnable : runnable.parent;
  if (skipped) reasons.set(skipped, reason);
  process.stdout.write(`  skipped: ${skipped?.fullTitle() ?? 'a test'} (${reason})\n`);
  return ctx.skip();
}

/** The tests of `root` that were skipped without a reason `skipBecause` printed. */
export function unexplainedSkips(root: Mocha.Suite): string[] {
  const explained = (node: Mocha.Test | Mocha.Suite | undefined): boolean => {
    for (let at = node; at; at = at.parent) if (reasons.has(at)) return true;
    return false;
  };
  const found: string[] = [];
  const walk = (suite: Mocha.Suite): void => {
    for (const test of suite.tests) if (test.isPending() && !explained(test)) found.push(test.fullTitle());
    for (const child of suite.suites) walk(child);
  };
  walk(root);
  return found;
}
