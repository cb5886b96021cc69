/**
 * The rules of Mercado Pago's own reference the adapter keeps (decisions, "Mercado Pago as
 * documented"): each test fails against the adapter that broke the rule.
 */
import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
import { seed } from '../helpers/app.js';
import type { LoggedRequest } from '../helpers/mercadopago/index.js';
import { connectMercadoPago, mercadoPagoWorld, offerLink, P, pay, type MercadoPagoWorld } from './helpers.js';

interface PanelOrder {
  code: string;
  status: string;
  pix: { copy_paste: string; expires_at: string } | null;
  boleto: { digitable_line: string; barcode: string; due_date: string; url: string } | null;
}

const orderOf = async (world: MercadoPagoWorld, tenant: SeedResult, code: string): Promise<PanelOrder> => {
  const res = await world.app.http.get<PanelOrder>(`${P}/orders/${code}`, { auth: tenant.panel_token });
  expect(res.status, res.text).to.equal(200);
  return res.body;
};

/** The POST /v1/payments the service made for an order (its idempotency key), answered 201. */
function createdFor(world: MercadoPagoWorld, orderCode: string): LoggedRequest {
  const found = world.mp.requests.filter(
    (r) => r.method === 'POST' && r.path === '/v1/payments' && r.headers['x-idempotency-key'] === orderCode,
  );
  const last = found.at(-1);
  if (!last) throw new Error(`no POST /v1/payments for ${orderCode}`);
  expect(last.status, JSON.stringify(last.body)).to.equal(201);
  return last;
}

describe('Mercado Pago as documented: the requests MP accepts', function () {
  this.timeout(60_000);
  const world = mercadoPagoWorld();

  describe('Pix', () => {
    for (const seconds of [60, 1800, 1860, 7200]) {
      it(`tells MP a Pix deadline 30 min–30 days after sending, for a link's ${seconds} s, and keeps it as the order's`, async () => {
        const tenant = await seed();
        await connectMercadoPago(world, tenant);
        const link = await offerLink(world.app, tenant, { pix_expires_in_seconds: seconds });
        const paid = await pay(world.app, link.code, { plink: link.id, payment_method: 'pix' });
        expect(paid.status, paid.page).to.equal(303);
        const sent = createdFor(world, paid.orderCode ?? '');
        const told = String((sent.body as { date_of_expiration: unknown }).date_of_expiration);
        expect(told).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}-03:00$/);
        const ahead = (Date.parse(told) - sent.at.getTime()) / 1000;
        const wanted = Math.max(seconds, 1860);
        expect(ahead).to.be.within(wanted - 2, wanted + 2);
        const order = await orderOf(world, tenant, paid.orderCode ?? '');
        expect(order.pix?.expires_at).to.equal(new Date(told).toISOString());
      });
    }
  });
});
