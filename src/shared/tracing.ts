import type { EventEmitter } from 'node:events';
import http from 'node:http';
import {
  context,
  createContextKey,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type ContextManager,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { Span as QueueSpan, Telemetry } from 'bullmq';
import { QUEUE, type QueueName } from '../../queues/definitions.js';
import { Carried, carried } from './carried.js';
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
  /** BullMQ's telemetry, as each queue gets it (see `QUEUE_TRACING`). */
  telemetry: (queue: QueueName) => Telemetry | undefined;
  /** The service's own spans: the server span of each request, the client span of each webhook POST. */
  tracer: Tracer;
}

let running: Running | undefined;

/** Modules whose exports the instrumentations patch; only these are intercepted at import. */
const INSTRUMENTED_MODULES = ['pg', 'pg-pool', 'ioredis'];

/** Probes and scrapes are not worth a trace each. */
const UNTRACED_PATHS = /^\/(healthz|readyz|metrics)\b/;

export function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').toLowerCase() === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Starts the SDK when tracing is configured. Call it before anything imports pg or ioredis (the entry
 * points do, then import the rest): their instrumentations patch them as they load.
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
    { NodeSDK, core },
    { PgInstrumentation },
    { IORedisInstrumentation },
    { BullMQOtel },
    { ProtobufSpanExporter },
  ] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-ioredis'),
    import('bullmq-otel'),
    import('./otlp-protobuf.js'),
  ]);
  const sdk = new NodeSDK({
    // The SDK's default exporter (OTLP over HTTP, protobuf), with a faster encoder of the same bytes;
    // any other exporter or protocol named in OTEL_TRACES_EXPORTER or OTEL_EXPORTER_OTLP_*PROTOCOL is
    // left to the SDK.
    ...(exportsDefaultOtlp() ? { traceExporter: new ProtobufSpanExporter() } : {}),
    contextManager: new CarriedContextManager(role === 'worker'),
    ...(process.env.OTEL_SERVICE_NAME
      ? {}
      : { serviceName: `payment-links-${role === 'web+worker' ? 'all' : role}` }),
    // Traces only: the processes already serve their metrics to Prometheus, and nothing logs through
    // OpenTelemetry. Unset, the SDK would also export metrics (every HTTP request and query timed
    // into histograms, a tenth of the cost of tracing) and start a log pipeline; naming an exporter
    // in OTEL_METRICS_EXPORTER or OTEL_LOGS_EXPORTER still turns it on.
    ...(process.env.OTEL_METRICS_EXPORTER ? {} : { metricReaders: [] }),
    ...(process.env.OTEL_LOGS_EXPORTER ? {} : { logRecordProcessors: [] }),
    instrumentations: [
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  await skipInstrumentationOutsideTraces();
  const tracer = trace.getTracer('payment-links-http');
  traceIncomingRequests(tracer);
  const queues = new BullMQOtel({ tracerName: 'payment-links-queues' });
  const telemetry = new Map(
    Object.values(QUEUE).map((queue) => [queue, queueTelemetryOf(queue, queues, core.suppressTracing)]),
  );
  running = {
    tracer,
    shutdown: () => sdk.shutdown(),
    telemetry: (queue) => telemetry.get(queue),
  };
}

/** Whether the environment leaves the SDK its default trace exporter: OTLP over HTTP, protobuf. */
export function exportsDefaultOtlp(env: NodeJS.ProcessEnv = process.env): boolean {
  const setting = (name: string): string | undefined => env[name]?.trim() || undefined;
  const exporters = (setting('OTEL_TRACES_EXPORTER') ?? 'otlp').split(',').map((name) => name.trim());
  const protocol =
    setting('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ??
    setting('OTEL_EXPORTER_OTLP_PROTOCOL') ??
    'http/protobuf';
  return exporters.length === 1 && exporters[0] === 'otlp' && protocol === 'http/protobuf';
}

/**
 * Has calls to pg and ioredis made outside any trace skip their instrumentation's wrapper, which
 * would only find out that there is no span to make. At one request in ten sampled, the wrappers
 * (the pg query's, the pool connect's, ioredis's sendCommand) met both kinds of call and cost more
 * per call than with either kind alone (V8 optimises code late that meets mixed cases): in a CPU
 * profile of POSTs, they and the spans they make took seven tenths of the CPU they take with every
 * request traced. Now each wrapper sees traced calls only, and a traced pg query gets a span of our
 * own (`tracePgQuery`). Imports pg and ioredis, so the instrumentations patch them first
 * (`startTracing` runs before anything else imports them).
 */
async function skipInstrumentationOutsideTraces(): Promise<void> {
  const [{ default: pg }, { Redis }] = await Promise.all([import('pg'), import('ioredis')]);
  const pool: unknown = Object.getPrototypeOf(pg.Pool.prototype);
  const wrappers: Array<[target: unknown, method: string, wrap: Wrap]> = [
    [pg.Client.prototype, 'query', tracePgQuery(trace.getTracer('payment-links-pg'))],
    // With ignoreConnectSpans, the instrumented connect only counts the pool's connections into
    // metrics, through listeners it adds to the pool's every checkout and release: wasted unless
    // metrics are exported.
    [pool, 'connect', process.env.OTEL_METRICS_EXPORTER ? instrumentedInsideTraces : (original) => original],
    [Redis.prototype, 'sendCommand', instrumentedInsideTraces],
  ];
  for (const [target, method, wrap] of wrappers) {
    const instrumented: unknown = target && Reflect.get(target, method);
    const original: unknown =
      typeof instrumented === 'function' ? Reflect.get(instrumented, '__original') : undefined;
    if (typeof instrumented !== 'function' || typeof original !== 'function' || !target)
      throw new Error(`tracing: ${method} of pg or ioredis is not instrumented`);
    Reflect.set(target, method, wrap(original as AnyMethod, instrumented as AnyMethod));
  }
}

export type AnyMethod = (this: unknown, ...args: unknown[]) => unknown;
/** A method to install in place of an instrumented one, from the original and the instrumented. */
export type Wrap = (original: AnyMethod, instrumented: AnyMethod) => AnyMethod;

const instrumentedInsideTraces: Wrap = (original, instrumented) =>
  function outsideTracesUninstrumented(this: unknown, ...args: unknown[]): unknown {
    return carried.getStore()?.trace === undefined
      ? Reflect.apply(original, this, args)
      : Reflect.apply(instrumented, this, args);
  };

/** What of a pg `Client`'s connection a query's span describes. */
function connectionOf(client: unknown): { database?: unknown; host?: unknown; port?: unknown } {
  const params: unknown =
    client && typeof client === 'object' ? Reflect.get(client, 'connectionParameters') : undefined;
  return params && typeof params === 'object' ? params : {};
}

/**
 * A traced pg query as one client span of our own, in place of the pg instrumentation's, which cost
 * a traced POST more than all its other spans together (`docs/benchmarks.md`, "Tracing cost"): it
 * copies each query's config, times every query into a metric, and runs a dozen helpers per call.
 * The span keeps what the instrumentation's said of a query: its name (`pg.query:INSERT dbname`),
 * `db.system.name`, `db.namespace`, `server.address`, `server.port`, `db.query.text` and `pg.plan`
 * for a named statement; a failed query has an error status, its SQLSTATE in `error.type`, and an
 * exception event (`endQuerySpan`).
 *
 * Covers the calls the service makes: query text or a config object with text, then values, then
 * a callback or none (a promise). Anything else (a submittable such as a cursor, a config holding
 * its own callback) goes to the instrumentation as before. Outside any trace, pg's own method.
 */
export function tracePgQuery(tracer: Tracer): Wrap {
  return (original, instrumented) =>
    function query(this: unknown, ...args: unknown[]): unknown {
      const parent = carried.getStore()?.trace;
      if (parent === undefined) return Reflect.apply(original, this, args);
      const [first] = args;
      const text = queryTextOf(first);
      if (text === undefined) return Reflect.apply(instrumented, this, args);
      const { database, host, port } = connectionOf(this);
      const namespace = typeof database === 'string' ? database : undefined;
      const name: unknown = first && typeof first === 'object' ? Reflect.get(first, 'name') : undefined;
      const plan = typeof name === 'string' && name ? name : undefined;
      const span = tracer.startSpan(
        `pg.query:${plan ?? operationOf(text)}${namespace ? ` ${namespace}` : ''}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            'db.system.name': 'postgresql',
            'db.namespace': namespace,
            'server.address': typeof host === 'string' ? host : undefined,
            'server.port':
              typeof port === 'number' ? port : typeof port === 'string' ? Number(port) : undefined,
            'db.query.text': text,
            ...(plan ? { 'pg.plan': plan } : {}),
          },
        },
        parent,
      );
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === 'function') {
        args[last] = context.bind(parent, function (this: unknown, err: unknown, ...rest: unknown[]) {
          endQuerySpan(span, err);
          return Reflect.apply(callback, this, [err, ...rest]);
        });
      }
      let result: unknown;
      try {
        result = Reflect.apply(original, this, args);
      } catch (err) {
        endQuerySpan(span, err);
        throw err;
      }
      if (result instanceof Promise)
        result.then(
          () => endQuerySpan(span, undefined),
          (err: unknown) => endQuerySpan(span, err),
        );
      return result;
    };
}

/** The text of a query pg runs from these arguments' first, when it is one `tracePgQuery` covers. */
function queryTextOf(first: unknown): string | undefined {
  if (typeof first === 'string') return first;
  if (!first || typeof first !== 'object') return undefined;
  const text: unknown = Reflect.get(first, 'text');
  if (typeof text !== 'string') return undefined;
  const submit: unknown = Reflect.get(first, 'submit');
  const callback: unknown = Reflect.get(first, 'callback');
  return typeof submit === 'function' || typeof callback === 'function' ? undefined : text;
}

/** `INSERT` of `insert into …`, as the instrumentation names a query's operation. */
function operationOf(text: string): string {
  const trimmed = text.trimStart();
  const space = trimmed.search(/\s/);
  const word = (space === -1 ? trimmed : trimmed.slice(0, space)).toUpperCase();
  return word.endsWith(';') ? word.slice(0, -1) : word;
}

/**
 * Ends a query's span, recording its failure if any. The error is described by its type and SQLSTATE
 * only: PostgreSQL's messages can quote the values that failed (`invalid input syntax for type
 * uuid: "…"`), which may be buyer data.
 */
function endQuerySpan(span: Span, err: unknown): void {
  if (err !== undefined && err !== null) {
    const code: unknown = typeof err === 'object' ? Reflect.get(err, 'code') : undefined;
    const type = err instanceof Error ? err.name : 'PostgreSQLError';
    const message = `PostgreSQL error of type '${type}' occurred (code: ${typeof code === 'string' ? code : 'UNKNOWN'})`;
    if (typeof code === 'string') span.setAttribute('error.type', code);
    span.recordException(message);
    span.setStatus({ code: SpanStatusCode.ERROR, message });
  }
  span.end();
}

/**
 * Marks the context of a request that came with the caller's `traceparent` but is not sampled: it is
 * still carried (see `CarriedContextManager`), so the events it records, and their webhooks, name
 * the caller's trace.
 */
const CALLERS_TRACE = createContextKey('payment-links caller trace');

/** Whether a context is worth entering from outside any other: its span records, or it is a caller's trace. */
function worthCarrying(ctx: Context): boolean {
  return trace.getSpan(ctx)?.isRecording() === true || ctx.getValue(CALLERS_TRACE) === true;
}

/**
 * The context manager of a traced process, on the storage that also carries the request id of log
 * lines (`carried`): one storage's hook per promise, where the SDK's own manager would add a second.
 * Two rules keep the cost of carrying a context to the work that is traced:
 * - A context entered from outside any other and not worth carrying (a request or job the sampler
 *   left out) is not entered: that work runs outside any context, as it does untraced.
 * - In a worker process, where nothing else uses the storage, the storage is switched off whenever
 *   no traced work is running: while it is on, Node 20 runs its hook on every promise the process
 *   creates, traced or not (a fifth of the CPU a webhook delivery takes).
 *
 * `bind` binds functions only (what the pg and ioredis instrumentations bind); anything else is
 * returned as it is.
 */
export class CarriedContextManager implements ContextManager {
  /** Outermost entries whose work has not finished yet (worker processes only). */
  private running = 0;

  constructor(private readonly offWhenIdle: boolean) {}

  active(): Context {
    return carried.getStore()?.trace ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const store = carried.getStore();
    if (store?.trace === ctx) return fn.apply(thisArg, args);
    const run = (): ReturnType<F> => fn.apply(thisArg, args);
    const enter = (): ReturnType<F> => carried.run(new Carried(store?.requestId, ctx), run);
    const outermost = store?.trace === undefined;
    if (outermost && !worthCarrying(ctx)) return run();
    if (!outermost || !this.offWhenIdle) return enter();
    this.running += 1;
    let result: ReturnType<F>;
    try {
      result = enter();
    } catch (err) {
      this.finished();
      throw err;
    }
    if (result instanceof Promise) result.then(this.finished, this.finished);
    else this.finished();
    return result;
  }

  private readonly finished = (): void => {
    this.running -= 1;
    if (this.running === 0) carried.disable();
  };

  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const fn = target;
    const inContext = <R>(call: () => R): R => this.with(ctx, call);
    function bound(this: unknown, ...args: unknown[]): unknown {
      return inContext(() => Reflect.apply(fn, this, args));
    }
    // The same call signature as `target`, which TypeScript cannot see through `typeof`.
    return bound as T;
  }

  enable(): this {
    return this;
  }

  /** Nothing to switch off: the storage also carries request ids, which outlive the SDK. */
  disable(): this {
    return this;
  }
}

/**
 * How much of each queue's work joins a trace. The webhook engine's queues move events by the
 * thousand per second, and each event's trace context travels in PostgreSQL instead (the event row
 * keeps it; its webhook POST continues it):
 * - `relay-only`: the outbox job's producer and consumer spans are kept (they show when the event
 *   was relayed), but the job does not run in its consumer span's context: one statement fans out
 *   the events of many jobs, so its queries belong to no one trace.
 * - `none`: a lane job runs one integration's deliveries for seconds, each delivery's POST a span of
 *   its own event's trace; a `deliveries` job only shows a failed attempt in Bull Board.
 * - `whole`: every other job runs in its consumer span's context, so what it does joins the trace.
 */
const QUEUE_TRACING: Record<QueueName, 'whole' | 'relay-only' | 'none'> = {
  [QUEUE.outbox]: 'relay-only',
  [QUEUE.deliveryLanes]: 'none',
  [QUEUE.deliveries]: 'none',
  [QUEUE.linkExpiry]: 'whole',
  [QUEUE.simulate]: 'whole',
  [QUEUE.renewals]: 'whole',
  [QUEUE.orderAbandonment]: 'whole',
  [QUEUE.deliveryRecovery]: 'whole',
  [QUEUE.retention]: 'whole',
  [QUEUE.gatewayNotices]: 'whole',
  [QUEUE.gatewayReconciliation]: 'whole',
};

function queueTelemetryOf(
  queue: QueueName,
  telemetry: Telemetry<Context>,
  suppress: (ctx: Context) => Context,
): Telemetry<Context> | undefined {
  const tracing = QUEUE_TRACING[queue];
  if (tracing === 'none') return undefined;
  return producersAndConsumersOnly(telemetry, suppress, tracing === 'relay-only');
}

/**
 * BullMQ's telemetry without its internal spans. Besides a job's producer and consumer spans, BullMQ
 * traces its own bookkeeping (completing a job, fetching the next one, stalled checks), and each such
 * span has the Redis commands it sends as children: in the webhook engine, more than half the spans of
 * a delivery, describing the queue rather than the payment. Those operations run untraced here: no
 * span of their own and none for their commands.
 *
 * A job is added with a producer span only inside a trace (a traced request or job): one added
 * outside any would start a trace of its own, one span long, so it is added as if telemetry were
 * off (no context made for it, no empty trace context stored in the job: most of the web's POSTs are
 * not sampled). The add's own Redis command is not traced: its producer span covers it. A consumer
 * span continues its producer's trace, or starts one for a job added outside any (a scheduled job);
 * with `detached`, the job runs outside its context.
 */
function producersAndConsumersOnly(
  telemetry: Telemetry<Context>,
  suppress: (ctx: Context) => Context,
  detached: boolean,
): Telemetry<Context> {
  const untraced: QueueSpan<Context> = {
    setSpanOnContext: suppress,
    setAttribute: () => undefined,
    setAttributes: () => undefined,
    addEvent: () => undefined,
    recordException: () => undefined,
    end: () => undefined,
  };
  const outsideAnyTrace: QueueSpan<Context> = { ...untraced, setSpanOnContext: (parent) => parent };
  const startSpan: Telemetry<Context>['tracer']['startSpan'] = (name, options, ctx) => {
    if (options?.kind === SpanKind.CONSUMER) {
      const span = telemetry.tracer.startSpan(name, options, ctx);
      return detached ? withContextOf(span, () => ROOT_CONTEXT) : span;
    }
    if (options?.kind === SpanKind.PRODUCER) {
      if (!trace.getSpan(ctx ?? context.active())) return outsideAnyTrace;
      const span = telemetry.tracer.startSpan(name, options, ctx);
      return withContextOf(span, (parent) => span.setSpanOnContext(parent).setValue(QUEUE_ADD, true));
    }
    return untraced;
  };
  const { contextManager } = telemetry;
  return {
    tracer: { startSpan },
    contextManager: {
      active: () => contextManager.active(),
      // Empty (BullMQ then stores none) for a context outside any trace.
      getMetadata: (ctx) => (trace.getSpan(ctx) ? contextManager.getMetadata(ctx) : ''),
      fromMetadata: (ctx, metadata) => contextManager.fromMetadata(ctx, metadata),
      // The add's own Redis command (a script call) says nothing its producer span does not.
      with: (ctx, fn) => contextManager.with(ctx.getValue(QUEUE_ADD) === true ? suppress(ctx) : ctx, fn),
    },
  };
}

/** `span`, with the context BullMQ runs its operation in made by `setSpanOnContext` instead. */
function withContextOf(
  span: QueueSpan<Context>,
  setSpanOnContext: (parent: Context) => Context,
): QueueSpan<Context> {
  return {
    setSpanOnContext,
    setAttribute: (key, value) => span.setAttribute(key, value),
    setAttributes: (attributes) => span.setAttributes(attributes),
    addEvent: (eventName, attributes) => span.addEvent(eventName, attributes),
    recordException: (exception, time) => span.recordException(exception, time),
    end: () => span.end(),
  };
}

/** Marks the context of a job's producer span, inside which BullMQ sends the add to Redis. */
const QUEUE_ADD = createContextKey('payment-links queue add');

/**
 * One server span per incoming request, in place of the HTTP and Express instrumentations (which
 * cost more than everything else tracing does on an API read: per-request metrics, a dozen
 * attributes, wrapped middleware). Every `http.Server` of the process emits its requests through
 * this: the span continues an incoming `traceparent`, is active while the app handles the request,
 * and ends when the response is sent, named after the route that answered.
 */
function traceIncomingRequests(tracer: Tracer): void {
  emitInTheirContexts();
  type Emit = (this: http.Server, event: string, ...args: unknown[]) => boolean;
  const emit: Emit = http.Server.prototype.emit;
  const traced: Emit = function (this: http.Server, event, ...args) {
    const [req, res] = args;
    if (
      event !== 'request' ||
      !(req instanceof http.IncomingMessage) ||
      !(res instanceof http.ServerResponse) ||
      UNTRACED_PATHS.test(req.url ?? '')
    )
      return emit.call(this, event, ...args);
    const method = req.method ?? 'GET';
    const span = tracer.startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': method, 'url.path': (req.url ?? '/').split('?')[0] },
      },
      propagation.extract(ROOT_CONTEXT, req.headers),
    );
    // A request the sampler left out, started here (no caller's trace to carry on), runs outside any
    // context: nothing of it would be exported, and carrying an empty context through every event,
    // query and command is most of what tracing costs when few requests are sampled.
    if (!span.isRecording() && req.headers.traceparent === undefined) return emit.call(this, event, ...args);
    const spanContext = trace.setSpan(ROOT_CONTEXT, span);
    const active = span.isRecording() ? spanContext : spanContext.setValue(CALLERS_TRACE, true);
    // What listens to the request (its body arriving) and the response (its end) runs in the
    // span's context, not the connection's.
    emittingIn.set(req, active);
    emittingIn.set(res, active);
    res.once('close', () => {
      const route = routeOf(req);
      if (route) span.updateName(`${method} ${route}`).setAttribute('http.route', route);
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    return context.with(active, () => emit.call(this, event, ...args));
  };
  http.Server.prototype.emit = traced;
}

/** The requests and responses of traced requests, and the context their events are handled in. */
const emittingIn = new WeakMap<EventEmitter, Context>();

/**
 * Has every request and response emit its events in the context `emittingIn` holds for it, if any:
 * one wrapper on each prototype, set once. Patching the emit of each traced request and response
 * instead (or `context.bind`, which patches six methods and wraps each listener) gave those objects
 * a shape of their own: with one request in ten traced, every property read of Express, the router
 * and body-parser met two shapes, and the untraced requests paid for it too.
 */
function emitInTheirContexts(): void {
  type Emit = (this: EventEmitter, event: string | symbol, ...args: unknown[]) => boolean;
  for (const proto of [http.IncomingMessage.prototype, http.ServerResponse.prototype]) {
    const emit: Emit = proto.emit;
    const inContext: Emit = function (this: EventEmitter, event, ...args) {
      const ctx = emittingIn.get(this);
      return ctx === undefined
        ? emit.call(this, event, ...args)
        : context.with(ctx, emit, this, event, ...args);
    };
    proto.emit = inContext;
  }
}

/** The Express route that answered (`/v1/payment-links/:id`), once it has: Express leaves it on the request. */
function routeOf(req: http.IncomingMessage): string | undefined {
  const route: unknown = Reflect.get(req, 'route');
  const path: unknown = route && typeof route === 'object' ? Reflect.get(route, 'path') : undefined;
  if (typeof path !== 'string') return undefined;
  const base: unknown = Reflect.get(req, 'baseUrl');
  return `${typeof base === 'string' ? base : ''}${path}`;
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
 * BullMQ's telemetry hook for one queue's producers and workers when tracing is on (producer and
 * consumer spans, the context carried in the job), unless the queue is not traced (`QUEUE_TRACING`).
 */
export const queueTelemetry = (queue: QueueName): Telemetry | undefined => running?.telemetry(queue);

/** The active trace context as a carrier to store (with an outbox event), or null when there is none. */
export function currentTraceCarrier(): TraceCarrier | null {
  const carrier: Partial<TraceCarrier> = {};
  propagation.inject(context.active(), carrier);
  if (typeof carrier.traceparent !== 'string') return null;
  return carrier.tracestate
    ? { traceparent: carrier.traceparent, tracestate: carrier.tracestate }
    : { traceparent: carrier.traceparent };
}

/** The context a stored carrier describes. */
export function contextOf(carrier: TraceCarrier): Context {
  return propagation.extract(context.active(), carrier);
}

/** What `traceOutgoing` learns of a request that got a response. */
export interface OutgoingResult {
  statusCode: number;
}

/**
 * An outgoing request (the webhook POST) as one client span of the trace stored with its event,
 * whichever process and whenever it runs: the span's `traceparent` (and `tracestate`) go into
 * `headers`, which `send` then sends. The span covers `send` whole, response body included.
 *
 * In place of the undici instrumentation, which cost a webhook delivery more than all its other
 * spans together (docs/benchmarks.md, "Tracing cost"): it parses every request's headers, keeps a
 * dozen attributes, and times each request into a metric nobody reads. Here the span has what
 * identifies the request and its outcome: method, `url.full`, server address and port, status code,
 * and `error.type` when it failed. Nothing of `send` runs in the span's context: nothing in it
 * (undici) is instrumented.
 */
export async function traceOutgoing<T extends OutgoingResult>(
  carrier: TraceCarrier | null | undefined,
  request: { method: string; url: URL; headers: Record<string, string> },
  send: () => Promise<T>,
): Promise<T> {
  const tracer = running?.tracer;
  // An event recorded outside any trace has none to continue: its POST is sent untraced, rather
  // than as a trace of its own, one span long.
  if (!tracer || !carrier) return send();
  const { method, url, headers } = request;
  const parent = contextOf(carrier);
  const span = tracer.startSpan(
    method,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': method,
        'url.full': url.href,
        'server.address': url.hostname.replace(/^\[|\]$/g, ''),
        'server.port': url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80,
      },
    },
    parent,
  );
  propagation.inject(trace.setSpan(parent, span), headers);
  try {
    const res = await send();
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 400)
      span.setAttribute('error.type', String(res.statusCode)).setStatus({ code: SpanStatusCode.ERROR });
    return res;
  } catch (err) {
    const code: unknown = err instanceof Error ? Reflect.get(err, 'code') : undefined;
    span.setAttribute(
      'error.type',
      typeof code === 'string' ? code : err instanceof Error ? err.name : 'Error',
    );
    if (err instanceof Error) span.recordException(err);
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
    throw err;
  } finally {
    span.end();
  }
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
