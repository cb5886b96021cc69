import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
import { seed, sharedApp, type TestApp } from '../helpers/app.js';
import { activeOffer, activePlan, createLink } from '../checkout/helpers.js';
import { expectError } from '../panel/helpers.js';
import { checkout, P, panelRoles, type List, type PanelOrder } from './helpers.js';

describe('Panel: orders (list, get, refund)', () => {
  let app: TestApp;
  let tenant: SeedResult;
  let roles: { owner: string; member: string; readOnly: string };
  /** The tenant's orders in the order they were made. */
  const made: PanelOrder[] = [];
  let linkId: string;

  before(async () => {
    app = await sharedApp();
    tenant = await seed();
    roles = await panelRoles(app, tenant);
    const offer = activeOffer(tenant);
    const plan = activePlan(tenant);
    const link = await createLink(app, tenant.keys.live, {
      offer_code: offer.code,
      single_use: false,
      coupon_code: tenant.coupons[0]?.code,
    });
    linkId = link.id;
    made.push(
      (
        await checkout(app, tenant, offer.code, link.id, {
          name: 'Ana Paid',
          phone: '5511912345678',
          document: '52998224725',
        })
      ).order,
    );
    made.push((await checkout(app, tenant, offer.code, link.id, { payment_method: 'pix' })).order);
    made.push((await checkout(app, tenant, plan.code, null, { payment_method: 'credit_card' })).order);
    made.push((await checkout(app, tenant, offer.code, null, { payment_method: 'boleto' })).order);
  });

  const list = (query: string, auth = roles.owner) =>
    app.http.get<List<PanelOrder>>(`${P}/orders${query}`, { auth });

  it('lists the company’s orders newest first to owners, members and read-only keys alike', async () => {
    const expected = [...made].reverse().map((o) => o.code);
    for (const auth of Object.values(roles)) {
      const res = await list('', auth);
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ object: 'list', has_more: false });
      expect(res.body.data.map((o) => o.code)).to.deep.equal(expected);
    }
    // Another company sees none of them.
    const other = await seed();
    expect((await list('', other.panel_token)).body.data).to.deep.equal([]);
  });

  it('shows each order as the panel object: buyer, product, offer or plan, link, subscription, times', async () => {
    const [card, pix, planOrder] = made;
    const offer = activeOffer(tenant);
    const res = await app.http.get<PanelOrder>(`${P}/orders/${card?.code}`, { auth: roles.member });
    expect(res.status).to.equal(200);
    const { created_at: createdAt, paid_at: paidAt, ...rest } = res.body;
    expect(rest).to.deep.equal({
      object: 'order',
      code: card?.code,
      status: 'paid',
      // 297.00 minus the seed's 10 % coupon.
      amount: '267.30',
      // The dev gateway takes no fee and splits none off: all of it is the seller's.
      fees: { platform: '0.00', gateway: '0.00' },
      net_amount: '267.30',
      payment_method: 'credit_card',
      livemode: true,
      link_id: linkId,
      subscription_id: null,
      customer: {
        name: 'Ana Paid',
        email: card?.customer.email,
        phone: '+5511912345678',
        document: '52998224725',
      },
      product: { id: offer.product_id, name: 'Online course' },
      offer_code: offer.code,
      plan_code: null,
      refunded_at: null,
      // Nobody asked for a refund (additive fields of the fifth round: who asked, and the buyer's reason).
      refund_requested_by: null,
      refund_reason: null,
      installments: 1,
      pix: null,
      boleto: null,
      tracking: {
        utm_source: null,
        utm_medium: null,
        utm_campaign: null,
        utm_content: null,
        utm_term: null,
        src: null,
        sck: null,
      },
      // This app runs no worker, so no e-mail was queued for the order yet.
      emails: [],
      // No invoice integration covers the product.
      invoice: null,
    });
    expect(Date.parse(paidAt ?? '')).to.be.at.least(Date.parse(createdAt));
    // A Pix order shows the instructions the buyer got; a boleto order its boleto.
    expect(pix).to.include({ status: 'pending', paid_at: null, payment_method: 'pix', installments: null });
    expect(pix?.pix?.copy_paste).to.match(/^000201.*6304[0-9A-F]{4}$/);
    expect(Date.parse(pix?.pix?.expires_at ?? '') - Date.parse(pix?.created_at ?? '')).to.equal(1800_000);
    const boletoOrder = made[3];
    expect(boletoOrder?.boleto).to.include({
      url: `${app.ctx.config.urls.checkout}/orders/${boletoOrder?.code}/boleto`,
    });
    expect(boletoOrder?.boleto?.digitable_line).to.match(/^\d{47}$/);
    expect(boletoOrder?.boleto?.barcode).to.match(/^\d{44}$/);
    expect(planOrder).to.include({
      status: 'paid',
      offer_code: null,
      plan_code: activePlan(tenant).code,
      link_id: null,
    });
    expect(planOrder?.subscription_id).to.be.a('number');
    for (const auth of [roles.owner, roles.readOnly]) {
      const same = await app.http.get<PanelOrder>(`${P}/orders/${card?.code}`, { auth });
      expect(same.status).to.equal(200);
      expect(same.body).to.deep.equal(res.body);
    }
  });

  it('filters by status, link_id and livemode, and pages with starting_after and limit', async () => {
    const codes = async (query: string) => (await list(query)).body.data.map((o) => o.code);
    const paid = made
      .filter((o) => o.status === 'paid')
      .reverse()
      .map((o) => o.code);
    expect(await codes('?status=paid')).to.deep.equal(paid);
    expect(await codes('?status=abandoned')).to.deep.equal([]);
    expect(await codes(`?link_id=${linkId}`)).to.deep.equal([made[1]?.code, made[0]?.code]);
    expect(await codes('?link_id=plink_000000000000000000000000')).to.deep.equal([]);
    expect(await codes('?livemode=true')).to.have.length(4);
    expect(await codes('?livemode=false')).to.deep.equal([]);
    expect(await codes(`?livemode=true&status=pending&link_id=${linkId}`)).to.deep.equal([made[1]?.code]);

    const first = await list('?limit=3');
    expect(first.body.has_more).to.equal(true);
    expect(first.body.data).to.have.length(3);
    const last = first.body.data[2]?.code ?? '';
    const second = await list(`?limit=3&starting_after=${last}`);
    expect(second.body).to.deep.include({ has_more: false });
    expect(second.body.data.map((o) => o.code)).to.deep.equal([made[0]?.code]);
    // The cursor works with a filter on.
    expect(await codes(`?status=paid&starting_after=${made[3]?.code}`)).to.deep.equal(paid);
  });

  it('refuses bad parameters with 400 naming them, and a cursor that is not an order of the company', async () => {
    const other = await seed();
    const theirs = await checkout(app, other, activeOffer(other).code, null, { payment_method: 'pix' });
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?status=expired', 'status'],
      ['?livemode=yes', 'livemode'],
      ['?link_id=nope', 'link_id'],
      ['?starting_after=nope', 'starting_after'],
      [`?starting_after=${randomUUID()}`, 'starting_after'],
      [`?starting_after=${theirs.order.code}`, 'starting_after'],
      ['?sort=asc', 'sort'],
    ] as const) {
      expectError(await list(query), 400, 'validation_error', field);
    }
  });

  it('answers 404 for another company’s order or an unknown code, 400 for a code that is not a UUID', async () => {
    const other = await seed();
    const theirs = await checkout(app, other, activeOffer(other).code, null);
    for (const auth of Object.values(roles)) {
      expectError(await app.http.get(`${P}/orders/${theirs.order.code}`, { auth }), 404, 'not_found');
    }
    expectError(await app.http.get(`${P}/orders/${randomUUID()}`, { auth: roles.owner }), 404, 'not_found');
    expectError(
      await app.http.post(`${P}/orders/${theirs.order.code}/refund`, { auth: roles.owner }),
      404,
      'not_found',
    );
    expectError(
      await app.http.get(`${P}/orders/not-a-code`, { auth: roles.owner }),
      400,
      'validation_error',
      'code',
    );
    // The other company's order is untouched.
    const still = await app.http.get<PanelOrder>(`${P}/orders/${theirs.order.code}`, {
      auth: other.panel_token,
    });
    expect(still.body.status).to.equal('paid');
  });

  describe('refund', () => {
    const refund = (code: string, auth: string) =>
      app.http.post<PanelOrder>(`${P}/orders/${code}/refund`, { auth });
    const refundEvents = async (code: string) =>
      (
        await app.ctx.pool.query(
          `SELECT 1 FROM events WHERE type = 'order.refunded' AND payload->'data'->'order'->>'code' = $1`,
          [code],
        )
      ).rowCount;

    it('refunds a paid order for an owner (order.refunded, refunded_at; the link keeps its status) and again answers it unchanged', async () => {
      const t = await seed();
      const offer = activeOffer(t);
      const link = await createLink(app, t.keys.live, { offer_code: offer.code });
      const { order } = await checkout(app, t, offer.code, link.id);
      const res = await refund(order.code, t.panel_token);
      expect(res.status).to.equal(200);
      expect(res.body).to.include({
        code: order.code,
        status: 'refunded',
        paid_at: order.paid_at,
        refund_requested_by: 'seller',
        refund_reason: null,
      });
      expect(Date.parse(res.body.refunded_at ?? '')).to.be.a('number').and.not.NaN;
      expect(await refundEvents(order.code)).to.equal(1);
      const linkRead = await app.http.get<{ status: string }>(`/v1/payment-links/${link.id}`, {
        auth: t.keys.live,
      });
      expect(linkRead.body.status).to.equal('paid');

      const again = await refund(order.code, t.panel_token);
      expect(again.status).to.equal(200);
      expect(again.body).to.deep.equal(res.body);
      expect(await refundEvents(order.code)).to.equal(1);
    });

    it('lets a member refund, refuses a read-only key with 403, and any status but paid or refunded with 409', async () => {
      const t = await seed();
      const r = await panelRoles(app, t);
      const offer = activeOffer(t);
      const paid = await checkout(app, t, offer.code, null);
      const pending = await checkout(app, t, offer.code, null, { payment_method: 'pix' });

      expectError(await refund(paid.order.code, r.readOnly), 403, 'permission_error');
      expect(await refundEvents(paid.order.code)).to.equal(0);
      const byMember = await refund(paid.order.code, r.member);
      expect(byMember.status).to.equal(200);
      expect(byMember.body.status).to.equal('refunded');

      expectError(await refund(pending.order.code, r.owner), 409, 'conflict');
      expectError(await refund(pending.order.code, r.member), 409, 'conflict');
      const read = await app.http.get<PanelOrder>(`${P}/orders/${pending.order.code}`, { auth: r.readOnly });
      expect(read.body.status).to.equal('pending');
      expect(await refundEvents(pending.order.code)).to.equal(0);
    });
  });
});
