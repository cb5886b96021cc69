import { createHook } from 'node:async_hooks';

/** A resource async hooks saw created; timers and sockets tell whether they hold the process open. */
interface Tracked {
  type: string;
  stack: string;
  resource: { hasRef?: () => boolean };
}

const TRACKED_TYPES = new Set(['Timeout', 'TCPWRAP']);
const open = new Map<number, Tracked>();
let enabled = false;

/**
 * TEST_TRACE_HANDLES=1: notes where each timer and TCP socket was created, so a run held open at its
 * end can say by what code (it costs a stack trace per timer: off by default).
 */
export function traceOpenHandles(): void {
  if (enabled || process.env.TEST_TRACE_HANDLES !== '1') return;
  enabled = true;
  createHook({
    init(id, type, _trigger, resource: Tracked['resource']) {
      if (TRACKED_TYPES.has(type)) open.set(id, { type, stack: new Error().stack ?? '', resource });
    },
    destroy(id) {
      open.delete(id);
    },
  }).enable();
}

/** Where the traced resources still holding the process open were created (empty when not tracing). */
export function openHandleOrigins(): string {
  const holding = [...open.values()].filter((t) => t.resource.hasRef?.() !== false);
  return holding
    .map((t) => `${t.type} created at:\n${t.stack.split('\n').slice(2, 12).join('\n')}`)
    .join('\n----\n');
}
