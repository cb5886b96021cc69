import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { QUEUE } from '../../queues/index.js';
import { schema } from '../../src/shared/db/index.js';
import type { SeedResult } from '../../src/cli/seed.js';
import { insertUser } from '../../src/companies/repository.js';
import { createPanelToken } from '../../src/companies/service.js';
import { seed, sharedApp } from '../helpers/app.js';
import {
  createIntegration,
  emit,
  eventually,
  integration,
  Receiver,
  startEngine,
  type Engine,
} from './helpers.js';

interface AttemptBody {
  attempt: number;
  status_code: number | null;
  response_body: string | null;
  request: { headers: Record<string, string>; body: string } | null;
}

interface DeliveryBody {
  id: number;
  event_id: string;
  status: string;
  attempts: number;
  attempt_history: Array<{ attempt: number; status_code: number | null }>;
}

describe('panel: integration deliveries', function () {
  let engine: Engine;
  let receiver: Receiver;

  before(async () => {
    engine = await startEngine({ WEBHOOK_RETRY_SCHEDULE: '0.1' });
    receiver = await new Receiver().start();
  });
  after(async () => {
    await receiver.close();
    await engine.close();
  });

  it('lists deliveries newest first with their attempts, filters by status and paginates', async () => {
    const tenant = await seed();
    receiver.reply = (req) => (req.body.includes('"fail"') ? { status: 500, body: 'nope' } : { status: 200 });
    const id = await createIntegration(engine.app, tenant, { url: receiver.url, events: ['lead.created'] });
    const emitted: string[] = [];
    for (const kind of ['ok', 'fail', 'ok']) {
      const eventId = await emit(engine.app, {
        companyId: tenant.company.id,
        type: 'lead.created',
        productId: null,
        note: kind,
      });
      emitted.push(eventId);
      await eventually(async () => {
        const [d] = await engine.app.ctx.db
          .select()
          .from(schema.deliveries)
          .where(eq(schema.deliveries.eventId, eventId));
        return d && d.status !== 'pending' ? d : undefined;
      });
    }
    const http = engine.app.http;
    const all = await http.get<{ data: DeliveryBody[]; has_more: boolean }>(
      `/panel/v1/integrations/${id}/deliveries`,
      { auth: tenant.panel_token },
    );
    expect(all.status).to.equal(200);
    expect(all.body.data.map((d) => d.event_id)).to.deep.equal([...emitted].reverse());
    const failed = all.body.data[1];
    expect(failed).to.include({ status: 'failed', attempts: 2 });
    expect(failed?.attempt_history.map((a) => [a.attempt, a.status_code])).to.deep.equal([
      [1, 500],
      [2, 500],
    ]);

    const onlyFailed = await http.get<{ data: DeliveryBody[] }>(
      `/panel/v1/integrations/${id}/deliveries?status=failed`,
      { auth: tenant.panel_token },
    );
    expect(onlyFailed.body.data.map((d) => d.event_id)).to.deep.equal([emitted[1]]);

    const page1 = await http.get<{ data: DeliveryBody[]; has_more: boolean }>(
      `/panel/v1/integrations/${id}/deliveries?limit=2`,
      { auth: tenant.panel_token },
    );
    expect(page1.body.has_more).to.equal(true);
    const last = page1.body.data[1]?.id;
    const page2 = await http.get<{ data: DeliveryBody[]; has_more: boolean }>(
      `/panel/v1/integrations/${id}/deliveries?limit=2&starting_after=${last}`,
      { auth: tenant.panel_token },
    );
    expect(page2.body.data.map((d) => d.event_id)).to.deep.equal([emitted[0]]);
    expect(page2.body.has_more).to.equal(false);

    const bad = await http.get(`/panel/v1/integrations/${id}/deliveries?status=lost`, {
      auth: tenant.panel_token,
    });
    expect(bad.status).to.equal(400);
  });

  it('resends a failed delivery with the same webhook-id and refuses one still pending', async () => {
    const tenant = await seed();
    let fail = true;
    receiver.reply = () => (fail ? { status: 500 } : { status: 200 });
    const id = await createIntegration(engine.app, tenant, { url: receiver.url, events: ['lead.created'] });
    const eventId = await emit(engine.app, {
      companyId: tenant.company.id,
      type: 'lead.created',
      productId: null,
    });
    const delivery = await eventually(async () => {
      const [d] = await engine.app.ctx.db
        .select()
        .from(schema.deliveries)
        .where(eq(schema.deliveries.eventId, eventId));
      return d?.status === 'failed' ? d : undefined;
    });
    fail = false;
    const before = receiver.requests.length;
    const res = await engine.app.http.post<DeliveryBody>(
      `/panel/v1/integrations/${id}/deliveries/${delivery.id}/resend`,
      { auth: tenant.panel_token },
    );
    expect(res.status).to.equal(202);
    expect(res.body).to.include({ status: 'pending', event_id: eventId });
    await receiver.waitFor(before + 1);
    expect(receiver.requests[before]?.headers['webhook-id']).to.equal(eventId);
    const done = await eventually(async () => {
      const [d] = await engine.app.ctx.db
        .select()
        .from(schema.deliveries)
        .where(eq(schema.deliveries.id, delivery.id));
      return d?.status === 'succeeded' ? d : undefined;
    });
    expect(done.attempts).to.equal(3);
    expect((await integration(engine.app.ctx.db, id)).failureCount).to.equal(0);
  });

  it('answers 404 for an integration of another company', async () => {
    const tenant = await seed();
    const other = await seed();
    const id = await createIntegration(engine.app, other, { url: receiver.url, events: ['lead.created'] });
    const res = await engine.app.http.get(`/panel/v1/integrations/${id}/deliveries`, {
      auth: tenant.panel_token,
    });
    expect(res.status).to.equal(404);
  });
});

describe('admin: Bull Board at /admin/queues', function () {
  it('is not there when no admin credentials are configured', async () => {
    const app = await sharedApp();
    const res = await fetch(`${app.url}/admin/queues`);
    expect(res.status).to.equal(404);
  });

  it('asks for HTTP Basic credentials and lists every queue once they are right', async () => {
    const engine = await startEngine({ ADMIN_USER: 'ops', ADMIN_PASSWORD: 'correct-horse' });
    try {
      const url = `${engine.app.url}/admin/queues`;
      const none = await fetch(url);
      expect(none.status).to.equal(401);
      expect(none.headers.get('www-authenticate')).to.match(/^Basic/);
      const wrong = await fetch(url, {
        headers: { authorization: `Basic ${Buffer.from('ops:nope-nope').toString('base64')}` },
      });
      expect(wrong.status).to.equal(401);
      const auth = { authorization: `Basic ${Buffer.from('ops:correct-horse').toString('base64')}` };
      const page = await fetch(url, { headers: auth });
      expect(page.status).to.equal(200);
      const api = await fetch(`${url}/api/queues`, { headers: auth });
      expect(api.status).to.equal(200);
      const body = (await api.json()) as { queues: Array<{ name: string }> };
      // Every queue of the definitions, whoever adds one.
      expect(body.queues.map((q) => q.name).sort()).to.deep.equal(Object.values(QUEUE).sort());
      expect(body.queues).to.have.length.greaterThan(4);
    } finally {
      await engine.close();
    }
  });
});

describe('panel: one delivery, delivery filters, and what each attempt sent', function () {
  let engine: Engine;
  let receiver: Receiver;

  before(async () => {
    engine = await startEngine({ WEBHOOK_RETRY_SCHEDULE: '0.1' });
    receiver = await new Receiver().start();
  });
  after(async () => {
    await receiver.close();
    await engine.close();
  });

  async function memberToken(tenant: SeedResult): Promise<string> {
    const user = await insertUser(engine.app.ctx.db, {
      companyId: tenant.company.id,
      email: `member-${tenant.company.id}@example.com`,
      name: 'Member',
      role: 'member',
    });
    return createPanelToken(engine.app.ctx.db, user.id);
  }

  async function settled(eventId: string) {
    return eventually(async () => {
      const [d] = await engine.app.ctx.db
        .select()
        .from(schema.deliveries)
        .where(eq(schema.deliveries.eventId, eventId));
      return d && d.status !== 'pending' ? d : undefined;
    });
  }

  it('shows one delivery to owner, member and read-only key alike, with each attempt’s request minus its signature', async () => {
    const tenant = await seed();
    const member = await memberToken(tenant);
    receiver.reply = () => ({ status: 200, body: 'thanks' });
    const id = await createIntegration(engine.app, tenant, { url: receiver.url, events: ['lead.created'] });
    const eventId = await emit(engine.app, {
      companyId: tenant.company.id,
      type: 'lead.created',
      productId: null,
    });
    const row = await settled(eventId);
    const sent = receiver.requests.find((r) => r.headers['webhook-id'] === eventId);
    if (!sent) throw new Error('not received');

    const bodies: unknown[] = [];
    for (const credential of [tenant.panel_token, member, tenant.keys.read_only]) {
      const res = await engine.app.http.get<DeliveryBody & { attempt_history: AttemptBody[] }>(
        `/panel/v1/integrations/${id}/deliveries/${row.id}`,
        { auth: credential },
      );
      expect(res.status).to.equal(200);
      bodies.push(res.body);
    }
    expect(bodies[1]).to.deep.equal(bodies[0]);
    expect(bodies[2]).to.deep.equal(bodies[0]);
    const detail = bodies[0] as DeliveryBody & { attempt_history: AttemptBody[] };
    expect(detail).to.include({ id: row.id, event_id: eventId, status: 'succeeded', attempts: 1 });
    const [attempt] = detail.attempt_history;
    expect(attempt?.response_body).to.equal('thanks');
    expect(attempt?.request?.body).to.equal(sent.body);
    expect(attempt?.request?.headers).to.deep.include({
      'content-type': 'application/json',
      'webhook-id': eventId,
      'webhook-timestamp': sent.headers['webhook-timestamp'],
    });
    expect(attempt?.request?.headers).not.to.have.property('webhook-signature');
    expect(JSON.stringify(detail)).not.to.include(String(sent.headers['webhook-signature']));

    // The list shows the same delivery the same way.
    const list = await engine.app.http.get<{ data: unknown[] }>(`/panel/v1/integrations/${id}/deliveries`, {
      auth: tenant.keys.read_only,
    });
    expect(list.body.data).to.deep.equal([detail]);
  });

  it('answers 404 for a delivery of another integration, of another company, or unknown', async () => {
    const tenant = await seed();
    const other = await seed();
    const mine = await createIntegration(engine.app, tenant, { url: receiver.url, events: ['lead.created'] });
    const second = await createIntegration(engine.app, tenant, { url: receiver.url, events: ['order.paid'] });
    const theirs = await createIntegration(engine.app, other, {
      url: receiver.url,
      events: ['lead.created'],
    });
    const eventId = await emit(engine.app, {
      companyId: tenant.company.id,
      type: 'lead.created',
      productId: null,
    });
    const row = await settled(eventId);
    const get = (integration: number, delivery: number, auth: string) =>
      engine.app.http.get<{ error: { type: string } }>(
        `/panel/v1/integrations/${integration}/deliveries/${delivery}`,
        { auth },
      );
    expect((await get(mine, row.id, tenant.panel_token)).status).to.equal(200);
    for (const res of [
      await get(second, row.id, tenant.panel_token),
      await get(theirs, row.id, tenant.panel_token),
      await get(mine, row.id, other.panel_token),
      await get(mine, row.id + 1_000_000, tenant.panel_token),
    ]) {
      expect(res.status).to.equal(404);
      expect(res.body.error.type).to.equal('not_found');
    }
  });

  it('filters deliveries by event type and by since, and still paginates', async () => {
    const tenant = await seed();
    receiver.reply = () => ({ status: 200 });
    const id = await createIntegration(engine.app, tenant, {
      url: receiver.url,
      events: ['lead.created', 'order.paid'],
      sendToAllProducts: true,
    });
    const lead1 = await emit(engine.app, {
      companyId: tenant.company.id,
      type: 'lead.created',
      productId: null,
    });
    await settled(lead1);
    const paid = await emit(engine.app, {
      companyId: tenant.company.id,
      type: 'order.paid',
      productId: null,
    });
    const paidRow = await settled(paid);
    const lead2 = await emit(engine.app, {
      companyId: tenant.company.id,
      type: 'lead.created',
      productId: null,
    });
    await settled(lead2);
    const list = (query: string) =>
      engine.app.http.get<{ data: DeliveryBody[]; has_more: boolean }>(
        `/panel/v1/integrations/${id}/deliveries?${query}`,
        {
          auth: tenant.panel_token,
        },
      );
    expect((await list('event_type=lead.created')).body.data.map((d) => d.event_id)).to.deep.equal([
      lead2,
      lead1,
    ]);
    expect((await list('event_type=order.paid')).body.data.map((d) => d.event_id)).to.deep.equal([paid]);
    const since = paidRow.createdAt.toISOString();
    expect((await list(`since=${encodeURIComponent(since)}`)).body.data.map((d) => d.event_id)).to.deep.equal(
      [lead2, paid],
    );
    const page1 = await list('event_type=lead.created&limit=1');
    expect(page1.body).to.deep.include({ has_more: true });
    const page2 = await list(`event_type=lead.created&limit=1&starting_after=${page1.body.data[0]?.id}`);
    expect(page2.body.data.map((d) => d.event_id)).to.deep.equal([lead1]);
    expect(page2.body.has_more).to.equal(false);

    for (const bad of ['event_type=order.unknown', 'since=yesterday', 'since=2026-01-01T00:00:00']) {
      const res = await list(bad);
      expect(res.status, bad).to.equal(400);
    }
  });
});
