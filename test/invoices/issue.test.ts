import { expect } from 'chai';
import { sql } from 'drizzle-orm';
import { jobIds } from '../../queues/index.js';
import { queueInvoices, sweepInvoices } from '../../src/invoices/feed.js';
import { advanceInvoice } from '../../src/invoices/issue.js';
import { eventually } from '../helpers/eventually.js';
import { activePlan } from '../checkout/helpers.js';
import { checkout, P, type List, type PanelOrder } from '../orders/helpers.js';
import {
  BUYER_CPF,
  CITY,
  CNPJ,
  createInvoiceIntegration,
  eventsOf,
  invoiceConfig,
  invoiceReaches,
  invoiceRowOf,
  invoiceWorld,
  paidOrder,
  panelOrder,
} from './helpers.js';

describe('Service invoices: issued on payment through Focus NFe, once, canceled on refund, refused and retried', function () {
  this.timeout(90_000);
  const world = invoiceWorld();
  const app = () => world.app;
  let integrationId = 0;

  before(async () => {
    integrationId = await createInvoiceIntegration(app(), world.tenant, invoiceConfig(world.token));
  });

  const invoiceRow = (code: string) => invoiceRowOf(app(), code);

  it('issues the NFS-e of a paid order: the buyer as tomador, the amount as valor_servicos, shown on the order and announced', async () => {
    const order = await paidOrder(app(), world.tenant, { document: BUYER_CPF, name: 'Bia Buyer' });
    const issued = await invoiceReaches(app(), world.tenant, order.code, 'issued');
    const note = world.focus.notes.get(order.code);
    expect(note, 'the stand-in got the note under the order code').to.not.equal(undefined);
    expect(note?.body).to.deep.include({
      prestador: { cnpj: CNPJ, inscricao_municipal: '12345', codigo_municipio: CITY },
    });
    expect(note?.body.tomador).to.deep.include({ cpf: BUYER_CPF, razao_social: 'Bia Buyer' });
    expect(note?.body.servico).to.deep.include({
      valor_servicos: Number(order.amount),
      aliquota: 2,
      iss_retido: false,
      item_lista_servico: '0802',
      codigo_municipio: CITY,
      discriminacao: `Curso ${order.product.name} - pedido ${order.code}`,
    });
    expect(issued.invoice).to.deep.include({ status: 'issued', number: note?.numero, message: null });
    expect(issued.invoice?.pdf_url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/arquivos\/.+danfse\.pdf$/);
    expect(issued.invoice?.xml_url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/arquivos\/.+nfse\.xml$/);
    const events = await eventually(async () => {
      const found = (await eventsOf(app(), world.tenant, 'invoice.issued')).filter(
        (e) => e.data.order.code === order.code,
      );
      return found.length > 0 ? found : undefined;
    });
    expect(events).to.have.length(1);
    expect(events[0]?.data.invoice).to.deep.equal(issued.invoice);
    // Every request carried the company's token as HTTP Basic user.
    expect(world.focus.requests.every((r) => r.token === world.token)).to.equal(true);
  });

  it('issues an order once however often its relay, its job or its submission runs again', async () => {
    const order = await paidOrder(app(), world.tenant, { document: BUYER_CPF });
    await invoiceReaches(app(), world.tenant, order.code, 'issued');
    const { id, round } = await invoiceRow(order.code);
    const { rows } = await app().ctx.pool.query<{ id: string }>(
      `SELECT id FROM events WHERE type = 'order.paid' AND payload #>> '{data,order,code}' = $1`,
      [order.code],
    );
    // The relay again (a retried outbox job, the sweep): the order has its invoice already.
    expect(
      await queueInvoices(
        app().ctx,
        rows.map((r) => r.id),
      ),
    ).to.equal(0);
    // The job again: nothing to do.
    const producers = world.engine.workers.producers;
    await producers.add('invoices', `again-${id}`, { invoiceId: id, round });
    expect(await producers.waitForJob('invoices', `again-${id}`, 10_000)).to.equal('completed');
    expect((await producers.queue('invoices').getJob(`again-${id}`))?.returnvalue).to.deep.equal({
      outcome: 'issued',
    });
    // A submission whose answer was lost (the row still says pending, never submitted): the provider
    // says the reference is authorised already, and the invoice is read, not issued again.
    const before = await panelOrder(app(), world.tenant, order.code);
    await app().ctx.db.execute(
      sql`UPDATE order_invoices SET status = 'pending', submitted_at = NULL, number = NULL WHERE id = ${id}`,
    );
    const step = await advanceInvoice(app().ctx, id, round);
    expect(step.outcome).to.equal('issued');
    expect((await panelOrder(app(), world.tenant, order.code)).invoice).to.deep.equal(before.invoice);
    expect(world.focus.authorisations(order.code)).to.equal(1);
    expect(world.focus.notes.get(order.code)?.submissions).to.equal(1);
  });

  it('issues a paid renewal its own invoice under its own reference, and leaves the first one untouched', async () => {
    const { order: first } = await checkout(app(), world.tenant, activePlan(world.tenant).code, null, {
      payment_method: 'credit_card',
      name: 'Sam Subscriber',
      document: BUYER_CPF,
    });
    expect(first.status).to.equal('paid');
    const subscriptionId = first.subscription_id ?? 0;
    expect(subscriptionId).to.be.above(0);
    const firstIssued = await invoiceReaches(app(), world.tenant, first.code, 'issued');
    const firstNote = { ...world.focus.notes.get(first.code) };
    const renew = await app().http.post(`${P}/subscriptions/${subscriptionId}/renew`, {
      auth: world.tenant.panel_token,
      body: { outcome: 'paid' },
    });
    expect(renew.status, renew.text).to.equal(200);
    const orders = await app().http.get<List<PanelOrder>>(`${P}/orders?limit=100`, {
      auth: world.tenant.panel_token,
    });
    const renewal = orders.body.data.find(
      (o) => o.subscription_id === subscriptionId && o.code !== first.code && o.status === 'paid',
    );
    if (!renewal) throw new Error('no paid renewal order');
    const renewed = await invoiceReaches(app(), world.tenant, renewal.code, 'issued');
    // Its own note, under the renewal's code: the subscriber as tomador, the renewal's amount.
    const note = world.focus.notes.get(renewal.code);
    expect(note?.body.tomador).to.deep.include({ cpf: BUYER_CPF, razao_social: 'Sam Subscriber' });
    expect(note?.body.servico).to.deep.include({ valor_servicos: Number(renewal.amount) });
    expect(renewed.invoice?.number).to.equal(note?.numero).and.not.equal(firstIssued.invoice?.number);
    expect(world.focus.authorisations(renewal.code)).to.equal(1);
    // The first invoice is untouched: the same note, submitted and authorised once, the same order view.
    expect(world.focus.notes.get(first.code)).to.deep.include({
      status: 'autorizado',
      submissions: 1,
      numero: firstNote.numero,
    });
    expect(world.focus.authorisations(first.code)).to.equal(1);
    expect((await panelOrder(app(), world.tenant, first.code)).invoice).to.deep.equal(firstIssued.invoice);
    const issued = (await eventsOf(app(), world.tenant, 'invoice.issued')).filter((e) =>
      [first.code, renewal.code].includes(e.data.order.code),
    );
    expect(issued.map((e) => e.data.order.code).sort()).to.deep.equal([first.code, renewal.code].sort());
  });

  it('cancels the issued invoice when the order is refunded, with a justification of at least 15 characters', async () => {
    const order = await paidOrder(app(), world.tenant, { document: BUYER_CPF });
    await invoiceReaches(app(), world.tenant, order.code, 'issued');
    const refund = await app().http.post(`${P}/orders/${order.code}/refund`, {
      auth: world.tenant.panel_token,
    });
    expect(refund.status, refund.text).to.equal(200);
    const canceled = await invoiceReaches(app(), world.tenant, order.code, 'canceled');
    expect(canceled.invoice?.number).to.equal(world.focus.notes.get(order.code)?.numero);
    const note = world.focus.notes.get(order.code);
    expect(note?.status).to.equal('cancelado');
    expect(note?.justificativa?.length).to.be.within(15, 255);
    await eventually(async () => {
      const found = (await eventsOf(app(), world.tenant, 'invoice.canceled')).filter(
        (e) => e.data.order.code === order.code,
      );
      return found.length === 1 ? found : undefined;
    });
  });

  it("shows the prefecture's refusal, and issues after the seller fixes the settings and retries", async () => {
    world.focus.verdict = (nota) => {
      const servico = nota.body.servico as Record<string, unknown>;
      return servico.item_lista_servico === '0107'
        ? [{ codigo: 'E31', mensagem: 'Item da lista de serviço incompatível com o CNAE', correcao: null }]
        : null;
    };
    try {
      const patch = (item: string) =>
        app().http.patch(`${P}/integrations/${integrationId}`, {
          auth: world.tenant.panel_token,
          body: { config: invoiceConfig('••••', { item_lista_servico: item }) },
        });
      expect((await patch('0107')).status).to.equal(200);
      const order = await paidOrder(app(), world.tenant, { document: BUYER_CPF });
      const failed = await invoiceReaches(app(), world.tenant, order.code, 'failed');
      expect(failed.invoice?.message).to.equal('E31: Item da lista de serviço incompatível com o CNAE');
      expect(failed.invoice?.number).to.equal(null);
      // Retrying before a fix fails the same way; an issued or pending invoice is not retried.
      const fixed = await patch('0802');
      expect(fixed.status, fixed.text).to.equal(200);
      const retry = await app().http.post<{ status: string }>(`${P}/orders/${order.code}/invoice/retry`, {
        auth: world.tenant.panel_token,
      });
      expect(retry.status, retry.text).to.equal(200);
      expect(retry.body.status).to.equal('pending');
      const issued = await invoiceReaches(app(), world.tenant, order.code, 'issued');
      expect(issued.invoice?.message).to.equal(null);
      // The same reference, submitted twice, authorised once.
      expect(world.focus.notes.get(order.code)?.submissions).to.equal(2);
      expect(world.focus.authorisations(order.code)).to.equal(1);
      const again = await app().http.post(`${P}/orders/${order.code}/invoice/retry`, {
        auth: world.tenant.panel_token,
      });
      expect(again.status).to.equal(409);
      const failedEvents = (await eventsOf(app(), world.tenant, 'invoice.failed')).filter(
        (e) => e.data.order.code === order.code,
      );
      expect(failedEvents.map((e) => e.data.invoice.message)).to.deep.equal([failed.invoice?.message]);
    } finally {
      world.focus.verdict = () => null;
    }
  });

  it("waits in needs_data naming the buyer's missing document, and issues once it is there and retried", async () => {
    const order = await paidOrder(app(), world.tenant);
    const waiting = await invoiceReaches(app(), world.tenant, order.code, 'needs_data');
    expect(waiting.invoice?.message).to.match(/^customer\.document: /);
    expect(world.focus.notes.has(order.code), 'nothing sent without the CPF').to.equal(false);
    await app().ctx.pool.query(
      `UPDATE orders SET customer = customer || jsonb_build_object('document', $1::text) WHERE code = $2`,
      [BUYER_CPF, order.code],
    );
    const retry = await app().http.post(`${P}/orders/${order.code}/invoice/retry`, {
      auth: world.tenant.panel_token,
    });
    expect(retry.status, retry.text).to.equal(200);
    await invoiceReaches(app(), world.tenant, order.code, 'issued');
  });

  it('keeps paying while the provider is down, and issues once it is back', async () => {
    world.focus.down = true;
    try {
      const order = await paidOrder(app(), world.tenant, { document: BUYER_CPF });
      // The payment went through at once; the invoice waits for the provider.
      const { id, round } = await eventually(async () => {
        const { rows } = await app().ctx.pool.query('SELECT 1 FROM order_invoices WHERE order_code = $1', [
          order.code,
        ]);
        return rows.length > 0 ? invoiceRow(order.code) : undefined;
      });
      const job = () => world.engine.workers.producers.queue('invoices').getJob(jobIds.invoices(id, round));
      await eventually(
        async () => ((await job())?.attemptsMade ?? 0) >= 1 || undefined,
        20_000,
        'a failed try',
      );
      expect((await panelOrder(app(), world.tenant, order.code)).invoice?.status).to.equal('pending');
      world.focus.down = false;
      await invoiceReaches(app(), world.tenant, order.code, 'issued');
      expect(world.focus.authorisations(order.code)).to.equal(1);
    } finally {
      world.focus.down = false;
    }
  });

  it('starts again, from the sweep, an invoice whose job was lost', async () => {
    world.focus.down = true;
    try {
      const order = await paidOrder(app(), world.tenant, { document: BUYER_CPF });
      const { id, round } = await eventually(async () => {
        const { rows } = await app().ctx.pool.query('SELECT 1 FROM order_invoices WHERE order_code = $1', [
          order.code,
        ]);
        return rows.length > 0 ? invoiceRow(order.code) : undefined;
      });
      const queue = world.engine.workers.producers.queue('invoices');
      // Lost with Redis: its job gone while it waited for a retry.
      const job = await eventually(async () => {
        const found = await queue.getJob(jobIds.invoices(id, round));
        return found && (await found.getState()) === 'delayed' ? found : undefined;
      });
      await job.remove();
      world.focus.down = false;
      expect(await sweepInvoices(app().ctx, 0, 100)).to.be.at.least(1);
      await invoiceReaches(app(), world.tenant, order.code, 'issued');
      // Its job is there again (or done): a second sweep adds nothing for it.
      expect(await sweepInvoices(app().ctx, 0, 100)).to.equal(0);
    } finally {
      world.focus.down = false;
    }
  });

  it('never sends a test-mode sale to the provider', async () => {
    const sent = world.focus.requests.length;
    const link = await app().http.post<{ id: string }>('/v1/payment-links', {
      auth: world.tenant.keys.test,
      body: { offer_code: world.tenant.offers.find((o) => o.status === 'active')?.code },
    });
    expect(link.status, link.text).to.equal(201);
    const paid = await app().http.post(`/v1/payment-links/${link.body.id}/simulate`, {
      auth: world.tenant.keys.test,
      body: { outcome: 'paid' },
    });
    expect(paid.status, paid.text).to.equal(200);
    await world.engine.workers.sweeps.outbox.runsFromNow(2);
    const { rows } = await app().ctx.pool.query(
      'SELECT 1 FROM order_invoices WHERE company_id = $1 AND order_code IN (SELECT code FROM orders WHERE NOT livemode)',
      [world.tenant.company.id],
    );
    expect(rows).to.have.length(0);
    expect(world.focus.requests.slice(sent)).to.have.length(0);
  });

  it('fails a poisoned job at once without retrying it', async () => {
    const producers = world.engine.workers.producers;
    await producers.add('invoices', 'poisoned-1', { invoiceId: 'not a number', round: 1 } as never);
    expect(await producers.waitForJob('invoices', 'poisoned-1', 10_000)).to.equal('failed');
    const job = await producers.queue('invoices').getJob('poisoned-1');
    expect(job?.attemptsMade).to.equal(1);
    expect(job?.failedReason).to.match(/invalid invoices payload/);
  });
});
