import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { eq, sql } from 'drizzle-orm';
import { recordEvent } from '../../src/events/outbox.js';
import { schema } from '../../src/shared/db/index.js';
import { eventually, Receiver, sampleEventData } from '../events/helpers.js';
import { sharedApp } from '../helpers/app.js';
import { HttpClient } from '../helpers/http.js';
import { OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { startDeployment, type Deployment } from '../helpers/processes.js';

const SPAN_KIND = { server: 2, client: 3, producer: 4, consumer: 5 } as const;

const newTraceId = (): string => randomBytes(16).toString('hex');
const traceIdOf = (traceparent: unknown): string => String(traceparent).split('-')[1] ?? '';

/**
 * OpenTelemetry on, as an operator turns it on (OTEL_EXPORTER_OTLP_ENDPOINT), with a web and a worker
 * process exporting to a local OTLP receiver: one trace goes from the API request to the webhook POST.
 */
describe('tracing: one trace from the API request to the webhook POST', function () {
  this.timeout(120_000);
  let otlp: OtlpReceiver;
  let deployment: Deployment;
  let web: HttpClient;
  let receiver: Receiver;

  before(async () => {
    const local = await sharedApp();
    otlp = await new OtlpReceiver().start();
    receiver = await new Receiver().start();
    deployment = await startDeployment({
      webs: 1,
      workers: 1,
      env: {
        // The SDK's default exporter (OTLP/HTTP, protobuf) and the service's default sampler (one
        // in ten, parent-based: the caller's sampled traceparent below decides).
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        // Export within a fifth of a second, not the default five.
        OTEL_BSP_SCHEDULE_DELAY: '200',
        OUTBOX_SWEEP_MS: '300',
      },
    });
    web = new HttpClient(deployment.webs[0] ?? '', local.ctx.config);
  });
  after(async () => {
    await deployment?.stop();
    await Promise.all([otlp?.close(), receiver?.close()]);
  });

  it('a simulate carrying a traceparent: its webhook POST and the spans of web and worker share its trace id', async () => {
    const tenant = await deployment.seed();
    const integration = await web.post<{ id: number }>('/panel/v1/integrations/', {
      auth: tenant.panel_token,
      body: {
        type: 'webhook',
        config: { url: receiver.url },
        events: ['order.paid'],
        send_to_all_products: true,
      },
    });
    expect(integration.status, integration.text).to.equal(201);
    const offer = tenant.offers.find((o) => o.status === 'active');
    const link = await web.post<{ id: string }>('/v1/payment-links', {
      auth: tenant.keys.test,
      body: { offer_code: offer?.code, external_reference: 'traced' },
    });
    expect(link.status, link.text).to.equal(201);

    const traceId = newTraceId();
    const simulated = await web.post<{ simulation: { webhooks: Array<{ success: boolean }> } }>(
      `/v1/payment-links/${link.body.id}/simulate`,
      {
        auth: tenant.keys.test,
        headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
        body: { outcome: 'paid' },
      },
    );
    expect(simulated.status, simulated.text).to.equal(200);
    expect(simulated.body.simulation.webhooks).to.have.length(1);

    // The receiver got the POST with a traceparent of the caller's trace.
    const [post] = await receiver.waitFor(1);
    expect(traceIdOf(post?.headers.traceparent)).to.equal(traceId);

    // The event row keeps the context the relay continued.
    const [event] = await deployment.db
      .select({ traceContext: schema.events.traceContext })
      .from(schema.events)
      .where(eq(schema.events.companyId, tenant.company.id));
    expect(traceIdOf(event?.traceContext?.traceparent)).to.equal(traceId);

    // Both processes exported spans of that trace: HTTP in, PostgreSQL, Redis, the queue's producer
    // and consumer, and the webhook POST out.
    const spans = await eventually(async () => {
      const found = otlp.inTrace(traceId);
      const has = (service: string, test: (s: ReceivedSpan) => boolean): boolean =>
        found.some((s) => s.service === service && test(s));
      return has('payment-links-web', (s) => s.kind === SPAN_KIND.server) &&
        has('payment-links-web', (s) => s.kind === SPAN_KIND.producer) &&
        has('payment-links-worker', (s) => s.kind === SPAN_KIND.consumer) &&
        has(
          'payment-links-worker',
          (s) => s.kind === SPAN_KIND.client && String(s.attributes['url.full']).startsWith(receiver.url),
        )
        ? found
        : undefined;
    }, 15_000);
    const systems = new Set(spans.map((s) => s.attributes['db.system'] ?? s.attributes['db.system.name']));
    expect([...systems]).to.include.members(['postgresql', 'redis']);
    expect(otlp.exports).to.include({ json: 0 });
    expect(otlp.exports.protobuf).to.be.greaterThan(0);
    const statements = spans.map((s) => String(s.attributes['db.query.text'] ?? ''));
    expect(statements.some((text) => /^insert into "events" \(.+\) values/s.test(text))).to.equal(true);
    // Long statements are cut (OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT, 1024 unless set).
    expect(Math.max(...statements.map((text) => text.length))).to.be.at.most(1024);
    // A query's span is a child of the request's, named after its operation.
    const insert = spans.find((s) => statements[spans.indexOf(s)]?.startsWith('insert into "events"'));
    expect(insert?.name).to.match(/^pg\.query:INSERT \S+$/);
    expect(spans.map((s) => s.spanId)).to.include(insert?.parentSpanId);
    // The POST's span is the parent the receiver was told about.
    const postSpan = spans.find(
      (s) => s.kind === SPAN_KIND.client && String(s.attributes['url.full']).startsWith(receiver.url),
    );
    expect(String(post?.headers.traceparent).split('-')[2]).to.equal(postSpan?.spanId);

    // Log lines written inside the request carry its trace id.
    const webLog = await readFile(deployment.webProcesses[0]?.logFile ?? '', 'utf8');
    expect(webLog).to.include(`"trace_id":"${traceId}"`);
  });

  it('an event the outbox sweep relays (no job from the request) still continues the trace it was recorded in', async () => {
    const tenant = await deployment.seed();
    const before = receiver.requests.length;
    await web.post('/panel/v1/integrations/', {
      auth: tenant.panel_token,
      body: {
        type: 'webhook',
        config: { url: receiver.url },
        events: ['lead.created'],
        send_to_all_products: true,
      },
    });
    const traceId = newTraceId();
    // Recorded as a service records it, with a stored context, but never enqueued: only the sweep finds it.
    const eventId = await deployment.db.transaction(async (tx) => {
      const recorded = await recordEvent(tx, {
        companyId: tenant.company.id,
        type: 'lead.created',
        livemode: false,
        test: false,
        productId: null,
        data: sampleEventData('lead.created', null, 'swept'),
      });
      const carrier = { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` };
      await tx.execute(
        sql`UPDATE events SET trace_context = ${JSON.stringify(carrier)}::jsonb WHERE id = ${recorded.id}`,
      );
      return recorded.id;
    });
    const requests = await receiver.waitFor(before + 1, 15_000);
    const swept = requests.find((r) => r.headers['webhook-id'] === eventId);
    expect(traceIdOf(swept?.headers.traceparent)).to.equal(traceId);
    await eventually(async () =>
      otlp.inTrace(traceId).some((s) => s.service === 'payment-links-worker' && s.kind === SPAN_KIND.client)
        ? true
        : undefined,
    );
  });
});
