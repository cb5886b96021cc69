import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { core, resources, tracing } from '@opentelemetry/sdk-node';
import { expect } from 'chai';
import { encodeExportRequest } from '../../src/shared/otlp-protobuf.js';
import { exportsDefaultOtlp } from '../../src/shared/tracing.js';

/** Spans made by a real SDK tracer (one per resource given), every shape the encoder has a branch for. */
function spansOf(
  make: (tracers: { name: string; tracer: ReturnType<tracing.BasicTracerProvider['getTracer']> }[]) => void,
  resourceNames: string[],
): tracing.ReadableSpan[] {
  const exporter = new tracing.InMemorySpanExporter();
  const providers = resourceNames.map(
    (name) =>
      new tracing.BasicTracerProvider({
        resource: resources.resourceFromAttributes({
          'service.name': name,
          'process.command_args': ['/usr/bin/node', 'dist/src/web.js'],
          'process.pid': 4242,
        }),
        spanProcessors: [new tracing.SimpleSpanProcessor(exporter)],
      }),
  );
  make(
    providers.flatMap((provider, i) => [
      { name: `${i}:a`, tracer: provider.getTracer('payment-links-http') },
      {
        name: `${i}:b`,
        tracer: provider.getTracer('payment-links-queues', '1.2.3', {
          schemaUrl: 'https://opentelemetry.io/schemas/1.30.0',
        }),
      },
    ]),
  );
  return exporter.getFinishedSpans();
}

const statement = `insert into "payment_links" (${Array.from({ length: 40 }, (_, i) => `"column_${i}"`).join(', ')}) values ($1)`;

describe('OTLP protobuf encoder: the same bytes as the SDK’s', () => {
  const expectSameBytes = (spans: tracing.ReadableSpan[]): void => {
    const ours = Buffer.from(encodeExportRequest(spans));
    const sdks = Buffer.from(ProtobufTraceSerializer.serializeRequest(spans) ?? new Uint8Array());
    expect(ours.length, 'length').to.equal(sdks.length);
    expect(ours.equals(sdks), 'bytes').to.equal(true);
  };

  it('no spans', () => {
    expectSameBytes([]);
  });

  it('spans of two resources and two scopes each, with every kind of attribute, events, links and statuses', () => {
    const spans = spansOf(
      (tracers) => {
        for (const { name, tracer } of tracers) {
          const root = tracer.startSpan(`POST ${name}`, {
            kind: SpanKind.SERVER,
            attributes: {
              'db.query.text': statement,
              'buyer.city': 'São Paulo – ação 🚀',
              'broken.surrogate': 'x\ud800y',
              empty: '',
              'server.port': 5432,
              negative: -7,
              'large.int': 2 ** 40 + 3,
              'max.safe': Number.MAX_SAFE_INTEGER,
              ratio: 0.25,
              'not.finite': Number.POSITIVE_INFINITY,
              yes: true,
              no: false,
              names: ['link-expiry', 'simulate', null, undefined, 'ação'],
              numbers: [1, -2, 3.5],
              flags: [true, false],
            },
          });
          root.addEvent('exception', { 'exception.message': 'boom', 'exception.type': 'Error' });
          root.addEvent('bare');
          root.recordException(new Error('kaput'));
          root.setStatus({ code: SpanStatusCode.ERROR, message: 'failed: não' });
          const parent = trace.setSpan(ROOT_CONTEXT, root);
          const child = tracer.startSpan('select', { kind: SpanKind.CLIENT }, parent);
          child.setStatus({ code: SpanStatusCode.OK });
          child.end();
          const remote = trace.setSpanContext(ROOT_CONTEXT, {
            traceId: '0af7651916cd43dd8448eb211c80319c',
            spanId: 'b7ad6b7169203331',
            traceFlags: TraceFlags.SAMPLED,
            isRemote: true,
            traceState: new core.TraceState('vendor=abc,other=x'),
          });
          const consumer = tracer.startSpan(
            'process link-expiry',
            {
              kind: SpanKind.CONSUMER,
              links: [
                {
                  context: {
                    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
                    spanId: '00f067aa0ba902b7',
                    traceFlags: TraceFlags.NONE,
                    isRemote: true,
                    traceState: new core.TraceState('k=v'),
                  },
                  attributes: { 'link.reason': 'batch' },
                },
                { context: root.spanContext() },
              ],
            },
            remote,
          );
          consumer.end();
          tracer.startSpan('produce', { kind: SpanKind.PRODUCER }, parent).end();
          tracer.startSpan('internal', { kind: SpanKind.INTERNAL }).end();
          root.end();
        }
      },
      ['payment-links-web', 'payment-links-worker'],
    );
    expect(spans).to.have.length(20);
    expectSameBytes(spans);
  });

  it('lengths that take two, three and four bytes', () => {
    const spans = spansOf(
      ([first]) => {
        for (const size of [127, 128, 16_383, 16_384, 2_097_152])
          first?.tracer.startSpan(`${size}`, { attributes: { text: 'x'.repeat(size) } }).end();
      },
      ['payment-links-web'],
    );
    expectSameBytes(spans);
  });

  it('a batch as the exporter sends one: 512 spans', () => {
    const spans = spansOf(
      ([first]) => {
        for (let i = 0; i < 512; i++)
          first?.tracer
            .startSpan('pg.query:INSERT', {
              kind: SpanKind.CLIENT,
              attributes: { 'db.query.text': statement, i },
            })
            .end();
      },
      ['payment-links-web'],
    );
    expectSameBytes(spans);
  });
});

describe('OTLP protobuf encoder: used for the default exporter only', () => {
  const cases: Array<[Record<string, string>, boolean]> = [
    [{}, true],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, true],
    [{ OTEL_TRACES_EXPORTER: ' otlp ', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' }, true],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: '' }, true],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, false],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, false],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }, false],
    [{ OTEL_TRACES_EXPORTER: 'console' }, false],
    [{ OTEL_TRACES_EXPORTER: 'otlp,console' }, false],
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, false],
  ];
  for (const [env, expected] of cases)
    it(`${JSON.stringify(env)}: ${expected ? 'ours' : "the SDK's"}`, () => {
      expect(exportsDefaultOtlp(env)).to.equal(expected);
    });
});
