import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let built: Promise<void> | undefined;

/**
 * Compiles the service into `dist/` once per test run (`npm run build`), so tests of separate
 * processes run what the Procfile runs, built from the sources under test rather than a stale build.
 */
export function ensureBuilt(): Promise<void> {
  built ??= new Promise<void>((resolve, reject) => {
    const tsc = spawn(
      process.execPath,
      [path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
      {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    for (const stream of [tsc.stdout, tsc.stderr]) stream.on('data', (c: Buffer) => (output += c.toString()));
    tsc.once('error', reject);
    tsc.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`npm run build failed (${String(code)}):\n${output}`)),
    );
  });
  return built;
}
