import { expect } from 'chai';
import { jobIds } from '../../queues/index.js';
import { advanceInvoice } from '../../src/invoices/issue.js';
import { payPath } from '../checkout/helpers.js';
import { eventually } from '../helpers/eventually.js';
import { noteSecret } from '../helpers/secrets.js';
import {
  BUYER_CPF,
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

describe("Service invoices: Focus NFe's webhook (gatilho) answers at once, polling stays the safety net", function () {
  this.timeout(90_000);
  // Focus NFe calls the public address: the engine's, on a port known before it starts.
  const world = invoiceWorld({ publicPort: true });
  const app = () => world.app;
  let integrationId = 0;

  before(async () => {
    integrationId = await createInvoiceIntegration(
      app(),
      world.tenant,
      invoiceConfig(world.token, { webhook: true }),
    );
  });
  afterEach(() => {
    world.focus.hold = false;
    world.focus.verdict = () => null;
  });

  const noticePath = (id: number | string) => payPath(app(), `/invoices/focusnfe/notifications/${id}`);
  const ourHook = () => {
    const hooks = [...world.focus.hooks.values()].filter((h) => h.token === world.token);
    expect(hooks, 'one hook registered for the integration').to.have.length(1);
    const [hook] = hooks;
    if (!hook) throw new Error('no hook');
    // The log check fails the run should any log line carry it.
    if (hook.authorization) noteSecret(hook.authorization);
    return hook;
  };
  const invoiceRow = (code: string) => invoiceRowOf(app(), code);
  /** A paid order whose note the stand-in holds, submitted (the prefecture has not decided). */
  const heldOrder = async () => {
    world.focus.hold = true;
    const order = await paidOrder(app(), world.tenant, { document: BUYER_CPF });
    await eventually(() => world.focus.notes.has(order.code) || undefined, 20_000, 'the note submitted');
    return order;
  };
  const eventsOfOrder = async (type: string, code: string) =>
    (await eventsOf(app(), world.tenant, type)).filter((e) => e.data.order.code === code);
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${app().http.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });

  it('registers the hook at the first submission, and issues from its notice alone (no poll left)', async () => {
    const order = await heldOrder();
    const hook = ourHook();
    expect(hook).to.deep.include({ event: 'nfse', cnpj: CNPJ, authorization_header: null });
    expect(hook.url).to.equal(`${app().http.baseUrl}${noticePath(integrationId)}`);
    expect(hook.authorization).to.be.a('string').with.length.of.at.least(32);
    // Polling gone (its job removed while it waited): only the notice can move the invoice now.
    const { id, round } = await invoiceRow(order.code);
    const queue = world.engine.workers.producers.queue('invoices');
    await eventually(
      async () => {
        const job = await queue.getJob(jobIds.invoices(id, round));
        if (!job) return true;
        if ((await job.getState()) !== 'delayed') return undefined;
        return job.remove().then(
          () => true,
          () => undefined,
        );
      },
      20_000,
      'the polling job removed',
    );
    world.focus.decide(order.code);
    const issued = await invoiceReaches(app(), world.tenant, order.code, 'issued');
    await world.focus.noticesSettled();
    const notices = world.focus.notices.filter((n) => n.ref === order.code);
    expect(notices.map((n) => [n.answer, JSON.parse(n.reply)])).to.deep.equal([
      [200, { received: true, applied: true }],
    ]);
    expect(notices[0]?.headers.Authorization).to.equal(hook.authorization);
    expect(issued.invoice).to.deep.include({
      status: 'issued',
      number: world.focus.notes.get(order.code)?.numero,
    });
    expect(issued.invoice?.pdf_url).to.match(/danfse\.pdf$/);
    const events = await eventually(async () => {
      const found = await eventsOfOrder('invoice.issued', order.code);
      return found.length > 0 ? found : undefined;
    });
    expect(events).to.have.length(1);
    // Registered once, however many invoices follow.
    const second = await heldOrder();
    world.focus.decide(second.code);
    await invoiceReaches(app(), world.tenant, second.code, 'issued');
    expect(ourHook().id).to.equal(hook.id);
  });

  it('changes the invoice once for the same notice twice, and for a notice and a poll', async () => {
    const order = await heldOrder();
    world.focus.decide(order.code);
    const issued = await invoiceReaches(app(), world.tenant, order.code, 'issued');
    // "Teste e reenvio de notificações": Focus NFe sends the same notice again.
    const again = await fetch(`${world.focus.url}/v2/nfse/${order.code}/hook`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${world.token}:`).toString('base64')}` },
    });
    expect(again.status).to.equal(200);
    expect(((await again.json()) as unknown[]).length).to.equal(1);
    await eventually(
      () => world.focus.notices.filter((n) => n.ref === order.code).length === 2 || undefined,
      10_000,
      'the notice sent again',
    );
    // The second changed nothing (the first, or a poll before it, had recorded the answer).
    const answers = world.focus.notices.filter((n) => n.ref === order.code);
    expect(answers.map((n) => n.answer)).to.deep.equal([200, 200]);
    expect(JSON.parse(answers[1]?.reply ?? '{}')).to.deep.equal({ received: true, applied: false });
    // A poll after the notice: the invoice is issued already, nothing recorded.
    const { id, round } = await invoiceRow(order.code);
    const step = await advanceInvoice(app().ctx, id, round);
    expect(step).to.deep.equal({ outcome: 'issued', eventIds: [] });
    expect((await panelOrder(app(), world.tenant, order.code)).invoice).to.deep.equal(issued.invoice);
    await world.engine.workers.sweeps.outbox.runsFromNow(2);
    expect(await eventsOfOrder('invoice.issued', order.code)).to.have.length(1);
    expect(world.focus.authorisations(order.code)).to.equal(1);
  });

  it("records a refusal from its notice, with the prefecture's message, once", async () => {
    world.focus.verdict = () => [{ codigo: 'E160', mensagem: 'Tomador com CPF inválido', correcao: null }];
    const order = await heldOrder();
    world.focus.decide(order.code);
    const failed = await invoiceReaches(app(), world.tenant, order.code, 'failed');
    expect(failed.invoice?.message).to.equal('E160: Tomador com CPF inválido');
    await world.focus.noticesSettled();
    await world.engine.workers.sweeps.outbox.runsFromNow(2);
    expect(await eventsOfOrder('invoice.failed', order.code)).to.have.length(1);
  });

  it('refuses a notice without the right authorization, for an unknown integration or reference, or not a notice: 4xx envelopes, never a 500', async () => {
    const order = await heldOrder();
    const hook = ourHook();
    const secret = hook.authorization ?? '';
    const note = JSON.stringify({ cnpj_prestador: CNPJ, ref: order.code, status: 'autorizado', numero: '9' });
    const cases: Array<[string, Response, number, string]> = [
      ['no Authorization', await post(noticePath(integrationId), note), 401, 'authentication_error'],
      [
        'a wrong one',
        await post(noticePath(integrationId), note, { authorization: `${secret}x` }),
        401,
        'authentication_error',
      ],
      [
        'Basic of the secret',
        await post(noticePath(integrationId), note, { authorization: `Basic ${secret}` }),
        401,
        'authentication_error',
      ],
      [
        'an integration without a hook',
        await post(noticePath(999_999), note, { authorization: secret }),
        401,
        'authentication_error',
      ],
      [
        'a path naming no integration',
        await post(noticePath('abc'), note, { authorization: secret }),
        404,
        'not_found',
      ],
      [
        'not JSON',
        await post(noticePath(integrationId), '{"ref":', { authorization: secret }),
        400,
        'validation_error',
      ],
      [
        'no reference',
        await post(noticePath(integrationId), '{"status":"autorizado"}', { authorization: secret }),
        400,
        'validation_error',
      ],
      [
        'an unknown status',
        await post(noticePath(integrationId), JSON.stringify({ ref: order.code, status: 'denegado' }), {
          authorization: secret,
        }),
        400,
        'validation_error',
      ],
      [
        'a JSON array',
        await post(noticePath(integrationId), '[]', { authorization: secret }),
        400,
        'validation_error',
      ],
      [
        'an unknown reference',
        await post(
          noticePath(integrationId),
          JSON.stringify({ ref: '00000000-0000-4000-8000-000000000000', status: 'autorizado' }),
          { authorization: secret },
        ),
        404,
        'not_found',
      ],
      [
        'a reference that is no order code',
        await post(noticePath(integrationId), JSON.stringify({ ref: "x' OR 1=1", status: 'autorizado' }), {
          authorization: secret,
        }),
        404,
        'not_found',
      ],
    ];
    for (const [what, res, status, type] of cases) {
      const body = (await res.json()) as { error?: { type?: string; message?: string } };
      expect(res.status, what).to.equal(status);
      expect(body.error?.type, what).to.equal(type);
      expect(body.error?.message, what).to.be.a('string');
    }
    const get = await fetch(`${app().http.baseUrl}${noticePath(integrationId)}`);
    expect(get.status).to.equal(405);
    // None of them changed the invoice: still waiting for the prefecture.
    expect((await panelOrder(app(), world.tenant, order.code)).invoice?.status).to.equal('pending');
    world.focus.decide(order.code);
    await invoiceReaches(app(), world.tenant, order.code, 'issued');
  });
});
