import { context, propagation, trace, type Context } from '@opentelemetry/api';
import type { Telemetry } from 'bullmq';
import { ConfigError } from './config.js';

/**
 * OpenTelemetry for the service, off unless an OTLP endpoint is configured (the standard
 * `OTEL_EXPORTER_OTLP_ENDPOINT`, or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`; every other standard
 * `OTEL_*` variable applies as the SDK documents it). On, one trace follows a payment from the API
 * request (an incoming `traceparent` is honoured) through PostgreSQL, Redis and the queues to the
 * webhook POST, which carries a `traceparent` of that trace, even when the outbox sweep relays
 * the event later, from another process: the event row keeps the trace context it was recorded in.
 *
 * Off, nothing of the SDK is loaded: the helpers below fall back to the API's no-op behaviour
 * (no context, nothing stored, no header).
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

/** Modules whose exports the instrumentations patch; only these are intercepted at import. */
const INSTRUMENTED_MODULES = ['express', 'router', 'pg', 'pg-pool', 'ioredis', 'undici', 'http', 'https'];

export function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').toLowerCase() === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Starts the SDK when tracing is configured. Call it before anything imports express, pg, ioredis
 * or undici (the entry points do, then import the rest): their instrumentations patch them as
 * they load.
 */
export async function startTracing(role: 'web' | 'worker' | 'web+worker'): Promise<void> {
  if (running || !tracingConfigured()) return;
  for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) {
    const value = process.env[name];
    if (value && !URL.canParse(value))
      throw new ConfigError(`Invalid configuration:\n  ${name}: must be a URL`);
  }
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
      }),
      // No span per middleware and handler (a dozen per request, the largest cost of tracing here):
      // the request's server span still gets its route, and the queries and commands are its children.
      new ExpressInstrumentation({
        ignoreLayersType: [
          ExpressLayerType.MIDDLEWARE,
          ExpressLayerType.REQUEST_HANDLER,
          ExpressLayerType.ROUTER,
        ],
      }),
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
      new UndiciInstrumentation(),
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

/** BullMQ's telemetry hook (producer and consumer spans, context carried in the job) when tracing is on. */
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

/** The context a stored carrier describes (the active one when there is none). */
export function contextOf(carrier: TraceCarrier | null | undefined): Context {
  if (!carrier) return context.active();
  return propagation.extract(context.active(), carrier);
}

/**
 * Runs `fn` inside a stored trace context, so what it does (the webhook POST) joins the trace the
 * event was recorded in, whichever process and whenever it runs.
 */
export function withStoredTrace<T>(carrier: TraceCarrier | null | undefined, fn: () => T): T {
  if (!carrier) return fn();
  return context.with(contextOf(carrier), fn);
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
