import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
import { seed } from '../helpers/app.js';
import { createIntegration, engineAndReceiver } from '../events/helpers.js';
import {
  actionPath,
  activeOffer,
  createLink,
  formActions,
  pathOf,
  payPath,
  postForm,
  type Envelope,
} from './helpers.js';

describe('Test simulation page {checkout_url}/teste/:linkId', function () {
  const { engine, receiver } = engineAndReceiver();

  async function tenantWithHook(): Promise<SeedResult> {
    const tenant = await seed();
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      events: ['order.paid', 'order.payment_declined', 'order.expired'],
      sendToAllProducts: true,
    });
    return tenant;
  }

  const newTestLink = (tenant: SeedResult, reference: string) =>
    createLink(engine.app, tenant.keys.test, {
      offer_code: activeOffer(tenant).code,
      external_reference: reference,
      metadata: { source: 'page' },
      customer: { name: 'Ana <b>Souza</b>' },
    });

  /** The payload with what differs between two dispatches (ids, times, link id, order code) blanked. */
  function comparable(body: string, linkId: string): unknown {
    const envelope = JSON.parse(body) as Envelope;
    const text = JSON.stringify({ ...envelope, id: '', created_at: '' }).replaceAll(linkId, 'LINK');
    const copy = JSON.parse(text) as Envelope;
    if (copy.data.order)
      copy.data.order = {
        ...copy.data.order,
        code: '',
        paid_at: copy.data.order.paid_at === null ? null : 'set',
      };
    return copy;
  }

  it('renders the offer, price, status and three buttons posting to the simulate address', async () => {
    const tenant = await tenantWithHook();
    const link = await newTestLink(tenant, 'page-render');
    expect(pathOf(engine.app, link.url)).to.equal(payPath(engine.app, `/teste/${link.id}`));

    const res = await engine.app.http.get<string>(pathOf(engine.app, link.url));

    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect(res.body).to.include(activeOffer(tenant).name).and.include('R$\u00a0297,00');
    expect(res.body).to.match(/id="link-status" data-status="active">ativo</);
    const actions = formActions(res.body);
    expect(actions).to.have.length(3);
    // Relative to the page, so the buttons work under whatever host it was opened.
    for (const action of actions) expect(action).to.equal(`../teste/${link.id}/simulate`);
    expect([...res.body.matchAll(/name="outcome" value="(\w+)"/g)].map((m) => m[1])).to.deep.equal([
      'paid',
      'failed',
      'expired',
    ]);
  });

  for (const [outcome, event, status] of [
    ['paid', 'order.paid', 'paid'],
    ['failed', 'order.payment_declined', 'active'],
    ['expired', 'order.expired', 'expired'],
  ] as const) {
    it(`the ${outcome} button dispatches the same ${event} as the simulate API`, async () => {
      const tenant = await tenantWithHook();
      const viaApi = await newTestLink(tenant, `same-${outcome}`);
      const viaPage = await newTestLink(tenant, `same-${outcome}`);
      const start = receiver.requests.length;

      const api = await engine.app.http.post<{ status: string; simulation: { event: string } }>(
        `/v1/payment-links/${viaApi.id}/simulate`,
        { auth: tenant.keys.test, body: { outcome } },
      );
      expect(api.status).to.equal(200);
      await receiver.waitFor(start + 1);
      const page = await postForm(
        engine.app,
        actionPath(engine.app, `${engine.app.ctx.config.urls.checkout}/teste/${viaPage.id}/simulate?lang=en`),
        { outcome },
      );
      await receiver.waitFor(start + 2);

      expect(page.status).to.equal(200);
      expect(page.body)
        .to.include(`id="event">${event}<`)
        .and.include(`id="link-status" data-status="${status}">${status}<`);
      expect(page.body).to.include(receiver.url);
      expect(page.body).to.match(/<td>yes<\/td>\s*<td>200<\/td>/);
      expect(page.body).to.include(`href="../../teste/${viaPage.id}?lang=en"`);
      const [fromApi, fromPage] = receiver.requests.slice(start, start + 2);
      if (!fromApi || !fromPage) throw new Error('missing deliveries');
      expect(comparable(fromPage.body, viaPage.id)).to.deep.equal(comparable(fromApi.body, viaApi.id));
      expect((JSON.parse(fromPage.body) as Envelope).type).to.equal(event);

      const after = await engine.app.http.get<{ status: string; order: unknown }>(
        `/v1/payment-links/${viaPage.id}`,
        { auth: tenant.keys.test },
      );
      expect(after.body).to.include({ status, order: null });
    });
  }

  it('escapes every value taken from the link or catalog', async () => {
    const tenant = await tenantWithHook();
    const link = await createLink(engine.app, tenant.keys.test, { offer_code: activeOffer(tenant).code });
    await engine.app.ctx.pool.query(`UPDATE offers SET name = '<script>alert(1)</script>' WHERE code = $1`, [
      activeOffer(tenant).code,
    ]);
    const res = await engine.app.http.get<string>(pathOf(engine.app, link.url));
    expect(res.body).not.to.include('<script>');
    expect(res.body).to.include('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('answers 404 for a live link id and for an unknown id', async () => {
    const tenant = await tenantWithHook();
    const live = await createLink(engine.app, tenant.keys.live, { offer_code: activeOffer(tenant).code });
    for (const id of [live.id, 'plink_000000000000000000000000', 'nope']) {
      const page = await engine.app.http.get<string>(payPath(engine.app, `/teste/${id}`));
      expect(page.status, id).to.equal(404);
      expect(page.body).to.include('<h1>Página não encontrada</h1>');
      const post = await postForm(engine.app, payPath(engine.app, `/teste/${id}/simulate`), {
        outcome: 'paid',
      });
      expect(post.status, id).to.equal(404);
    }
    const after = await engine.app.http.get<{ status: string }>(`/v1/payment-links/${live.id}`, {
      auth: tenant.keys.live,
    });
    expect(after.body.status).to.equal('active');
  });

  it('shows a notice and no buttons for a link that is not active, and refuses a posted outcome with 409', async () => {
    const tenant = await tenantWithHook();
    const canceled = await newTestLink(tenant, 'page-canceled');
    await engine.app.http.post(`/v1/payment-links/${canceled.id}/cancel`, { auth: tenant.keys.test });
    const start = receiver.requests.length;

    const page = await engine.app.http.get<string>(pathOf(engine.app, canceled.url));
    expect(page.status).to.equal(200);
    expect(page.body).to.include('class="notice"').and.include('canceled');
    expect(formActions(page.body)).to.have.length(0);

    const post = await postForm(engine.app, payPath(engine.app, `/teste/${canceled.id}/simulate?lang=en`), {
      outcome: 'paid',
    });
    expect(post.status).to.equal(409);
    expect(post.body).to.include('This test link was canceled: only an active link can be simulated.');
    expect(receiver.requests.length).to.equal(start);
  });

  it('refuses an unknown outcome with a 400 page', async () => {
    const tenant = await tenantWithHook();
    const link = await newTestLink(tenant, 'page-bad-outcome');
    const post = await postForm(engine.app, payPath(engine.app, `/teste/${link.id}/simulate`), {
      outcome: 'refunded',
    });
    expect(post.status).to.equal(400);
    expect(post.body).to.include('Escolha um dos três resultados da página de teste.');
  });

  it('offers the buttons exactly when the simulate API accepts the link', async () => {
    const tenant = await tenantWithHook();
    // A reusable link that a simulation paid is no longer active: the API refuses it, so no buttons.
    const reusable = await createLink(engine.app, tenant.keys.test, {
      offer_code: activeOffer(tenant).code,
      single_use: false,
    });
    await engine.app.http.post(`/v1/payment-links/${reusable.id}/simulate`, {
      auth: tenant.keys.test,
      body: { outcome: 'paid' },
    });
    const paidPage = await engine.app.http.get<string>(`${pathOf(engine.app, reusable.url)}?lang=en`);
    expect(paidPage.body).to.include('This test link is already paid: only an active link can be simulated.');
    expect(formActions(paidPage.body)).to.have.length(0);
    // An active link of an offer taken off sale can still be simulated through the API, so the page offers it too.
    const active = await newTestLink(tenant, 'page-offer-off');
    await engine.app.ctx.pool.query(`UPDATE offers SET status = 'inactive' WHERE code = $1`, [
      activeOffer(tenant).code,
    ]);
    const activePage = await engine.app.http.get<string>(pathOf(engine.app, active.url));
    expect(formActions(activePage.body)).to.have.length(3);
  });
});
