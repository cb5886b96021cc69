import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from '@opentelemetry/api';

/**
 * What one chain of asynchronous work carries along: the request it serves (its id goes on every log
 * line) and, with tracing on, its trace context. One storage holds both because Node 20 runs a hook
 * of every enabled storage on every promise created: a second storage (the tracing SDK's own) would
 * double that cost on every request.
 */
export class Carried {
  // One class, both fields always set: every store has the same shape, so reading one stays a
  // monomorphic property access on the request path, traced or not.
  constructor(
    readonly requestId: string | undefined,
    readonly trace: Context | undefined,
  ) {}
}

export const carried = new AsyncLocalStorage<Carried>();
