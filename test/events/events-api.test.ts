import { expect } from 'chai';
import { eq, sql } from 'drizzle-orm';
import type { SeedResult } from '../../src/cli/seed.js';
import { recordEvent } from '../../src/events/outbox.js';
import { schema } from '../../src/shared/db/index.js';
import { seed } from '../helpers/app.js';
import {
  createIntegration,
  emit,
  engineAndReceiver,
  eventually,
  sampleEventData,
  type Engine,
} from './helpers.js';

interface EventBody {
  id: string;
  type: string;
  created_at: string;
  livemode: boolean;
  data: Record<string, unknown>;
}
interface EventList {
  object: 'list';
  data: EventBody[];
  has_more: boolean;
}

/** Every event of a listing, page by page (`starting_after` the last id), as a client walks it. */
async function walk(engine: Engine, key: string, query: string, limit = 7): Promise<EventBody[]> {
  const seen: EventBody[] = [];
  let after: string | undefined;
  for (;;) {
    const params = new URLSearchParams(query);
    params.set('limit', String(limit));
    if (after) params.set('starting_after', after);
    const res = await engine.app.http.get<EventList>(`/v1/events?${params.toString()}`, { auth: key });
    expect(res.status, res.text).to.equal(200);
    seen.push(...res.body.data);
    if (!res.body.has_more) return seen;
    after = res.body.data.at(-1)?.id;
  }
}

/** Records an event directly in the outbox, at once, without relaying it (no integration needed). */
async function record(
  engine: Engine,
  tenant: SeedResult,
  type: 'order.paid' | 'order.refunded' | 'lead.created',
  livemode = false,
) {
  const productId = tenant.products[0]?.id ?? null;
  // An event's created_at has millisecond precision and the list breaks ties by id, not by write
  // order: events recorded in one millisecond may list either way. The tests that expect recording
  // order record each in a millisecond of its own.
  const previous = Date.now();
  while (Date.now() === previous) await new Promise<void>((resolve) => setImmediate(resolve));
  return engine.app.ctx.db.transaction(
    async (tx) =>
      (
        await recordEvent(tx, {
          companyId: tenant.company.id,
          type,
          livemode,
          test: false,
          productId,
          data: sampleEventData(type, productId),
        })
      ).id,
  );
}

describe('events API (GET /v1/events)', function () {
  const { engine, receiver } = engineAndReceiver({ BREAKER_THRESHOLD: '1000' });

  it('lists the events of the key’s company and mode, newest first, each the body its webhook carried', async () => {
    const tenant = await seed();
    const other = await seed();
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      events: ['order.paid', 'order.refunded'],
      sendToAllProducts: true,
    });
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1)
      ids.push(await emit(engine.app, { companyId: tenant.company.id, type: 'order.paid', productId: null }));
    await emit(engine.app, { companyId: other.company.id, type: 'order.paid', productId: null });
    const live = await record(engine, tenant, 'order.paid', true);
    const received = await receiver.waitFor(3);

    const res = await engine.app.http.get<EventList>('/v1/events', { auth: tenant.keys.test });
    expect(res.status).to.equal(200);
    expect(res.body.data.map((e) => e.id)).to.deep.equal([...ids].reverse());
    for (const item of res.body.data) {
      const delivered = received.find((r) => r.headers['webhook-id'] === item.id);
      // Byte for byte: the item's JSON is the webhook's body.
      expect(JSON.stringify(item)).to.equal(delivered?.body);
      expect(res.text).to.include(delivered?.body);
    }
    const one = await engine.app.http.get(`/v1/events/${ids[0]}`, { auth: tenant.keys.test });
    expect(one.status).to.equal(200);
    expect(one.text).to.equal(received.find((r) => r.headers['webhook-id'] === ids[0])?.body);

    const liveList = await engine.app.http.get<EventList>('/v1/events', { auth: tenant.keys.live });
    expect(liveList.body.data.map((e) => e.id)).to.deep.equal([live]);
    // Another mode's and another company's events do not exist for this key.
    expect((await engine.app.http.get(`/v1/events/${live}`, { auth: tenant.keys.test })).status).to.equal(
      404,
    );
    expect((await engine.app.http.get(`/v1/events/${ids[0]}`, { auth: other.keys.test })).status).to.equal(
      404,
    );
    expect((await engine.app.http.get('/v1/events/evt_nope', { auth: tenant.keys.test })).status).to.equal(
      404,
    );
  });

  it('lets a read-only key read events (its own mode) but nothing else of the payments API', async () => {
    const tenant = await seed();
    const live = await record(engine, tenant, 'lead.created', true);
    const list = await engine.app.http.get<EventList>('/v1/events', { auth: tenant.keys.read_only });
    expect(list.status).to.equal(200);
    expect(list.body.data.map((e) => e.id)).to.deep.equal([live]);
    const one = await engine.app.http.get(`/v1/events/${live}`, { auth: tenant.keys.read_only });
    expect(one.status).to.equal(200);
    const links = await engine.app.http.get('/v1/payment-links', { auth: tenant.keys.read_only });
    expect(links.status).to.equal(403);
    const posted = await engine.app.http.post('/v1/events', {
      auth: tenant.keys.read_only,
      body: {},
      unvalidated: true,
    });
    expect(posted.status).to.equal(403);
  });

  it('filters by kind (repeated or comma-separated) and time window, and refuses what it cannot read', async () => {
    const tenant = await seed();
    const paid = await record(engine, tenant, 'order.paid');
    const refunded = await record(engine, tenant, 'order.refunded');
    const lead = await record(engine, tenant, 'lead.created');
    const key = tenant.keys.test;
    const ids = async (query: string) =>
      (await engine.app.http.get<EventList>(`/v1/events?${query}`, { auth: key })).body.data.map((e) => e.id);
    expect(await ids('type=order.paid')).to.deep.equal([paid]);
    expect(await ids('type=order.paid,lead.created')).to.deep.equal([lead, paid]);
    expect(await ids('type=order.paid&type=order.refunded')).to.deep.equal([refunded, paid]);

    const [row] = await engine.app.ctx.db
      .select({ createdAt: schema.events.createdAt })
      .from(schema.events)
      .where(eq(schema.events.id, refunded));
    const at = row?.createdAt.toISOString() ?? '';
    expect(await ids(`created_gte=${at}`)).to.deep.equal([lead, refunded]);
    expect(await ids(`created_lte=${at}`)).to.deep.equal([refunded, paid]);
    expect(await ids(`created_gte=${at}&created_lte=${at}`)).to.deep.equal([refunded]);

    const unknown = await engine.app.http.get<{ error: { fields: Record<string, string[]> } }>(
      '/v1/events?type=order.paid,order.nope',
      { auth: key },
    );
    expect(unknown.status).to.equal(400);
    expect(unknown.body.error.fields).to.have.property('type');
    const foreign = await engine.app.http.get<{ error: { fields: Record<string, string[]> } }>(
      `/v1/events?starting_after=${await record(engine, await seed(), 'order.paid')}`,
      { auth: key },
    );
    expect(foreign.status).to.equal(400);
    expect(foreign.body.error.fields).to.have.property('starting_after');
    // An empty window is an empty page, not an error.
    expect(await ids(`created_gte=2030-01-01T00:00:00Z&created_lte=2020-01-01T00:00:00Z`)).to.deep.equal([]);
  });

  it('walks every event once while events are being written', async () => {
    const tenant = await seed();
    const before: string[] = [];
    for (let i = 0; i < 40; i += 1) before.push(await record(engine, tenant, 'order.paid'));
    let writing = true;
    const during: string[] = [];
    const writer = (async () => {
      while (writing) during.push(await record(engine, tenant, 'order.paid'));
    })();
    const seen = await walk(engine, tenant.keys.test, '', 3);
    writing = false;
    await writer;
    const ids = seen.map((e) => e.id);
    expect(new Set(ids).size, 'no event twice').to.equal(ids.length);
    expect(ids).to.include.members(before);
    expect(during.length, 'events were written during the walk').to.be.greaterThan(0);
    // Everything seen is the tenant's: the events that existed, and perhaps some written meanwhile.
    expect([...before, ...during]).to.include.members(ids);
    // Newest first, strictly.
    const times = seen.map((e) => Date.parse(e.created_at));
    for (let i = 1; i < times.length; i += 1) expect(times[i]).to.be.at.most(times[i - 1] ?? Infinity);
  });

  it('lets a receiver that was down longer than the retry schedule catch up with exactly what it missed', async () => {
    const tenant = await seed();
    const integrationId = await createIntegration(engine.app, tenant, {
      url: receiver.url,
      events: ['order.paid', 'lead.created'],
      sendToAllProducts: true,
    });
    const received = receiver.requests.length;
    const emitOne = (type: 'order.paid' | 'lead.created') =>
      emit(engine.app, { companyId: tenant.company.id, type, productId: null });
    const deliveredBefore = [await emitOne('order.paid'), await emitOne('lead.created')];
    await receiver.waitFor(received + 2);

    // Down: every attempt of the schedule (3 retries of 0.2 s) answers 503.
    receiver.reply = () => ({ status: 503, body: 'down' });
    const missed: string[] = [];
    for (let i = 0; i < 9; i += 1) missed.push(await emitOne(i % 3 === 0 ? 'lead.created' : 'order.paid'));
    await eventually(
      async () => {
        const result = await engine.app.ctx.db.execute<{ failed: number }>(sql`
          SELECT count(*)::int AS failed FROM deliveries
           WHERE integration_id = ${integrationId} AND status = 'failed'`);
        return result.rows[0]?.failed === missed.length ? true : undefined;
      },
      30_000,
      'every delivery failed for good',
    );
    // Back up; an event meanwhile is delivered as usual and is not part of the catch-up.
    receiver.reply = () => ({ status: 200, body: 'ok' });
    const after = await emitOne('order.paid');
    await eventually(
      async () => (receiver.requests.some((r) => r.headers['webhook-id'] === after) ? true : undefined),
      10_000,
      'the event after the outage delivered',
    );

    const caughtUp = await walk(
      engine,
      tenant.keys.test,
      `integration_id=${integrationId}&delivery_status=failed`,
      4,
    );
    expect(caughtUp.map((e) => e.id).sort()).to.deep.equal([...missed].sort());
    for (const id of [...deliveredBefore, after]) expect(caughtUp.map((e) => e.id)).not.to.include(id);
    const delivered = await walk(
      engine,
      tenant.keys.test,
      `integration_id=${integrationId}&delivery_status=delivered`,
    );
    expect(delivered.map((e) => e.id).sort()).to.deep.equal([...deliveredBefore, after].sort());
    // What the receiver would have been sent: each caught-up body is the one it refused (signed the same way).
    for (const event of caughtUp) {
      const refused = receiver.requests.find((r) => r.headers['webhook-id'] === event.id);
      expect(JSON.stringify(event)).to.equal(refused?.body);
    }
    // Another company's integration is not a filter this key may use.
    const other = await seed();
    const foreign = await engine.app.http.get<{ error: { fields: Record<string, string[]> } }>(
      `/v1/events?integration_id=${integrationId}`,
      { auth: other.keys.test },
    );
    expect(foreign.status).to.equal(400);
    expect(foreign.body.error.fields).to.have.property('integration_id');
  });

  it('is in the payments OpenAPI document: both operations, items of the event union, every filter', async () => {
    const res = await engine.app.http.get<{
      paths: Record<string, Record<string, { parameters?: Array<{ name: string }>; security?: unknown }>>;
      components: { schemas: Record<string, { oneOf?: unknown[] }> };
    }>('/v1/openapi.json');
    const list = res.body.paths['/v1/events']?.get;
    const one = res.body.paths['/v1/events/{id}']?.get;
    expect(list, 'GET /v1/events').to.not.equal(undefined);
    expect(one, 'GET /v1/events/{id}').to.not.equal(undefined);
    expect((list?.parameters ?? []).map((p) => p.name)).to.include.members([
      'type',
      'created_gte',
      'created_lte',
      'integration_id',
      'delivery_status',
      'limit',
      'starting_after',
    ]);
    expect(res.body.components.schemas.Event?.oneOf).to.have.length.greaterThan(10);
  });
});
