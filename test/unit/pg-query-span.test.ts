import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context } from '@opentelemetry/api';
import { tracing } from '@opentelemetry/sdk-node';
import { expect } from 'chai';
import pg from 'pg';
import { Carried, carried } from '../../src/shared/carried.js';
import { tracePgQuery, type AnyMethod } from '../../src/shared/tracing.js';
import { testEnvironment } from '../helpers/environment.js';

/**
 * The client span of a traced pg query (`tracePgQuery`), against a real PostgreSQL: what it says of
 * the query, that it ends when the query does (promise or callback) and records a failure, and which
 * calls it leaves to pg alone (outside any trace) or to the instrumentation (forms it does not cover).
 */
describe('tracePgQuery: one client span per traced pg query', () => {
  const exporter = new tracing.InMemorySpanExporter();
  const tracer = new tracing.BasicTracerProvider({
    spanProcessors: [new tracing.SimpleSpanProcessor(exporter)],
  }).getTracer('test');
  const original: AnyMethod = pg.Client.prototype.query as AnyMethod;
  let instrumentedCalls = 0;
  const instrumented: AnyMethod = function (this: unknown, ...args: unknown[]) {
    instrumentedCalls += 1;
    return Reflect.apply(original, this, args);
  };
  const query = tracePgQuery(tracer)(original, instrumented);
  let client: pg.Client;
  let database: string;

  before(async () => {
    client = new pg.Client({ connectionString: testEnvironment().databaseUrl });
    await client.connect();
    database = client.database ?? '';
  });
  after(() => client.end());
  beforeEach(() => {
    exporter.reset();
    instrumentedCalls = 0;
  });

  /** Runs `work` inside a sampled request's trace, as the service's context manager carries it. */
  function inTrace<T>(work: () => T): { result: T; parent: string; traceId: string } {
    const parentSpan = tracer.startSpan('request');
    const ctx: Context = trace.setSpan(ROOT_CONTEXT, parentSpan);
    const result = carried.run(new Carried('req_1', ctx), work);
    parentSpan.end();
    return { result, parent: parentSpan.spanContext().spanId, traceId: parentSpan.spanContext().traceId };
  }
  const querySpans = () => exporter.getFinishedSpans().filter((s) => s.name.startsWith('pg.query'));

  it('a query with a promise: a child span named after its operation, with the connection and the text', async () => {
    const { result, parent, traceId } = inTrace(() =>
      query.call(client, { text: '  select $1::int as n', values: [7] }),
    );
    const res = (await result) as pg.QueryResult<{ n: number }>;
    expect(res.rows).to.deep.equal([{ n: 7 }]);
    const [span] = querySpans();
    expect(span?.name).to.equal(`pg.query:SELECT ${database}`);
    expect(span?.kind).to.equal(SpanKind.CLIENT);
    expect(span?.parentSpanContext?.spanId).to.equal(parent);
    expect(span?.spanContext().traceId).to.equal(traceId);
    expect(span?.attributes).to.deep.equal({
      'db.system.name': 'postgresql',
      'db.namespace': database,
      'server.address': client.host,
      'server.port': client.port,
      'db.query.text': '  select $1::int as n',
    });
    expect(span?.status.code).to.equal(SpanStatusCode.UNSET);
    expect(instrumentedCalls).to.equal(0);
  });

  it('a query with a callback: the span has ended when the callback runs, which gets the result', async () => {
    const seen = await new Promise<{ rows: unknown[]; ended: number }>((resolve, reject) => {
      inTrace(() =>
        query.call(client, 'select 1 as one', [], (err: Error | null, res: pg.QueryResult) => {
          if (err) reject(err);
          else resolve({ rows: res.rows, ended: querySpans().length });
        }),
      );
    });
    expect(seen).to.deep.equal({ rows: [{ one: 1 }], ended: 1 });
    expect(querySpans()[0]?.name).to.equal(`pg.query:SELECT ${database}`);
  });

  it('a failed query: an error status, its SQLSTATE as error.type, an exception event; none quotes the message', async () => {
    const { result } = inTrace(() => query.call(client, 'select * from no_such_table_here'));
    const err: unknown = await (result as Promise<unknown>).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(Error);
    const [span] = querySpans();
    expect(span?.status).to.deep.equal({
      code: SpanStatusCode.ERROR,
      message: "PostgreSQL error of type 'error' occurred (code: 42P01)",
    });
    expect(span?.attributes['error.type']).to.equal('42P01');
    expect(span?.events.map((e) => e.attributes?.['exception.message'])).to.deep.equal([
      "PostgreSQL error of type 'error' occurred (code: 42P01)",
    ]);
  });

  it('a named statement: the span is named after the statement and says so in pg.plan', async () => {
    const { result } = inTrace(() => query.call(client, { name: 'one_plan', text: 'select 1', values: [] }));
    await result;
    const [span] = querySpans();
    expect(span?.name).to.equal(`pg.query:one_plan ${database}`);
    expect(span?.attributes['pg.plan']).to.equal('one_plan');
  });

  it('outside any trace: pg alone, no span', async () => {
    const res = (await query.call(client, 'select 2 as two')) as pg.QueryResult;
    expect(res.rows).to.deep.equal([{ two: 2 }]);
    expect(querySpans()).to.deep.equal([]);
    expect(instrumentedCalls).to.equal(0);
  });

  it('a form it does not cover (a config holding its own callback): left to the instrumentation', async () => {
    await new Promise<void>((resolve, reject) => {
      inTrace(() =>
        query.call(client, {
          text: 'select 3',
          callback: (err: Error | null) => (err ? reject(err) : resolve()),
        }),
      );
    });
    expect(instrumentedCalls).to.equal(1);
    expect(querySpans()).to.deep.equal([]);
  });
});
