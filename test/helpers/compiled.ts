import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let built: Promise<void> | undefined;
/** The build step under way, if any. */
let running: ChildProcess | undefined;

/** One step of the build, run with this Node; rejects with its output when it fails. */
function step(args: string[]): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    running = child;
    child.once('exit', () => {
      if (running === child) running = undefined;
    });
    let output = '';
    for (const stream of [child.stdout, child.stderr])
      stream.on('data', (c: Buffer) => (output += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`npm run build failed (${String(code)}):\n${output}`)),
    );
  });
}

/**
 * Compiles the service into `dist/` once per test run, as `npm run build` does (tsc, then the static
 * files copied beside the compiled code), so tests of separate processes run what the Procfile runs,
 * built from the sources under test rather than a stale build.
 */
export function ensureBuilt(): Promise<void> {
  built ??= step([path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']).then(() =>
    step([path.join(REPO_ROOT, 'scripts/copy-static.mjs')]),
  );
  return built;
}

/**
 * Ends a build nobody waited for (a run of tests that start no compiled process), so the run exits
 * when its tests are done instead of when tsc is; the next run builds again anyway.
 */
export async function stopUnusedBuild(): Promise<void> {
  const child = running;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
