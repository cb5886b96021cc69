import { expect } from 'chai';
import { sql } from 'drizzle-orm';
import { expectError } from '../panel/helpers.js';
import { P, panelRoles } from '../orders/helpers.js';
import {
  BUYER_CPF,
  CITY,
  createInvoiceIntegration,
  invoiceConfig,
  invoiceReaches,
  invoiceWorld,
  paidOrder,
  panelOrder,
} from './helpers.js';

interface IntegrationBody {
  id: number;
  type: string;
  events: string[];
  config: Record<string, unknown>;
}

describe('Invoice integrations in the panel: config, roles, the token never shown, check settings, the guarantee', function () {
  this.timeout(90_000);
  const world = invoiceWorld();
  const app = () => world.app;
  let roles: { owner: string; member: string; readOnly: string };
  let integrationId = 0;

  before(async () => {
    roles = await panelRoles(app(), world.tenant);
    integrationId = await createInvoiceIntegration(app(), world.tenant, invoiceConfig(world.token));
  });

  it('refuses a config that does not fit, naming the field; and webhook events', async () => {
    const post = (body: Record<string, unknown>) =>
      app().http.post(`${P}/integrations/`, { auth: roles.owner, body });
    const base = { type: 'invoice', events: [], send_to_all_products: true };
    expectError(
      await post({ ...base, config: invoiceConfig(world.token, { cnpj: '123' }) }),
      400,
      'validation_error',
      'config.cnpj',
    );
    expectError(
      await post({ ...base, config: invoiceConfig(world.token, { aliquota: 7 }) }),
      400,
      'validation_error',
      'config.aliquota',
    );
    expectError(
      await post({ ...base, config: invoiceConfig(world.token, { discriminacao: 'Curso {produto}' }) }),
      400,
      'validation_error',
      'config.discriminacao',
    );
    // The mask keeps a stored token; a new integration has none.
    expectError(
      await post({ ...base, config: invoiceConfig('••••') }),
      400,
      'validation_error',
      'config.token',
    );
    expectError(
      await post({ ...base, events: ['order.paid'], config: invoiceConfig(world.token) }),
      400,
      'validation_error',
      'events',
    );
  });

  it('shows every role the settings with the token masked; only owners and members change them or retry', async () => {
    for (const auth of [roles.owner, roles.member, roles.readOnly]) {
      const res = await app().http.get<IntegrationBody>(`${P}/integrations/${integrationId}`, { auth });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.config).to.deep.include({
        provider: 'focusnfe',
        token: '••••',
        codigo_municipio: CITY,
        aliquota: 2,
        iss_retido: false,
        issue_after: 'paid',
      });
      expect(res.text).to.not.include(world.token);
    }
    const patch = (auth: string) =>
      app().http.patch<IntegrationBody>(`${P}/integrations/${integrationId}`, {
        auth,
        body: { config: invoiceConfig('••••', { aliquota: 3 }) },
      });
    expect((await patch(roles.member)).body.config.aliquota).to.equal(3);
    expect((await patch(roles.readOnly)).status).to.equal(403);
    expect((await patch(roles.owner)).status).to.equal(200);
    const back = await app().http.patch(`${P}/integrations/${integrationId}`, {
      auth: roles.owner,
      body: { config: invoiceConfig('••••') },
    });
    expect(back.status).to.equal(200);
    const order = await paidOrder(app(), world.tenant, { document: BUYER_CPF });
    await invoiceReaches(app(), world.tenant, order.code, 'issued');
    // The order's invoice is the same for every role; a read-only key cannot retry.
    for (const auth of [roles.owner, roles.member, roles.readOnly]) {
      const res = await app().http.get<{ invoice: { status: string } }>(`${P}/orders/${order.code}`, {
        auth,
      });
      expect(res.body.invoice.status).to.equal('issued');
    }
    const retry = await app().http.post(`${P}/orders/${order.code}/invoice/retry`, { auth: roles.readOnly });
    expect(retry.status).to.equal(403);
    const member = await app().http.post(`${P}/orders/${order.code}/invoice/retry`, { auth: roles.member });
    expectError(member, 409, 'conflict');
  });

  it('checks the settings with the provider and shows its answer', async () => {
    const check = (auth: string) =>
      app().http.post<{ ok: boolean; message: string }>(`${P}/integrations/${integrationId}/check`, { auth });
    const ok = await check(roles.member);
    expect(ok.status, ok.text).to.equal(200);
    expect(ok.body).to.deep.equal({
      ok: true,
      message: "São Paulo/SP: the token opens and NFS-e is active; it requires the buyer's CPF or CNPJ",
    });
    expect((await check(roles.readOnly)).status).to.equal(403);
    // A service item the municipality does not list.
    await app().http.patch(`${P}/integrations/${integrationId}`, {
      auth: roles.owner,
      body: { config: invoiceConfig('••••', { item_lista_servico: '9999' }) },
    });
    expect((await check(roles.owner)).body).to.deep.equal({
      ok: false,
      message: 'São Paulo/SP does not list service item 9999',
    });
    // Another token (one Focus NFe does not know).
    await app().http.patch(`${P}/integrations/${integrationId}`, {
      auth: roles.owner,
      body: { config: invoiceConfig('not-a-known-token') },
    });
    const refused = await check(roles.owner);
    expect(refused.body.ok).to.equal(false);
    expect(refused.body.message).to.match(/^Focus NFe refused the token \(permissao_negada/);
    // The provider down: an answer, never a 5xx.
    world.focus.down = true;
    try {
      expect((await check(roles.owner)).body).to.deep.equal({
        ok: false,
        message: 'Focus NFe did not answer in time; try again in a moment',
      });
    } finally {
      world.focus.down = false;
    }
    await app().http.patch(`${P}/integrations/${integrationId}`, {
      auth: roles.owner,
      body: { config: invoiceConfig(world.token) },
    });
    // Not an invoice integration: 409.
    const hook = await app().http.post<{ id: number }>(`${P}/integrations/`, {
      auth: roles.owner,
      body: { type: 'webhook', config: { url: 'https://hooks.example.com/r' }, events: ['order.paid'] },
    });
    expect(hook.status, hook.text).to.equal(201);
    expectError(
      await app().http.post(`${P}/integrations/${hook.body.id}/check`, { auth: roles.owner }),
      409,
      'conflict',
    );
  });

  it('turns an invoice integration saved before this kind into one that issues when its config is saved', async () => {
    const { rows } = await app().ctx.pool.query<{ id: number }>(
      `INSERT INTO integrations (company_id, type, config, events, receives)
       VALUES ($1, 'invoice', '{"series":"A"}', '{order.paid}', 'none') RETURNING id`,
      [world.tenant.company.id],
    );
    const id = rows[0]?.id ?? 0;
    const saved = await app().http.patch<IntegrationBody>(`${P}/integrations/${id}`, {
      auth: roles.owner,
      body: { config: invoiceConfig(world.token) },
    });
    expect(saved.status, saved.text).to.equal(200);
    expect(saved.body.events).to.deep.equal([]);
    expect(saved.body.config).to.not.have.property('series');
    const { rows: after } = await app().ctx.pool.query<{ receives: string }>(
      'SELECT receives FROM integrations WHERE id = $1',
      [id],
    );
    expect(after[0]?.receives).to.equal('live');
    await app().http.delete(`${P}/integrations/${id}`, { auth: roles.owner });
  });

  it('keeps no token in the database: a dump of every table holds none', async () => {
    const tables = await app().ctx.db.execute<{ name: string }>(
      sql`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'`,
    );
    let dump = '';
    for (const { name } of tables.rows) {
      const rows = await app().ctx.db.execute(sql.raw(`SELECT row_to_json(t)::text AS r FROM "${name}" t`));
      dump += rows.rows.map((r) => String((r as { r: string }).r)).join('\n');
    }
    expect(dump).to.match(/"codigo_municipio": ?"3550308"/);
    expect(dump.includes(world.token), 'the token in the dump').to.equal(false);
    // Sealed, not lost: the service issued with it.
    expect(dump).to.match(/"secrets": ?\{"token": ?"v2\.[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+){3}"\}/);
  });

  it('issues at the end of the guarantee when asked to, and a refund before then cancels it unsent', async () => {
    await app().http.patch(`${P}/integrations/${integrationId}`, {
      auth: roles.owner,
      body: { config: invoiceConfig('••••', { issue_after: 'guarantee_end' }) },
    });
    try {
      const sent = world.focus.requests.length;
      const order = await paidOrder(app(), world.tenant, { document: BUYER_CPF });
      const pending = await invoiceReaches(app(), world.tenant, order.code, 'pending');
      expect(pending.invoice?.number).to.equal(null);
      const { rows } = await app().ctx.pool.query<{ days: number }>(
        `SELECT round(EXTRACT(EPOCH FROM i.due_at - o.paid_at) / 86400)::int AS days
           FROM order_invoices i JOIN orders o ON o.id = i.order_id WHERE i.order_code = $1`,
        [order.code],
      );
      expect(rows[0]?.days).to.equal(7);
      const refund = await app().http.post(`${P}/orders/${order.code}/refund`, { auth: roles.owner });
      expect(refund.status).to.equal(200);
      const canceled = await invoiceReaches(app(), world.tenant, order.code, 'canceled');
      expect(canceled.invoice?.message).to.equal('the order was refunded before the invoice was issued');
      expect(world.focus.requests.slice(sent).filter((r) => r.path.startsWith('/v2/nfse'))).to.have.length(0);
      expect((await panelOrder(app(), world.tenant, order.code)).status).to.equal('refunded');
    } finally {
      await app().http.patch(`${P}/integrations/${integrationId}`, {
        auth: roles.owner,
        body: { config: invoiceConfig('••••') },
      });
    }
  });
});
