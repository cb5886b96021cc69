import { context, propagation, trace } from '@opentelemetry/api';
import type { Telemetry } from 'bullmq';
import { ConfigError } from './config.js';

/**
 * OpenTelemetry for the service: the standard Node SDK and the official instrumentations, off unless
 * an OTLP endpoint is configured. Off, nothing of the SDK is loaded and the helpers below fall back
 * to the API's no-op behaviour (no context, nothing stored, no header).
 *
 * What no instrumentation does stays here: an outbox event stores the trace context it was recorded
 * in, and its webhook POST continues that trace whichever process sends it, however much later.
 */

/** A W3C trace context as stored with an outbox event: `traceparent` and, when there is one, `tracestate`. */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

interface Running {
  shutdown(): Promise<void>;
  telemetry: Telemetry;
}

let running: Running | undefined;

/**
 * The service's defaults where they differ from the SDK's; a variable set in the environment wins.
 * - One trace in ten: every request traced costs an API create about a fifth more CPU.
 * - Statements are cut at 1 kB: a span's SQL text is most of its export (a link's INSERT is 1.5 kB).
 * - Traces only: Prometheus serves the metrics, and nothing logs through OpenTelemetry.
 */
const SERVICE_DEFAULTS = {
  OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
  OTEL_TRACES_SAMPLER_ARG: '0.1',
  OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '1024',
  OTEL_METRICS_EXPORTER: 'none',
  OTEL_LOGS_EXPORTER: 'none',
};

/** Modules the instrumentations patch: ESM imports of anything else skip the loader hook's wrapping. */
const INSTRUMENTED_MODULES = ['express', 'router', 'pg', 'pg-pool', 'ioredis', 'http', 'https'];

function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').toLowerCase() === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Starts the SDK when tracing is configured. Call it before anything imports express, pg or ioredis
 * (the entry points do, then import the rest): their instrumentations patch them as they load.
 */
export async function startTracing(role: 'web' | 'worker' | 'web+worker'): Promise<void> {
  if (running || !tracingConfigured()) return;
  for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) {
    const value = process.env[name];
    if (value && !URL.canParse(value))
      throw new ConfigError(`Invalid configuration:\n  ${name}: must be a URL`);
  }
  // The SDK reads its configuration from the environment; only the process's own copy is changed.
  for (const [name, value] of Object.entries(SERVICE_DEFAULTS)) process.env[name] ||= value;
  const { register } = await import('node:module');
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, {
    data: { include: INSTRUMENTED_MODULES },
  });
  const [
    { NodeSDK },
    { HttpInstrumentation },
    { ExpressInstrumentation, ExpressLayerType },
    { PgInstrumentation },
    { IORedisInstrumentation },
    { UndiciInstrumentation },
    { BullMQOtel },
  ] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-express'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-ioredis'),
    import('@opentelemetry/instrumentation-undici'),
    import('bullmq-otel'),
  ]);
  const sdk = new NodeSDK({
    ...(process.env.OTEL_SERVICE_NAME
      ? {}
      : { serviceName: `payment-links-${role === 'web+worker' ? 'all' : role}` }),
    instrumentations: [
      new HttpInstrumentation({
        // Probes and scrapes are not worth a trace each.
        ignoreIncomingRequestHook: (req) => /^\/(healthz|readyz|metrics)\b/.test(req.url ?? ''),
        requireParentforOutgoingSpans: true,
      }),
      // The request's server span still gets its route; a span per middleware would be a dozen per
      // request, each costing more than it tells.
      new ExpressInstrumentation({
        ignoreLayersType: [
          ExpressLayerType.MIDDLEWARE,
          ExpressLayerType.REQUEST_HANDLER,
          ExpressLayerType.ROUTER,
        ],
      }),
      // Outside a trace (pool bookkeeping, sweeps, the lanes' claims) a query or command would start
      // a trace one span long.
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
      // A webhook POST of an event recorded outside any trace, or a PSP call from a sweep, starts none.
      new UndiciInstrumentation({ requireParentforSpans: true }),
    ],
  });
  sdk.start();
  running = {
    shutdown: () => sdk.shutdown(),
    telemetry: new BullMQOtel({ tracerName: 'payment-links-queues' }),
  };
}

/** `startTracing` for an entry point: a bad OTEL_* value stops the process with one line naming it. */
export async function startTracingOrExit(role: 'web' | 'worker' | 'web+worker'): Promise<void> {
  try {
    await startTracing(role);
  } catch (err) {
    process.stderr.write(
      `${err instanceof ConfigError ? err.message : `tracing did not start: ${String(err)}`}\n`,
    );
    process.exit(1);
  }
}

/** Flushes and stops the SDK (the last step of a graceful shutdown); nothing when tracing is off. */
export async function stopTracing(): Promise<void> {
  const current = running;
  running = undefined;
  await current?.shutdown().catch(() => undefined);
}

/**
 * BullMQ's telemetry hook when tracing is on; which queues use it is said with the queues
 * (`QUEUE_TRACED` in `queues/definitions.ts`).
 */
export const queueTelemetry = (): Telemetry | undefined => running?.telemetry;

/** The active trace context as a carrier to store (with an outbox event), or null when there is none. */
export function currentTraceCarrier(): TraceCarrier | null {
  const carrier: Partial<TraceCarrier> = {};
  propagation.inject(context.active(), carrier);
  if (typeof carrier.traceparent !== 'string') return null;
  return carrier.tracestate
    ? { traceparent: carrier.traceparent, tracestate: carrier.tracestate }
    : { traceparent: carrier.traceparent };
}

/**
 * Runs `fn` inside a stored trace context, so that what it sends (the webhook POST, traced by the
 * undici instrumentation) joins the trace the event was recorded in.
 */
export function withStoredTrace<T>(carrier: TraceCarrier | null | undefined, fn: () => T): T {
  return carrier ? context.with(propagation.extract(context.active(), carrier), fn) : fn();
}

/** The trace id of the active span, for log lines (undefined when tracing is off or nothing is traced). */
export function activeTraceId(): string | undefined {
  const spanContext = trace.getActiveSpan()?.spanContext();
  return spanContext && trace.isSpanContextValid(spanContext) ? spanContext.traceId : undefined;
}

/** Reads a stored carrier from its column (jsonb), ignoring anything that is not one. */
export function traceCarrierFrom(value: unknown): TraceCarrier | null {
  if (!value || typeof value !== 'object') return null;
  const { traceparent, tracestate } = value as Record<string, unknown>;
  if (typeof traceparent !== 'string') return null;
  return typeof tracestate === 'string' ? { traceparent, tracestate } : { traceparent };
}
