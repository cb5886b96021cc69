/**
 * The supervisor program, run by `startSupervised` as `node supervisor.js <spec>`: it starts one
 * child (redis-server, postgres) and stops it as soon as its own stdin reaches end of file. The
 * parent holds the only write end of that pipe, so end of file comes when the parent closes it
 * and also when the kernel closes it because the parent died, even by SIGKILL: no child outlives
 * the service. It imports only Node built-ins (and types), so it starts in a few tens of milliseconds.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { SPAWN_FAILED, type SupervisorSpec } from './supervised.js';

function isSpec(value: unknown): value is SupervisorSpec {
  if (typeof value !== 'object' || value === null) return false;
  const spec = value as Record<string, unknown>;
  return (
    typeof spec.command === 'string' &&
    Array.isArray(spec.args) &&
    spec.args.every((a) => typeof a === 'string') &&
    typeof spec.stopSignal === 'string' &&
    typeof spec.graceMs === 'number'
  );
}

function supervise(spec: SupervisorSpec): void {
  const child = spawn(spec.command, spec.args, {
    // The child writes straight into the parent's pipes; its stdin is not the lifeline.
    stdio: ['ignore', 'inherit', 'inherit'],
    ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
    ...(spec.uid !== undefined ? { uid: spec.uid } : {}),
    ...(spec.gid !== undefined ? { gid: spec.gid } : {}),
  });
  let spawnError: NodeJS.ErrnoException | undefined;
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    child.kill(spec.stopSignal);
    setTimeout(() => child.kill('SIGKILL'), spec.graceMs).unref();
  };
  child.once('error', (err: NodeJS.ErrnoException) => {
    spawnError = err;
    process.stderr.write(`supervisor: cannot start ${spec.command}: ${err.message}\n`);
    const code =
      err.code === 'ENOENT'
        ? SPAWN_FAILED.ENOENT
        : err.code === 'EACCES'
          ? SPAWN_FAILED.EACCES
          : SPAWN_FAILED.OTHER;
    process.exit(code);
  });
  child.once('exit', (code, signal) => {
    if (spawnError) return;
    process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0));
  });
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  process.stdin.resume();
  // Someone signalling the supervisor itself means "stop": never leave the child behind.
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, stop);
}

const raw = process.argv[2];
const parsed: unknown = raw === undefined ? undefined : JSON.parse(raw);
if (!isSpec(parsed)) {
  process.stderr.write('supervisor: expected one JSON argument {command, args, stopSignal, graceMs}\n');
  process.exit(2);
}
supervise(parsed);
