import { generateCnpj } from '@brazilian-utils/brazilian-utils';
import { expect } from 'chai';
import { seed } from '../helpers/app.js';
import { BOLETO_PAYER, connectMercadoPago, mercadoPagoWorld, offerLink, P, pay } from './helpers.js';

describe('Mercado Pago: a buyer company with an alphanumeric CNPJ (2026)', function () {
  this.timeout(60_000);
  const world = mercadoPagoWorld();

  it('pays a boleto with a masked, lower-case alphanumeric CNPJ, sent to MP as CNPJ in upper case', async () => {
    const tenant = await seed();
    const { seller } = await connectMercadoPago(world, tenant);
    const cnpj = generateCnpj(2);
    const masked = `${cnpj.slice(0, 2)}.${cnpj.slice(2, 5)}.${cnpj.slice(5, 8)}/${cnpj.slice(8, 12)}-${cnpj.slice(12)}`;
    const link = await offerLink(world.app, tenant);
    const ok = await pay(world.app, link.code, {
      plink: link.id,
      payment_method: 'boleto',
      ...BOLETO_PAYER,
      document: masked.toLowerCase(),
    });
    expect(ok.status, ok.page).to.equal(303);
    const code = ok.orderCode ?? '';
    const request = world.mp.requests.find((r) => r.headers['x-idempotency-key'] === code);
    expect(request?.userId).to.equal(seller.userId);
    expect((request?.body as { payer: unknown }).payer).to.deep.include({
      identification: { type: 'CNPJ', number: cnpj },
    });
    const order = await world.app.http.get<{ status: string; customer: { document: string } }>(
      `${P}/orders/${code}`,
      { auth: tenant.panel_token },
    );
    expect(order.body).to.deep.include({
      status: 'pending',
      customer: { ...order.body.customer, document: cnpj },
    });
  });

  it('refuses an alphanumeric CNPJ with a wrong check digit on the form, before MP is asked', async () => {
    const tenant = await seed();
    const { seller } = await connectMercadoPago(world, tenant);
    const cnpj = generateCnpj(2);
    const wrong = cnpj.slice(0, 13) + String((Number(cnpj[13]) + 1) % 10);
    const link = await offerLink(world.app, tenant);
    const res = await pay(
      world.app,
      link.code,
      { plink: link.id, payment_method: 'boleto', ...BOLETO_PAYER, document: wrong },
      { 'accept-language': 'pt-BR' },
    );
    expect(res.status).to.equal(400);
    expect(res.page).to.include('Este CNPJ não é válido.');
    expect(world.mp.paymentsOf(seller.userId)).to.have.length(0);
  });
});
