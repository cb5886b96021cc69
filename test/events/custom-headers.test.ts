import { expect } from 'chai';
import { sql } from 'drizzle-orm';
import type { SeedResult } from '../../src/cli/seed.js';
import { seed } from '../helpers/app.js';
import { noteSecret } from '../helpers/secrets.js';
import { emit, engineAndReceiver, eventually, type Engine } from './helpers.js';

const MASK = '••••';
type ErrorBody = { error: { type: string; message: string; fields?: Record<string, string[]> } };
type IntegrationBody = ErrorBody & { id: number; config: Record<string, unknown> };

/** Every value of every column of every table, as text: what a dump of the database would hold. */
async function everyStoredValue(engine: Engine): Promise<string> {
  const tables = await engine.app.ctx.db.execute<{ name: string }>(sql`
    SELECT quote_ident(table_name) AS name FROM information_schema.tables
     WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`);
  const parts: string[] = [];
  for (const { name } of tables.rows) {
    const rows = await engine.app.ctx.db.execute<{ row: string }>(
      sql.raw(`SELECT t::text AS row FROM ${name} t`),
    );
    for (const r of rows.rows) parts.push(r.row);
  }
  return parts.join('\n');
}

describe('custom headers of webhook integrations', function () {
  const { engine, receiver } = engineAndReceiver({ BREAKER_THRESHOLD: '1000' });
  const TOKEN = `gw-token-${Date.now()}-kept-out-of-every-dump`;
  const OTHER = `second-value-${Date.now()}-never-stored-plain`;
  const NEWER = `replaced-${Date.now()}-value`;
  before(() => [TOKEN, OTHER, NEWER].forEach(noteSecret));

  const create = (tenant: SeedResult, headers: Record<string, string>) =>
    engine.app.http.post<IntegrationBody>('/panel/v1/integrations/', {
      auth: tenant.panel_token,
      body: {
        type: 'webhook',
        config: { url: receiver.url, headers },
        events: ['order.paid'],
        send_to_all_products: true,
      },
    });

  it('sends them with every attempt, masked in every answer, and keeps a value a PATCH sends the mask for', async () => {
    const tenant = await seed();
    const created = await create(tenant, { Authorization: `Bearer ${TOKEN}`, 'X-Gateway-Token': OTHER });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.config.headers).to.deep.equal({ Authorization: MASK, 'X-Gateway-Token': MASK });
    expect(created.text).not.to.include(TOKEN);
    const id = created.body.id;
    for (const auth of [tenant.panel_token, tenant.keys.read_only]) {
      const read = await engine.app.http.get<IntegrationBody>(`/panel/v1/integrations/${id}`, { auth });
      expect(read.body.config.headers).to.deep.equal({ Authorization: MASK, 'X-Gateway-Token': MASK });
      expect(read.text).not.to.include(OTHER);
    }

    // The first attempt is refused, the retry accepted: both carry the headers.
    const first = receiver.requests.length;
    receiver.reply = (_req, index) => (index === first ? { status: 503 } : { status: 200, body: 'ok' });
    const eventId = await emit(engine.app, {
      companyId: tenant.company.id,
      type: 'order.paid',
      productId: null,
    });
    const attempts = (await receiver.waitFor(first + 2, 15_000))
      .slice(first)
      .filter((r) => r.headers['webhook-id'] === eventId);
    expect(attempts).to.have.length(2);
    for (const attempt of attempts) {
      expect(attempt.headers.authorization).to.equal(`Bearer ${TOKEN}`);
      expect(attempt.headers['x-gateway-token']).to.equal(OTHER);
      // Ours are intact.
      expect(attempt.headers['content-type']).to.equal('application/json');
      expect(attempt.headers['webhook-id']).to.equal(eventId);
    }
    // The delivery log shows the names, never the values.
    const logged = await engine.app.ctx.db.execute<{ headers: Record<string, string> }>(sql`
      SELECT request_headers AS headers FROM delivery_attempts WHERE event_id = ${eventId}`);
    for (const row of logged.rows) expect(row.headers.Authorization).to.equal(MASK);

    // The mask keeps Authorization; X-Gateway-Token gets a new value; a third header is added.
    receiver.reply = () => ({ status: 200, body: 'ok' });
    const patched = await engine.app.http.patch<IntegrationBody>(`/panel/v1/integrations/${id}`, {
      auth: tenant.panel_token,
      body: {
        config: {
          url: receiver.url,
          headers: { Authorization: MASK, 'X-Gateway-Token': NEWER, 'X-Three': 'c' },
        },
      },
    });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body.config.headers).to.deep.equal({
      Authorization: MASK,
      'X-Gateway-Token': MASK,
      'X-Three': MASK,
    });
    // A config without headers keeps them too.
    const urlOnly = await engine.app.http.patch<IntegrationBody>(`/panel/v1/integrations/${id}`, {
      auth: tenant.panel_token,
      body: { config: { url: receiver.url } },
    });
    expect(Object.keys(urlOnly.body.config.headers as object)).to.have.length(3);
    const next = await emit(engine.app, {
      companyId: tenant.company.id,
      type: 'order.paid',
      productId: null,
    });
    const got = await eventually(
      async () => receiver.requests.find((r) => r.headers['webhook-id'] === next),
      10_000,
      'the next event',
    );
    expect(got.headers.authorization).to.equal(`Bearer ${TOKEN}`);
    expect(got.headers['x-gateway-token']).to.equal(NEWER);
    expect(got.headers['x-three']).to.equal('c');

    // A test send carries them too.
    const sent = await engine.app.http.post<{ event_id: string; success: boolean }>(
      `/panel/v1/integrations/${id}/test`,
      { auth: tenant.panel_token, body: { event: 'order.paid' } },
    );
    expect(sent.body.success).to.equal(true);
    const tested = receiver.requests.find((r) => r.headers['webhook-id'] === sent.body.event_id);
    expect(tested?.headers.authorization).to.equal(`Bearer ${TOKEN}`);

    // No value anywhere in the database: every column of every table read as text.
    const stored = await everyStoredValue(engine);
    expect(stored).to.include('X-Gateway-Token');
    for (const value of [TOKEN, OTHER, NEWER]) expect(stored).not.to.include(value);

    // A mask for a header never stored is refused; `{}` removes them all.
    const unknownMask = await engine.app.http.patch<ErrorBody>(`/panel/v1/integrations/${id}`, {
      auth: tenant.panel_token,
      body: { config: { url: receiver.url, headers: { 'X-Never': MASK } } },
    });
    expect(unknownMask.status).to.equal(400);
    expect(unknownMask.body.error.fields).to.have.property('config.headers');
    const removed = await engine.app.http.patch<IntegrationBody>(`/panel/v1/integrations/${id}`, {
      auth: tenant.panel_token,
      body: { config: { url: receiver.url, headers: {} } },
    });
    expect(removed.body.config).not.to.have.property('headers');
  });

  it('refuses our own header names, names HTTP does not allow, more than ten, and bad values, under config.headers', async () => {
    const tenant = await seed();
    const refusals: Array<Record<string, string>> = [
      { 'Content-Type': 'text/plain' },
      { 'content-length': '1' },
      { Host: 'example.com' },
      { 'User-Agent': 'me' },
      { 'Webhook-Signature': 'v1,forged' },
      { 'webhook-id': 'evt_x' },
      { 'Transfer-Encoding': 'chunked' },
      { 'X Bad Name': 'v' },
      { 'X-Line': 'a\r\nInjected: yes' },
      { 'X-Long': 'x'.repeat(1025) },
      Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`X-H${i}`, 'v'])),
      { 'X-Twice': 'a', 'x-twice': 'b' },
    ];
    for (const headers of refusals) {
      const res = await create(tenant, headers);
      expect(res.status, JSON.stringify(headers).slice(0, 80)).to.equal(400);
      expect(res.body.error.fields, JSON.stringify(headers).slice(0, 80)).to.have.property('config.headers');
    }
    const count = await engine.app.ctx.db.execute<{ n: number }>(sql`
      SELECT count(*)::int AS n FROM integrations WHERE company_id = ${tenant.company.id} AND type = 'webhook'`);
    expect(count.rows[0]?.n, 'nothing half-written').to.equal(0);
    // A PATCH names config.headers too (not the whole config).
    const ok = await create(tenant, { 'X-Fine': 'v' });
    const patched = await engine.app.http.patch<ErrorBody>(`/panel/v1/integrations/${ok.body.id}`, {
      auth: tenant.panel_token,
      body: { config: { url: receiver.url, headers: { 'Webhook-Id': 'evt_forged' } } },
    });
    expect(patched.status).to.equal(400);
    expect(patched.body.error.fields).to.have.property('config.headers');
    const ten = await create(
      tenant,
      Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`X-H${i}`, 'v'])),
    );
    expect(ten.status).to.equal(201);
  });
});
