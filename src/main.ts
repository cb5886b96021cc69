import { startTracingOrExit } from './shared/tracing.js';

/**
 * `npm start`. Tracing (when configured) starts before the service's modules load, so that the
 * instrumentations of express, pg, ioredis and undici patch them as they are imported.
 */
await startTracingOrExit('web+worker');
await import('./main-process.js');
