import { startTracingOrExit } from '../src/shared/tracing.js';

/**
 * Procfile `worker`. Tracing (when configured) starts before the service's modules load, so that the
 * instrumentations of pg, ioredis and undici patch them as they are imported.
 */
await startTracingOrExit('worker');
await import('./process.js');
