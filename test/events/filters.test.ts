import { expect } from 'chai';
import { sql } from 'drizzle-orm';
import type { SeedResult } from '../../src/cli/seed.js';
import { seed } from '../helpers/app.js';
import { noteSecret } from '../helpers/secrets.js';
import { emit, engineAndReceiver, eventually, sampleEventData, unclaimedEvents } from './helpers.js';
import { NO_CAMPAIGN } from '../tracking/helpers.js';

const METRICS_TOKEN = 'metrics-token-for-filters-0123456';

type ErrorBody = { error: { type: string; message: string; fields?: Record<string, string[]> } };

/** An order.paid body paid with `method` through a link whose metadata channel is `channel`. */
function paidWith(
  method: string,
  channel: string | null,
  extra: { installments?: number | null; test?: boolean } = {},
): Record<string, unknown> {
  const data = sampleEventData('order.paid', null) as {
    order: Record<string, unknown>;
    purchase: Record<string, unknown>;
  };
  data.order.payment_method = method;
  if (extra.installments !== undefined) data.order.installments = extra.installments;
  if (channel !== null) {
    data.purchase = {
      tracking: { external_reference: 'crm-1', ...NO_CAMPAIGN },
      payment_link: {
        code: 'plink_000000000000000000000000',
        external_reference: 'crm-1',
        metadata: { channel },
      },
    };
  }
  return data;
}

describe('webhook filters', function () {
  const { engine, receiver } = engineAndReceiver({ METRICS_TOKEN, BREAKER_THRESHOLD: '1000' });
  before(() => noteSecret(METRICS_TOKEN));

  const create = (tenant: SeedResult, body: Record<string, unknown>) =>
    engine.app.http.post<ErrorBody & { id: number; filter: Record<string, unknown> }>(
      '/panel/v1/integrations/',
      {
        auth: tenant.panel_token,
        body: {
          type: 'webhook',
          config: { url: receiver.url },
          events: ['order.paid', 'lead.created'],
          send_to_all_products: true,
          ...body,
        },
      },
    );

  /** Emits each body as an order.paid and returns which event ids got a delivery row to `integrationId`. */
  async function deliveredOf(tenant: SeedResult, integrationId: number, bodies: Record<string, unknown>[]) {
    const ids: string[] = [];
    for (const data of bodies)
      ids.push(
        await emit(engine.app, { companyId: tenant.company.id, type: 'order.paid', productId: null, data }),
      );
    // Every event relayed (claimed), so the absent deliveries are decisions, not a lag.
    await eventually(
      async () => (await unclaimedEvents(engine.app.ctx.db, { eventIds: ids })) === 0,
      10_000,
      'the events relayed',
    );
    const rows = await engine.app.ctx.db.execute<{ event_id: string }>(sql`
      SELECT event_id FROM deliveries WHERE integration_id = ${integrationId} AND event_id = ANY(${sql.param(ids)}::text[])`);
    const delivered = new Set(rows.rows.map((r) => r.event_id));
    return ids.map((id) => delivered.has(id));
  }

  it('delivers on a string, a number, a boolean, a list (any of) and several entries (all must match)', async () => {
    const tenant = await seed();
    const cases: Array<{
      filter: Record<string, unknown>;
      bodies: Record<string, unknown>[];
      want: boolean[];
    }> = [
      // String equality.
      {
        filter: { 'data.order.payment_method': 'pix' },
        bodies: [paidWith('pix', null), paidWith('credit_card', null)],
        want: [true, false],
      },
      // A list: any of its values.
      {
        filter: { 'data.order.payment_method': ['pix', 'boleto'] },
        bodies: [paidWith('pix', null), paidWith('boleto', null), paidWith('credit_card', null)],
        want: [true, true, false],
      },
      // A number is a number: 3 matches 3, never "3".
      {
        filter: { 'data.order.installments': 3 },
        bodies: [
          paidWith('credit_card', null, { installments: 3 }),
          paidWith('credit_card', null, { installments: 1 }),
        ],
        want: [true, false],
      },
      // A boolean.
      { filter: { livemode: false }, bodies: [paidWith('pix', null)], want: [true] },
      { filter: { livemode: true }, bodies: [paidWith('pix', null)], want: [false] },
      // A metadata key (a map in the schema), and several entries that must all match; a missing path never matches.
      {
        filter: {
          'data.purchase.payment_link.metadata.channel': 'instagram',
          'data.order.payment_method': 'pix',
        },
        bodies: [
          paidWith('pix', 'instagram'),
          paidWith('pix', 'whatsapp'),
          paidWith('boleto', 'instagram'),
          paidWith('pix', null),
        ],
        want: [true, false, false, false],
      },
    ];
    for (const c of cases) {
      const created = await create(tenant, { filter: c.filter });
      expect(created.status, created.text).to.equal(201);
      expect(created.body.filter).to.deep.equal(c.filter);
      expect(await deliveredOf(tenant, created.body.id, c.bodies), JSON.stringify(c.filter)).to.deep.equal(
        c.want,
      );
      // Off after this case, so the next cases' events are not its business.
      await engine.app.http.patch(`/panel/v1/integrations/${created.body.id}`, {
        auth: tenant.panel_token,
        body: { is_active: false },
      });
    }
  });

  it('makes no delivery and no attempt for a filtered event, and counts it per integration in /metrics', async () => {
    const tenant = await seed();
    const created = await create(tenant, { filter: { 'data.order.payment_method': 'pix' } });
    const id = created.body.id;
    const before = receiver.requests.length;
    const wanted = await emit(engine.app, {
      companyId: tenant.company.id,
      type: 'order.paid',
      productId: null,
      data: paidWith('pix', null),
    });
    const dropped: string[] = [];
    for (let i = 0; i < 3; i += 1)
      dropped.push(
        await emit(engine.app, {
          companyId: tenant.company.id,
          type: 'order.paid',
          productId: null,
          data: paidWith('boleto', null),
        }),
      );
    await eventually(
      async () => (receiver.requests.some((r) => r.headers['webhook-id'] === wanted) ? true : undefined),
      10_000,
      'the pix event delivered',
    );
    await eventually(
      async () => (await unclaimedEvents(engine.app.ctx.db, { eventIds: dropped })) === 0,
      10_000,
      'the boleto events relayed',
    );
    const rows = await engine.app.ctx.db.execute<{ deliveries: number; attempts: number }>(sql`
      SELECT (SELECT count(*)::int FROM deliveries WHERE event_id = ANY(${sql.param(dropped)}::text[])) AS deliveries,
             (SELECT count(*)::int FROM delivery_attempts WHERE event_id = ANY(${sql.param(dropped)}::text[])) AS attempts`);
    expect(rows.rows[0]).to.deep.equal({ deliveries: 0, attempts: 0 });
    expect(receiver.requests.slice(before).map((r) => r.headers['webhook-id'])).not.to.include.members(
      dropped,
    );

    const metrics = await fetch(`${engine.app.url}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    const text = await metrics.text();
    const line = text
      .split('\n')
      .find((l) => l.startsWith(`webhook_events_filtered_total{integration_id="${id}"}`));
    expect(line, text.slice(0, 200)).to.not.equal(undefined);
    expect(Number(line?.split(' ').at(-1))).to.equal(3);
  });

  it('refuses a path no event kind has, at create and at PATCH, naming filter and the path', async () => {
    const tenant = await seed();
    const unknown = await create(tenant, { filter: { 'data.order.colour': 'blue' } });
    expect(unknown.status).to.equal(400);
    expect(unknown.body.error.fields?.filter?.join(' ')).to.include('data.order.colour');
    // An object is not a value a filter can match.
    const object = await create(tenant, { filter: { 'data.order': 'x' } });
    expect(object.status).to.equal(400);
    expect(object.body.error.fields).to.have.property('filter');
    const tooMany = await create(tenant, {
      filter: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`data.order.status${i}`, 'paid'])),
    });
    expect(tooMany.status).to.equal(400);
    expect(tooMany.body.error.fields).to.have.property('filter');
    const nested = await create(tenant, { filter: { 'data.order.status': { $ne: 'paid' } } });
    expect(nested.status).to.equal(400);
    expect(nested.body.error.fields).to.have.property('filter');

    const ok = await create(tenant, { filter: { 'data.order.status': 'paid' } });
    expect(ok.status).to.equal(201);
    const patched = await engine.app.http.patch<ErrorBody>(`/panel/v1/integrations/${ok.body.id}`, {
      auth: tenant.panel_token,
      body: { filter: { 'data.nothing.here': 1 } },
    });
    expect(patched.status).to.equal(400);
    expect(patched.body.error.fields?.filter?.join(' ')).to.include('data.nothing.here');
    const kept = await engine.app.http.get<{ filter: unknown }>(`/panel/v1/integrations/${ok.body.id}`, {
      auth: tenant.panel_token,
    });
    expect(kept.body.filter).to.deep.equal({ 'data.order.status': 'paid' });
    const cleared = await engine.app.http.patch<{ filter: unknown }>(`/panel/v1/integrations/${ok.body.id}`, {
      auth: tenant.panel_token,
      body: { filter: null },
    });
    expect(cleared.status).to.equal(200);
    expect(cleared.body.filter).to.deep.equal({});

    const managed = await engine.app.http.post<ErrorBody>('/panel/v1/integrations/', {
      auth: tenant.panel_token,
      body: { type: 'members_area', config: {}, events: [], filter: { 'data.order.status': 'paid' } },
    });
    expect(managed.status).to.equal(400);
    expect(managed.body.error.fields).to.have.property('filter');
  });
});
