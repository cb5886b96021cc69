import { closeTestApps, sharedApp } from './helpers/app.js';
import { ensureBuilt, stopUnusedBuild } from './helpers/compiled.js';
import { hasTestEnvironment, startTestEnvironment, testEnvironment } from './helpers/environment.js';
import { leakedIntoLogs } from './helpers/log-check.js';
import { openHandleOrigins, traceOpenHandles } from './helpers/open-handles.js';
import { unexplainedSkips } from './helpers/skip.js';
import { takeWebhookViolations } from './helpers/webhook-validator.js';

traceOpenHandles();

// pg warns once per process when a query is queued on a connection already running one (two reads
// side by side on a transaction): pg 9 will refuse it, so the run fails on the warning.
const queuedOnBusyConnection: string[] = [];
process.on('warning', (warning) => {
  if (warning.name === 'DeprecationWarning' && /already executing a query/.test(warning.message))
    queuedOnBusyConnection.push(warning.message);
});

/** How long the process may outlive the last hook before a resource left open fails the run. */
const LEFT_OPEN_GRACE_MS = 20_000;

/** Mocha root hooks: one environment for the whole run, torn down at the end. */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(120_000);
    // The tests of separate processes run the compiled service: the build starts now, beside the
    // first tests, and they wait for it (a failed build fails them, not this hook).
    ensureBuilt().catch(() => undefined);
    await startTestEnvironment();
  },
  /** A webhook body that broke its documented schema, received by any test receiver, fails the test. */
  afterEach() {
    const violations = takeWebhookViolations();
    if (violations.length > 0)
      throw new Error(`${violations.length} webhook body(ies) off their schema:\n${violations.join('\n')}`);
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    try {
      // The log test (no secret or buyer data in any log line): run over the whole suite's traffic, so it lives here, after
      // every test, and fails the run like a test would.
      if (hasTestEnvironment()) {
        const { searched, lines, leaks } = await leakedIntoLogs((await sharedApp()).ctx.db);
        process.stdout.write(
          `  log check: ${searched} secrets and buyer data searched in ${lines} log lines\n`,
        );
        if (leaks.length > 0) {
          throw new Error(
            `${leaks.length} secret(s) or buyer data in the service logs: ${leaks.map((l) => `${l.slice(0, 6)}…`).join(', ')}`,
          );
        }
      }
      if (queuedOnBusyConnection.length > 0)
        throw new Error(
          `a query was queued on a busy PostgreSQL connection: reads inside a transaction run one after another (sideBySide, src/shared/db/side-by-side.ts): ${queuedOnBusyConnection[0]}`,
        );
      // A skip nobody reads is a test that silently stopped running: every skip prints why.
      const root = this.test?.parent;
      const unexplained = root ? unexplainedSkips(root) : [];
      if (unexplained.length > 0)
        throw new Error(
          `${unexplained.length} test(s) skipped without a printed reason (skip with skipBecause, test/helpers/skip.ts):\n  ${unexplained.join('\n  ')}`,
        );
    } finally {
      await stopUnusedBuild();
      await closeTestApps();
      if (hasTestEnvironment()) await testEnvironment().stop();
      // Mocha runs without exit: true, so a run ends when nothing is left open. Something left open
      // would hold it forever: after a grace it names what kinds of resource are left and fails.
      setTimeout(() => {
        process.stderr.write(
          `\nthe run is over but the process is held open by: ${process.getActiveResourcesInfo().join(', ')}\n` +
            `${openHandleOrigins()}\n` +
            'close them in the test or helper that opened them (docs/operations.md, "Test suites")\n',
        );
        // Mocha sets the exit code to its failure count in an 'exit' listener: this one runs after it.
        process.on('exit', () => {
          process.exitCode = Math.max(Number(process.exitCode ?? 0), 1);
        });
        process.exit(1);
      }, LEFT_OPEN_GRACE_MS).unref();
    }
  },
};
