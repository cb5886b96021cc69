import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
import { seed, sharedApp, type TestApp } from '../helpers/app.js';
import { panelRoles } from '../orders/helpers.js';
import { readable, send, signIn, type Session } from './helpers.js';

/**
 * The home: the last 30 days of one mode's sales, from orders written as the checkout writes them,
 * some paid, refunded, charged back, pending, older than the window or of the other mode.
 */
describe('dashboard home', function () {
  this.timeout(30_000);
  let app: TestApp;
  let tenant: SeedResult;
  let owner: Session;

  async function order(values: {
    livemode?: boolean;
    status: string;
    amount: string;
    method: 'credit_card' | 'pix' | 'boleto';
    createdDaysAgo: number;
    paidDaysAgo?: number;
    of?: SeedResult;
    platformFee?: string;
    gatewayFee?: string;
  }): Promise<void> {
    const company = values.of ?? tenant;
    await app.ctx.pool.query(
      `INSERT INTO orders (code, company_id, livemode, product_id, status, amount, payment_method, created_at, paid_at,
                           platform_fee, gateway_fee)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, now() - make_interval(days => $7::int),
               CASE WHEN $8::int IS NULL THEN NULL ELSE now() - make_interval(days => $8::int) END, $9, $10)`,
      [
        company.company.id,
        values.livemode ?? true,
        company.products[0]?.id,
        values.status,
        values.amount,
        values.method,
        values.createdDaysAgo,
        values.paidDaysAgo ?? null,
        values.platformFee ?? null,
        values.gatewayFee ?? null,
      ],
    );
  }

  before(async () => {
    app = await sharedApp();
    tenant = await seed();
    await order({
      status: 'paid',
      amount: '100.00',
      method: 'credit_card',
      createdDaysAgo: 0,
      paidDaysAgo: 0,
    });
    await order({ status: 'paid', amount: '50.00', method: 'pix', createdDaysAgo: 0, paidDaysAgo: 0 });
    await order({ status: 'paid', amount: '30.00', method: 'boleto', createdDaysAgo: 5, paidDaysAgo: 3 });
    await order({
      status: 'refunded',
      amount: '20.00',
      method: 'credit_card',
      createdDaysAgo: 2,
      paidDaysAgo: 2,
    });
    await order({
      status: 'charged_back',
      amount: '10.00',
      method: 'credit_card',
      createdDaysAgo: 1,
      paidDaysAgo: 1,
    });
    await order({ status: 'pending', amount: '70.00', method: 'pix', createdDaysAgo: 0 });
    await order({ status: 'abandoned', amount: '80.00', method: 'boleto', createdDaysAgo: 6 });
    // Outside the window, and of the other mode: not on the live home.
    await order({
      status: 'paid',
      amount: '999.00',
      method: 'credit_card',
      createdDaysAgo: 40,
      paidDaysAgo: 40,
    });
    await order({
      livemode: false,
      status: 'paid',
      amount: '7.00',
      method: 'pix',
      createdDaysAgo: 0,
      paidDaysAgo: 0,
    });
    owner = await signIn(app, tenant.panel_token);
  });

  it('sums the last 30 live days: net revenue, paid orders, average ticket, conversion, Pix and boleto', async () => {
    const page = await send(app, 'GET', '/?lang=en', { session: owner });
    expect(page.status).to.equal(200);
    const text = readable(page.text);
    expect(text).to.include(
      'Net revenue R$180.00 R$210.00 paid, less R$20.00 refunded, R$10.00 charged back and R$0.00 in fees.',
    );
    expect(text).to.include('Paid orders 5');
    expect(text).to.include('Average ticket R$42.00');
    expect(text).to.include('Conversion 71.4% 5 paid of 7 orders created.');
    expect(text).to.include('Pix 2 generated, 1 paid');
    expect(text).to.include('Boleto 2 generated, 1 paid');
    expect(page.text).not.to.include('R$999.00');
  });

  it('counts revenue net of the platform’s and the payment processor’s fees of the orders kept', async () => {
    const seller = await seed();
    const fees = { platformFee: '5.00', gatewayFee: '4.99', createdDaysAgo: 0, paidDaysAgo: 0 };
    await order({ of: seller, status: 'paid', amount: '100.00', method: 'credit_card', ...fees });
    // A refunded order's amount goes back whole: its fees are not taken a second time.
    await order({ of: seller, status: 'refunded', amount: '20.00', method: 'pix', ...fees });
    const session = await signIn(app, seller.panel_token);
    const text = readable((await send(app, 'GET', '/?lang=en', { session })).text);
    expect(text).to.include(
      'Net revenue R$90.01 R$120.00 paid, less R$20.00 refunded, R$0.00 charged back and R$9.99 in fees.',
    );
  });

  it('draws the revenue per day as an SVG image with a title, and the same figures in a table', async () => {
    const page = await send(app, 'GET', '/?lang=en', { session: owner });
    const svg = /<svg[^>]*role="img"[^>]*>[\s\S]*?<\/svg>/.exec(page.text)?.[0] ?? '';
    expect(svg).to.match(/aria-labelledby="chart-title"/);
    expect(svg).to.match(/<title id="chart-title">Net revenue per day by payment method<\/title>/);
    // Today's bar: card and Pix; three more days with a bar (the boleto, and the two taken back show none).
    expect(svg.match(/<rect\s/g)?.length).to.equal(3);
    expect(readable(page.text)).to.match(
      /R\$180\.00 in the last 30 days; the best day was \d\d\/\d\d\/\d{4} \(R\$150\.00\)/,
    );
    // The days' table (the page's other table is the revenue by utm_source).
    const days = /<table class="figures">[\s\S]*?<\/table>/.exec(page.text)?.[0] ?? '';
    const rows = [...days.matchAll(/<tr>\s*<th scope="row">[\s\S]*?<\/tr>/g)].map((m) =>
      readable(m[0]).trim(),
    );
    expect(rows).to.have.length(30);
    expect(rows[0]).to.match(/^\d\d\/\d\d\/\d{4} R\$100\.00 R\$50\.00 R\$0\.00 R\$150\.00$/);
    // Refunded and charged back days net to zero; the boleto's day shows it.
    expect(rows.filter((r) => / R\$30\.00 R\$30\.00$/.test(r))).to.have.length(1);
  });

  it('shows the test mode when asked, in Portuguese with Brazilian amounts', async () => {
    const page = await send(app, 'GET', '/?mode=test&lang=pt-BR', { session: owner });
    expect(page.status).to.equal(200);
    const text = readable(page.text);
    expect(text).to.include('Receita líquida R$ 7,00');
    expect(text).to.include('Pedidos pagos 1');
    expect(page.text).to.match(
      /<a href="\/dashboard\?mode=test&amp;lang=pt-BR" aria-current="page">Teste<\/a>/,
    );
  });

  it('writes every label of the chart’s scale as the page’s language writes money, zero included', async () => {
    const labels = async (lang: string): Promise<string[]> => {
      const page = await send(app, 'GET', `/?lang=${lang}`, { session: owner });
      const svg = /<svg[^>]*role="img"[^>]*>[\s\S]*?<\/svg>/.exec(page.text)?.[0] ?? '';
      return [...svg.matchAll(/<text[^>]*text-anchor="end"[^>]*>([^<]*)<\/text>/g)].map((m) =>
        (m[1] ?? '').replace(/\s/g, ' '),
      );
    };
    // The best day took R$ 150,00: a scale of R$ 200,00, marked at zero, half and top.
    expect(await labels('pt-BR')).to.deep.equal(['R$ 0,00', 'R$ 100,00', 'R$ 200,00']);
    expect(await labels('en')).to.deep.equal(['R$0.00', 'R$100.00', 'R$200.00']);
  });

  it('refuses a mode it does not know with a 400 page naming the field', async () => {
    const page = await send(app, 'GET', '/?mode=sandbox&lang=en', { session: owner });
    expect(page.status).to.equal(400);
    expect(readable(page.text)).to.include('Choose live or test');
  });

  it('shows owners, members and read-only sign-ins the same figures; the link to create a link to those who may', async () => {
    const roles = await panelRoles(app, tenant);
    for (const [role, credential] of Object.entries(roles)) {
      const session = await signIn(app, credential);
      const page = await send(app, 'GET', '/?lang=en', { session });
      expect(page.status, role).to.equal(200);
      expect(readable(page.text), role).to.include('Net revenue R$180.00');
      const forms = [...page.text.matchAll(/<form method="post" action="([^"]+)"/g)].map((m) => m[1]);
      expect(forms, role).to.deep.equal(['/dashboard/sign-out?lang=en']);
      expect(page.text.includes('/links/new'), role).to.equal(role !== 'readOnly');
    }
  });

  it('sends a visitor without a session to the sign-in page', async () => {
    const page = await send(app, 'GET', '/');
    expect(page.status).to.equal(303);
    expect(page.location).to.equal('/dashboard/sign-in');
  });
});
