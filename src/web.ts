import { startTracingOrExit } from './shared/tracing.js';

/**
 * Procfile `web`. Tracing (when configured) starts before the service's modules load, so that the
 * instrumentations of express, pg, ioredis and undici patch them as they are imported.
 */
await startTracingOrExit('web');
await import('./web-process.js');
