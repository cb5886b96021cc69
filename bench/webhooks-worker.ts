import { startTracingOrExit } from '../src/shared/tracing.js';

/**
 * The worker process of `npm run bench:webhooks` (see webhooks-worker-process.ts). Tracing starts first
 * when the benchmark turns it on (BENCH_TRACING=1 sets OTEL_EXPORTER_OTLP_ENDPOINT for the engine), as
 * the service's own entry points do.
 */
await startTracingOrExit('worker');
await import('./webhooks-worker-process.js');
