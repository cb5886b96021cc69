import { expect } from 'chai';
import { eq, inArray, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { expireDueLink } from '../../src/payment-links/expiry.js';
import { jobIds } from '../../queues/index.js';
import { recordEvent } from '../../src/events/outbox.js';
import { publishAfterCommit } from '../../src/events/publish.js';
import { schema } from '../../src/shared/db/index.js';
import { seed } from '../helpers/app.js';
import {
  createIntegration,
  createLink,
  emit,
  engineAndReceiver,
  eventually,
  integration,
  Receiver,
  sampleEventData,
  startEngine,
  type Engine,
} from './helpers.js';
import { NO_CAMPAIGN } from '../tracking/helpers.js';

const SECRET = `whsec_${Buffer.from('a-very-secret-key-of-32-bytes!!').toString('base64')}`;

async function deliveriesOf(engine: Engine, eventId: string) {
  return engine.app.ctx.db.select().from(schema.deliveries).where(eq(schema.deliveries.eventId, eventId));
}

describe('webhook delivery', function () {
  let engine: Engine;
  let receiver: Receiver;

  before(async () => {
    engine = await startEngine({ BREAKER_THRESHOLD: '5' });
  });
  after(async () => {
    await engine.close();
  });
  beforeEach(async () => {
    receiver = await new Receiver().start();
  });
  afterEach(async () => {
    await receiver.close();
  });

  it('delivers an expired link as order.expired, signed so a Standard Webhooks receiver verifies it', async () => {
    const tenant = await seed();
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      secret: SECRET,
      events: ['order.expired'],
      sendToAllProducts: true,
    });
    const link = await createLink(engine.app.ctx.db, tenant, {
      expiresAt: new Date(Date.now() - 10),
      externalReference: 'crm-7',
    });
    // Already due: the worker's expiry tick, or this call if it comes first, expires it once.
    const expiredHere = await expireDueLink(engine.app.ctx.db, link.id);
    if (expiredHere) publishAfterCommit(engine.app.ctx, [expiredHere]);
    const [request] = await receiver.waitFor(1);
    if (!request) throw new Error('no request');
    const [event] = await engine.app.ctx.db
      .select()
      .from(schema.events)
      .where(eq(schema.events.id, String(request.headers['webhook-id'])));
    const eventId = event?.id;
    expect(eventId).to.be.a('string');
    expect(event).to.include({ type: 'order.expired', companyId: tenant.company.id });
    const verified = new Webhook(SECRET).verify(
      request.body,
      request.headers as Record<string, string>,
    ) as Record<string, unknown>;
    expect(request.headers['webhook-id']).to.equal(eventId);
    expect(verified).to.include({
      id: eventId,
      type: 'order.expired',
      livemode: false,
      test: false,
      sandbox: false,
    });
    expect(verified.created_at).to.be.a('string');
    const data = verified.data as Record<string, Record<string, unknown>>;
    expect(data.order).to.equal(null);
    expect(data.purchase).to.deep.equal({
      tracking: { external_reference: 'crm-7', ...NO_CAMPAIGN },
      payment_link: { code: link.id, external_reference: 'crm-7', metadata: { campaign: 'spring' } },
    });
    expect(data.product).to.include({ id: link.productId });
    expect(data.offer).to.include({ code: link.offerCode });
  });

  it('signs with the UTF-8 bytes of a secret that is not whsec_', async () => {
    const tenant = await seed();
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      secret: 'plain-sécret',
      events: ['lead.created'],
    });
    const eventId = await emit(engine.app, {
      companyId: tenant.company.id,
      type: 'lead.created',
      productId: null,
    });
    const [request] = await receiver.waitFor(1);
    if (!request) throw new Error('no request');
    const receiverSide = new Webhook(new TextEncoder().encode('plain-sécret'), { format: 'raw' });
    expect(receiverSide.verify(request.body, request.headers as Record<string, string>)).to.include({
      id: eventId,
    });
  });

  it('records every attempt and retries on the schedule with the same webhook-id until success', async () => {
    const tenant = await seed();
    receiver.reply = (_req, i) => (i < 2 ? { status: 500, body: 'boom' } : { status: 204 });
    const integrationId = await createIntegration(engine.app, tenant, {
      url: receiver.url,
      secret: SECRET,
      events: ['lead.created'],
    });
    const eventId = await emit(engine.app, {
      companyId: tenant.company.id,
      type: 'lead.created',
      productId: null,
    });
    const requests = await receiver.waitFor(3);
    expect(new Set(requests.map((r) => r.headers['webhook-id']))).to.deep.equal(new Set([eventId]));
    for (const r of requests)
      expect(() => new Webhook(SECRET).verify(r.body, r.headers as Record<string, string>)).not.to.throw();
    const [delivery] = await eventually(async () => {
      const rows = await deliveriesOf(engine, eventId);
      return rows[0]?.status === 'succeeded' ? rows : undefined;
    });
    expect(delivery).to.include({ attempts: 3, lastStatusCode: 204, integrationId });
    const attempts = await engine.app.ctx.db
      .select()
      .from(schema.deliveryAttempts)
      .where(eq(schema.deliveryAttempts.deliveryId, delivery?.id ?? 0))
      .orderBy(schema.deliveryAttempts.attempt);
    expect(attempts.map((a) => [a.attempt, a.statusCode, a.eventId])).to.deep.equal([
      [1, 500, eventId],
      [2, 500, eventId],
      [3, 204, eventId],
    ]);
    expect(attempts[0]?.responseBody).to.equal('boom');
    expect((await integration(engine.app.ctx.db, integrationId)).failureCount).to.equal(0);
  });

  it('puts the events published in one turn in one relay job, and delivers each once, numbered in commit order', async () => {
    const tenant = await seed();
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      secret: SECRET,
      events: ['lead.created'],
    });
    const eventIds: string[] = [];
    for (let i = 0; i < 30; i++) {
      const { id } = await recordEvent(engine.app.ctx.db, {
        companyId: tenant.company.id,
        type: 'lead.created',
        livemode: false,
        test: false,
        productId: null,
        data: sampleEventData('lead.created', null, `buyer ${i}`),
      });
      eventIds.push(id);
    }
    // As a web process whose requests commit in the same turn: one publish call each.
    for (const id of eventIds) publishAfterCommit(engine.app.ctx, [id]);
    const requests = await receiver.waitFor(30);
    const arrived = requests.map((r) => String(r.headers['webhook-id']));
    expect(arrived).to.have.members(eventIds);
    // Numbered in commit order (several are in flight at once, so they may arrive in another one).
    const numbered = await engine.app.ctx.db
      .select({ eventId: schema.deliveries.eventId })
      .from(schema.deliveries)
      .where(inArray(schema.deliveries.eventId, eventIds))
      .orderBy(schema.deliveries.id);
    expect(numbered.map((d) => d.eventId)).to.deep.equal(eventIds);
    const job = await engine.app.ctx.producers.queue('outbox').getJob(jobIds.outbox(eventIds[0] ?? ''));
    expect(job?.data).to.deep.equal({ eventId: eventIds[0], eventIds: eventIds.slice(1) });
  });

  it('stops retrying after 410 Gone', async () => {
    const tenant = await seed();
    receiver.reply = () => ({ status: 410 });
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      secret: SECRET,
      events: ['lead.created'],
    });
    const eventId = await emit(engine.app, {
      companyId: tenant.company.id,
      type: 'lead.created',
      productId: null,
    });
    const [delivery] = await eventually(async () => {
      const rows = await deliveriesOf(engine, eventId);
      return rows[0]?.status === 'failed' ? rows : undefined;
    });
    expect(delivery).to.include({ attempts: 1, lastStatusCode: 410 });
    expect(receiver.requests).to.have.length(1);
  });

  it('records a response whose body holds U+0000 (stored with a replacement character) and ends on 410', async () => {
    const tenant = await seed();
    receiver.reply = () => ({ status: 410, body: 'gone\u0000away' });
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      secret: SECRET,
      events: ['lead.created'],
    });
    const eventId = await emit(engine.app, {
      companyId: tenant.company.id,
      type: 'lead.created',
      productId: null,
    });
    const [delivery] = await eventually(async () => {
      const rows = await deliveriesOf(engine, eventId);
      return rows[0]?.status === 'failed' ? rows : undefined;
    });
    expect(delivery).to.include({ attempts: 1, lastStatusCode: 410 });
    const attempts = await engine.app.ctx.db
      .select({ body: schema.deliveryAttempts.responseBody })
      .from(schema.deliveryAttempts)
      .where(eq(schema.deliveryAttempts.eventId, eventId));
    expect(attempts.map((a) => a.body)).to.deep.equal(['gone\uFFFDaway']);
    expect(receiver.requests).to.have.length(1);
  });

  it('gives up after the last scheduled retry and marks the delivery failed', async () => {
    const tenant = await seed();
    receiver.reply = () => ({ status: 503 });
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      secret: SECRET,
      events: ['lead.created'],
    });
    const eventId = await emit(engine.app, {
      companyId: tenant.company.id,
      type: 'lead.created',
      productId: null,
    });
    const [delivery] = await eventually(async () => {
      const rows = await deliveriesOf(engine, eventId);
      return rows[0]?.status === 'failed' ? rows : undefined;
    });
    expect(delivery?.attempts).to.equal(4);
    expect(receiver.requests).to.have.length(4);
  });

  it('opens the circuit breaker at the threshold and records later deliveries as skipped', async () => {
    const tenant = await seed();
    receiver.reply = () => ({ status: 500 });
    const integrationId = await createIntegration(engine.app, tenant, {
      url: receiver.url,
      secret: SECRET,
      events: ['lead.created'],
    });
    const first = await emit(engine.app, {
      companyId: tenant.company.id,
      type: 'lead.created',
      productId: null,
    });
    await eventually(async () =>
      (await deliveriesOf(engine, first))[0]?.status === 'failed' ? true : undefined,
    );
    expect((await integration(engine.app.ctx.db, integrationId)).isActive).to.equal(true);
    const second = await emit(engine.app, {
      companyId: tenant.company.id,
      type: 'lead.created',
      productId: null,
    });
    const disabled = await eventually(async () => {
      const row = await integration(engine.app.ctx.db, integrationId);
      return row.isActive ? undefined : row;
    });
    expect(disabled).to.include({ isActive: false, disabledReason: 'auto_disabled', failureCount: 5 });
    expect(disabled.lastFailureAt).to.be.instanceOf(Date);
    const [delivery] = await eventually(async () => {
      const rows = await deliveriesOf(engine, second);
      return rows[0]?.status === 'skipped' ? rows : undefined;
    });
    expect(delivery?.attempts).to.equal(1);
    expect(receiver.requests).to.have.length(5);

    // PATCH is_active true re-enables it: the count and the reason are cleared, events flow again.
    const patched = await engine.app.http.patch<Record<string, unknown>>(
      `/panel/v1/integrations/${integrationId}`,
      {
        auth: tenant.panel_token,
        body: { is_active: true },
      },
    );
    expect(patched.status).to.equal(200);
    expect(patched.body).to.include({ is_active: true, disabled_reason: '', failure_count: 0 });
    receiver.reply = () => ({ status: 200 });
    const third = await emit(engine.app, {
      companyId: tenant.company.id,
      type: 'lead.created',
      productId: null,
    });
    await eventually(async () =>
      (await deliveriesOf(engine, third))[0]?.status === 'succeeded' ? true : undefined,
    );
  });

  it('counts every one of many concurrent failures to one integration', async () => {
    const tenant = await seed();
    // 410 fails each delivery once and for all, so exactly one failed attempt per event.
    receiver.reply = () => ({ status: 410 });
    const integrationId = await createIntegration(engine.app, tenant, {
      url: receiver.url,
      secret: SECRET,
      events: ['lead.created'],
    });
    // Far below the threshold, so the breaker does not stop the attempts being counted.
    await engine.app.ctx.db.execute(
      sql`UPDATE integrations SET failure_count = -1000 WHERE id = ${integrationId}`,
    );
    const events = await Promise.all(
      Array.from({ length: 12 }, () =>
        emit(engine.app, { companyId: tenant.company.id, type: 'lead.created', productId: null }),
      ),
    );
    for (const eventId of events) {
      await eventually(async () =>
        (await deliveriesOf(engine, eventId))[0]?.status === 'failed' ? true : undefined,
      );
    }
    expect(receiver.requests).to.have.length(12);
    expect((await integration(engine.app.ctx.db, integrationId)).failureCount).to.equal(-1000 + 12);
  });

  it('treats a redirect as a failure without following it, and keeps at most the configured response size', async () => {
    const tenant = await seed();
    const big = 'x'.repeat(engine.app.ctx.config.webhooks.responseBodyMaxBytes + 5000);
    receiver.reply = (_req, i) =>
      i === 0
        ? { status: 302, headers: { location: `${receiver.url}/elsewhere` } }
        : { status: 200, body: big };
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      secret: SECRET,
      events: ['lead.created'],
    });
    const eventId = await emit(engine.app, {
      companyId: tenant.company.id,
      type: 'lead.created',
      productId: null,
    });
    const [delivery] = await eventually(async () => {
      const rows = await deliveriesOf(engine, eventId);
      return rows[0]?.status === 'succeeded' ? rows : undefined;
    });
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).to.deep.equal([eventId, eventId]);
    const attempts = await engine.app.ctx.db
      .select()
      .from(schema.deliveryAttempts)
      .where(eq(schema.deliveryAttempts.deliveryId, delivery?.id ?? 0))
      .orderBy(schema.deliveryAttempts.attempt);
    expect(attempts[0]).to.include({ statusCode: 302, error: 'HTTP 302' });
    expect(attempts[1]?.responseBody).to.have.length(engine.app.ctx.config.webhooks.responseBodyMaxBytes);
  });

  it('waits for a Retry-After longer than the scheduled delay', async () => {
    const tenant = await seed();
    receiver.reply = (_req, i) =>
      i === 0 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 };
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      secret: SECRET,
      events: ['lead.created'],
    });
    await emit(engine.app, { companyId: tenant.company.id, type: 'lead.created', productId: null });
    const [first, second] = await receiver.waitFor(2);
    // Scheduled 0.2 s, asked 1 s, honoured up to 0.4 s (twice the schedule).
    expect((second?.at ?? 0) - (first?.at ?? 0)).to.be.within(350, 3000);
  });
});

describe('webhook delivery to private targets', function () {
  const { engine, receiver } = engineAndReceiver({
    ALLOW_PRIVATE_WEBHOOK_TARGETS: 'false',
    WEBHOOK_RETRY_SCHEDULE: '0.1',
  });

  it('refuses at delivery time a target that resolves to a private address, and records why', async () => {
    const tenant = await seed();
    // Saved while private targets were allowed (or re-pointed since): the delivery checks again.
    const [row] = await engine.app.ctx.db
      .insert(schema.integrations)
      .values({
        companyId: tenant.company.id,
        type: 'webhook',
        config: {
          url: receiver.url.replace('http:', 'https:').replace('127.0.0.1', 'localhost'),
          secret: SECRET,
        },
        receives: 'all',
        events: ['lead.created'],
      })
      .returning();
    const eventId = await emit(engine.app, {
      companyId: tenant.company.id,
      type: 'lead.created',
      productId: null,
    });
    const [delivery] = await eventually(async () => {
      const rows = await deliveriesOf(engine, eventId);
      return rows[0]?.status === 'failed' ? rows : undefined;
    });
    expect(delivery?.integrationId).to.equal(row?.id);
    expect(delivery?.lastError).to.match(/private address/);
    expect(receiver.requests).to.have.length(0);
  });
});
