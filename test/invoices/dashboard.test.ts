import { expect } from 'chai';
import { readable, send, signIn, type Session } from '../dashboard/helpers.js';
import { P } from '../orders/helpers.js';
import {
  BUYER_CPF,
  createInvoiceIntegration,
  invoiceConfig,
  invoiceReaches,
  invoiceWorld,
  paidOrder,
} from './helpers.js';

describe("Invoices in the dashboard: the order's page, the orders CSV, retry, check settings", function () {
  this.timeout(90_000);
  const world = invoiceWorld();
  const app = () => world.app;
  let owner: Session;
  let readOnly: Session;
  let integrationId = 0;

  before(async () => {
    integrationId = await createInvoiceIntegration(app(), world.tenant, invoiceConfig(world.token));
    owner = await signIn(app(), world.tenant.panel_token);
    readOnly = await signIn(app(), world.tenant.keys.read_only);
  });

  it("shows an issued invoice on its order's page and in the CSV", async () => {
    const order = await paidOrder(app(), world.tenant, { document: BUYER_CPF });
    const issued = await invoiceReaches(app(), world.tenant, order.code, 'issued');
    const page = await send(app(), 'GET', `/orders/${order.code}?lang=en`, { session: owner });
    expect(page.status, page.text).to.equal(200);
    const text = readable(page.text);
    expect(text).to.include('Service invoice (NFS-e)').and.include('Issued');
    expect(text).to.include(`Number ${issued.invoice?.number ?? 'none'}`);
    expect(page.text).to.include(`href="${issued.invoice?.pdf_url ?? 'none'}"`);
    expect(page.text).to.not.include('invoice/retry');
    const file = await send(app(), 'GET', '/orders.csv?mode=live&lang=pt-BR', { session: owner });
    expect(file.status).to.equal(200);
    const [header, ...lines] = file.text.replace(/^\uFEFF/, '').split('\r\n');
    // The invoice's two columns come before the seven campaign keys.
    expect(header?.split(';').slice(-9, -7)).to.deep.equal(['Nota fiscal', 'Número da nota']);
    const line = lines.find((l) => l.startsWith(order.code));
    expect(line?.split(';').slice(-9, -7)).to.deep.equal(['Emitida', issued.invoice?.number ?? 'none']);
  });

  it("shows a refusal with the provider's message, and retries it from the page after a settings fix", async () => {
    world.focus.verdict = () => [
      { codigo: 'E145', mensagem: 'Regime Especial de Tributação ausente', correcao: null },
    ];
    try {
      const order = await paidOrder(app(), world.tenant, { document: BUYER_CPF });
      await invoiceReaches(app(), world.tenant, order.code, 'failed');
      const page = await send(app(), 'GET', `/orders/${order.code}?lang=pt-BR`, { session: owner });
      const text = readable(page.text);
      expect(text).to.include('Recusada').and.include('E145: Regime Especial de Tributação ausente');
      expect(page.text).to.include(`action="/dashboard/orders/${order.code}/invoice/retry?lang=pt-BR"`);
      // A read-only session sees no button, and may not post one.
      const seen = await send(app(), 'GET', `/orders/${order.code}?lang=pt-BR`, { session: readOnly });
      expect(seen.text).to.not.include('invoice/retry');
      const refused = await send(app(), 'POST', `/orders/${order.code}/invoice/retry`, {
        session: readOnly,
        form: {},
      });
      expect(refused.status).to.equal(403);
      world.focus.verdict = () => null;
      const retried = await send(app(), 'POST', `/orders/${order.code}/invoice/retry?lang=pt-BR`, {
        session: owner,
        form: {},
      });
      expect(retried.status, retried.text).to.equal(303);
      expect(retried.location).to.equal(`/dashboard/orders/${order.code}?lang=pt-BR`);
      await invoiceReaches(app(), world.tenant, order.code, 'issued');
    } finally {
      world.focus.verdict = () => null;
    }
  });

  it('asks the provider about the settings and shows its answer', async () => {
    const ok = await send(app(), 'POST', `/integrations/${integrationId}/check?lang=en`, {
      session: owner,
      form: {},
    });
    expect(ok.status, ok.text).to.equal(200);
    expect(readable(ok.text))
      .to.include('Focus NFe accepts these settings.')
      .and.include("São Paulo/SP: the token opens and NFS-e is active; it requires the buyer's CPF or CNPJ");
    await app().http.patch(`${P}/integrations/${integrationId}`, {
      auth: world.tenant.panel_token,
      body: { config: invoiceConfig('••••', { codigo_municipio: '9999999' }) },
    });
    try {
      const not = await send(app(), 'POST', `/integrations/${integrationId}/check?lang=en`, {
        session: owner,
        form: {},
      });
      expect(readable(not.text))
        .to.include('Focus NFe does not accept these settings.')
        .and.include('Focus NFe does not know municipality 9999999');
    } finally {
      await app().http.patch(`${P}/integrations/${integrationId}`, {
        auth: world.tenant.panel_token,
        body: { config: invoiceConfig('••••') },
      });
    }
  });

  it('creates and edits an invoice integration through its form, the token never shown again', async () => {
    const form = (overrides: Record<string, string> = {}) => ({
      token: world.token,
      cnpj: '11222333000181',
      inscricao_municipal: '12345',
      codigo_municipio: '3550308',
      item_lista_servico: '0802',
      aliquota: '2',
      discriminacao: '{product} ({order_code})',
      issue_after: 'paid',
      ...overrides,
    });
    const newPage = await send(app(), 'GET', '/integrations/invoice/new?lang=en', { session: owner });
    expect(newPage.status).to.equal(200);
    expect(readable(newPage.text)).to.include('New invoice integration (Focus NFe)');
    const bad = await send(app(), 'POST', '/integrations/invoice/new?lang=en', {
      session: owner,
      form: form({ cnpj: '123' }),
    });
    expect(bad.status).to.equal(400);
    expect(readable(bad.text)).to.include('cnpj: must be the 14 digits of the issuing CNPJ');
    expect(bad.text, 'a refused form never echoes the token').to.not.include(world.token);
    const created = await send(app(), 'POST', '/integrations/invoice/new?lang=en', {
      session: owner,
      form: form({ iss_retido: 'true' }),
    });
    expect(created.status, created.text).to.equal(303);
    const id = Number(/\/integrations\/(\d+)\/invoice/.exec(created.location ?? '')?.[1]);
    const edit = await send(app(), 'GET', `/integrations/${id}/invoice?lang=en`, { session: owner });
    expect(edit.status).to.equal(200);
    expect(edit.text).to.include('value="••••"').and.not.include(world.token);
    expect(edit.text).to.include(`action="/dashboard/integrations/${id}/check?lang=en"`);
    const saved = await send(app(), 'POST', `/integrations/${id}/invoice?lang=en`, {
      session: owner,
      form: form({ token: '••••', aliquota: '3,5', issue_after: 'guarantee_end' }),
    });
    expect(saved.status, saved.text).to.equal(303);
    const read = await app().http.get<{ config: Record<string, unknown>; events: string[] }>(
      `${P}/integrations/${id}`,
      { auth: world.tenant.panel_token },
    );
    expect(read.body.config).to.deep.include({
      aliquota: 3.5,
      iss_retido: false,
      issue_after: 'guarantee_end',
      token: '••••',
    });
    expect(read.body.events).to.deep.equal([]);
    const refused = await send(app(), 'POST', `/integrations/${id}/invoice`, {
      session: readOnly,
      form: form(),
    });
    expect(refused.status).to.equal(403);
    const list = await send(app(), 'GET', '/integrations?lang=en', { session: owner });
    expect(list.text).to.include(`href="/dashboard/integrations/${id}/invoice?lang=en"`);
    await app().http.delete(`${P}/integrations/${id}`, { auth: world.tenant.panel_token });
  });
});
