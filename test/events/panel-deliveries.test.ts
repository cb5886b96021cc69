import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { QUEUE } from '../../queues/index.js';
import { schema } from '../../src/shared/db/index.js';
import { seed, sharedApp } from '../helpers/app.js';
import { createIntegration, emit, eventually, integration, Receiver, startEngine, type Engine } from './helpers.js';

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
      const eventId = await emit(engine.app, { companyId: tenant.company.id, type: 'lead.created', productId: null, note: kind });
      emitted.push(eventId);
      await eventually(async () => {
        const [d] = await engine.app.ctx.db.select().from(schema.deliveries).where(eq(schema.deliveries.eventId, eventId));
        return d && d.status !== 'pending' ? d : undefined;
      });
    }
    const http = engine.app.http;
    const all = await http.get<{ data: DeliveryBody[]; has_more: boolean }>(`/panel/v1/integrations/${id}/deliveries`, { auth: tenant.panel_token });
    expect(all.status).to.equal(200);
    expect(all.body.data.map((d) => d.event_id)).to.deep.equal([...emitted].reverse());
    const failed = all.body.data[1];
    expect(failed).to.include({ status: 'failed', attempts: 2 });
    expect(failed?.attempt_history.map((a) => [a.attempt, a.status_code])).to.deep.equal([
      [1, 500],
      [2, 500],
    ]);

    const onlyFailed = await http.get<{ data: DeliveryBody[] }>(`/panel/v1/integrations/${id}/deliveries?status=failed`, { auth: tenant.panel_token });
    expect(onlyFailed.body.data.map((d) => d.event_id)).to.deep.equal([emitted[1]]);

    const page1 = await http.get<{ data: DeliveryBody[]; has_more: boolean }>(`/panel/v1/integrations/${id}/deliveries?limit=2`, { auth: tenant.panel_token });
    expect(page1.body.has_more).to.equal(true);
    const last = page1.body.data[1]?.id;
    const page2 = await http.get<{ data: DeliveryBody[]; has_more: boolean }>(
      `/panel/v1/integrations/${id}/deliveries?limit=2&starting_after=${last}`,
      { auth: tenant.panel_token },
    );
    expect(page2.body.data.map((d) => d.event_id)).to.deep.equal([emitted[0]]);
    expect(page2.body.has_more).to.equal(false);

    const bad = await http.get(`/panel/v1/integrations/${id}/deliveries?status=lost`, { auth: tenant.panel_token });
    expect(bad.status).to.equal(400);
  });

  it('resends a failed delivery with the same webhook-id and refuses one still pending', async () => {
    const tenant = await seed();
    let fail = true;
    receiver.reply = () => (fail ? { status: 500 } : { status: 200 });
    const id = await createIntegration(engine.app, tenant, { url: receiver.url, events: ['lead.created'] });
    const eventId = await emit(engine.app, { companyId: tenant.company.id, type: 'lead.created', productId: null });
    const delivery = await eventually(async () => {
      const [d] = await engine.app.ctx.db.select().from(schema.deliveries).where(eq(schema.deliveries.eventId, eventId));
      return d?.status === 'failed' ? d : undefined;
    });
    fail = false;
    const before = receiver.requests.length;
    const res = await engine.app.http.post<DeliveryBody>(`/panel/v1/integrations/${id}/deliveries/${delivery.id}/resend`, { auth: tenant.panel_token });
    expect(res.status).to.equal(202);
    expect(res.body).to.include({ status: 'pending', event_id: eventId });
    await receiver.waitFor(before + 1);
    expect(receiver.requests[before]?.headers['webhook-id']).to.equal(eventId);
    const done = await eventually(async () => {
      const [d] = await engine.app.ctx.db.select().from(schema.deliveries).where(eq(schema.deliveries.id, delivery.id));
      return d?.status === 'succeeded' ? d : undefined;
    });
    expect(done.attempts).to.equal(3);
    expect((await integration(engine.app.ctx.db, id)).failureCount).to.equal(0);
  });

  it('answers 404 for an integration of another company', async () => {
    const tenant = await seed();
    const other = await seed();
    const id = await createIntegration(engine.app, other, { url: receiver.url, events: ['lead.created'] });
    const res = await engine.app.http.get(`/panel/v1/integrations/${id}/deliveries`, { auth: tenant.panel_token });
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
      const wrong = await fetch(url, { headers: { authorization: `Basic ${Buffer.from('ops:nope-nope').toString('base64')}` } });
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
