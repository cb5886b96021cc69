import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
import { seed, sharedApp, startTestApp, type TestApp } from '../helpers/app.js';
import { panelRoles } from '../orders/helpers.js';
import { recordStatements, send, signIn, type Session } from './helpers.js';

const BOM = '\ufeff';

/**
 * The orders page's filters as a spreadsheet: one line per order in the page's language (pt-BR: `;`
 * and decimal commas; English: `,` and dots), UTF-8 with a BOM, streamed in batches.
 */
describe('dashboard orders CSV', function () {
  this.timeout(120_000);
  let app: TestApp;
  let tenant: SeedResult;
  let owner: Session;

  async function order(values: {
    name: string;
    email: string;
    amount: string;
    status: string;
    method: string;
    installments?: number;
    livemode?: boolean;
    paid?: string;
    refunded?: string;
    created: string;
    platformFee?: string;
    gatewayFee?: string;
    tracking?: Record<string, string>;
  }): Promise<string> {
    const { rows } = await app.ctx.pool.query<{ code: string }>(
      `INSERT INTO orders (code, company_id, livemode, product_id, status, amount, payment_method, installments,
                           customer, created_at, paid_at, refunded_at, platform_fee, gateway_fee, tracking)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING code`,
      [
        tenant.company.id,
        values.livemode ?? true,
        tenant.products[0]?.id,
        values.status,
        values.amount,
        values.method,
        values.installments ?? null,
        JSON.stringify({ name: values.name, email: values.email, phone: null, document: null }),
        values.created,
        values.paid ?? null,
        values.refunded ?? null,
        values.platformFee ?? null,
        values.gatewayFee ?? null,
        values.tracking ? JSON.stringify(values.tracking) : null,
      ],
    );
    return rows[0]?.code ?? '';
  }

  let paidCode: string;
  let refundedCode: string;

  before(async () => {
    app = await sharedApp();
    tenant = await seed();
    owner = await signIn(app, tenant.panel_token);
    paidCode = await order({
      name: 'Silva; Ana "Aninha"',
      email: 'ana@example.com',
      amount: '1594.50',
      status: 'paid',
      method: 'credit_card',
      installments: 3,
      created: '2026-11-20T13:00:00Z',
      paid: '2026-11-20T13:01:02Z',
      platformFee: '79.73',
      gatewayFee: '39.86',
      // The campaign columns, a formula-looking one kept inert; the click id is never exported.
      tracking: { utm_source: 'instagram', utm_campaign: '=evil()', fbclid: 'IwAR-not-exported' },
    });
    refundedCode = await order({
      name: '=HYPERLINK("http://evil.example")',
      email: 'joão@example.com',
      amount: '97.00',
      status: 'refunded',
      method: 'pix',
      created: '2026-11-19T02:30:00Z',
      paid: '2026-11-19T02:31:00Z',
      refunded: '2026-11-21T10:00:00Z',
    });
    await order({
      name: 'Teste',
      email: 't@example.com',
      amount: '5.00',
      status: 'paid',
      method: 'boleto',
      livemode: false,
      created: '2026-11-18T12:00:00Z',
      paid: '2026-11-18T12:00:00Z',
    });
  });

  it('writes pt-BR for a Portuguese spreadsheet: BOM, semicolons, decimal commas, Brasília dates, quoted and inert text', async () => {
    const file = await send(app, 'GET', '/orders.csv?mode=live&lang=pt-BR', { session: owner });
    expect(file.status).to.equal(200);
    expect(file.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
    expect(file.headers.get('content-disposition')).to.match(
      /^attachment; filename="pedidos-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    // fetch's text() drops a leading BOM: read the bytes.
    const raw = await fetch(`${app.url}/dashboard/orders.csv?mode=live&lang=pt-BR`, {
      headers: { cookie: owner.cookie },
    });
    const bytes = Buffer.from(await raw.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).to.deep.equal([0xef, 0xbb, 0xbf]);
    const text = bytes.toString('utf8');
    expect(text.startsWith(BOM)).to.equal(true);
    const lines = text.slice(1).split('\r\n');
    expect(lines[0]).to.equal(
      'Pedido;Criado em (Brasília);Comprador;E-mail do comprador;Produto;Valor (R$);Taxa da plataforma (R$);Taxa do processador (R$);Valor líquido (R$);Forma de pagamento;Parcelas;Estado;Pago em (Brasília);Reembolsado em (Brasília);Nota fiscal;Número da nota;utm_source;utm_medium;utm_campaign;utm_content;utm_term;src;sck',
    );
    const product = tenant.products[0]?.name ?? '';
    expect(lines[1]).to.equal(
      `${paidCode};20/11/2026 10:00:00;"Silva; Ana ""Aninha""";ana@example.com;${product};1594,50;79,73;39,86;1474,91;Cartão de crédito;3;Pago;20/11/2026 10:01:02;;;;instagram;;'=evil();;;;`,
    );
    expect(lines[2]).to.equal(
      `${refundedCode};18/11/2026 23:30:00;"'=HYPERLINK(""http://evil.example"")";joão@example.com;${product};97,00;0,00;0,00;97,00;Pix;;Reembolsado;18/11/2026 23:31:00;21/11/2026 07:00:00;;;;;;;;;`,
    );
    expect(lines.slice(3)).to.deep.equal(['']);
  });

  it('writes English with commas and dots, and follows the page’s status and mode filters', async () => {
    const file = await send(app, 'GET', '/orders.csv?status=refunded&lang=en', { session: owner });
    const lines = file.text.replace(BOM, '').split('\r\n');
    expect(lines[0]).to.equal(
      'Order,Created (Brasília),Buyer,Buyer e-mail,Product,Amount (BRL),Platform fee (BRL),Processor fee (BRL),Net amount (BRL),Payment method,Instalments,Status,Paid (Brasília),Refunded (Brasília),Invoice,Invoice number,utm_source,utm_medium,utm_campaign,utm_content,utm_term,src,sck',
    );
    expect(lines[1]).to.match(
      new RegExp(
        `^${refundedCode},2026-11-18 23:30:00,.*,97\\.00,0\\.00,0\\.00,97\\.00,Pix,,Refunded,2026-11-18 23:31:00,2026-11-21 07:00:00,,,,,,,,,$`,
      ),
    );
    expect(lines).to.have.length(3);
    const test = await send(app, 'GET', '/orders.csv?mode=test&lang=en', { session: owner });
    const testLines = test.text.split('\r\n').filter(Boolean);
    expect(testLines).to.have.length(2);
    expect(testLines[1]).to.include(',5.00,0.00,0.00,5.00,Boleto,');
    const page = await send(app, 'GET', '/orders?status=refunded&lang=en', { session: owner });
    expect(page.text).to.include('href="/dashboard/orders.csv?status=refunded&amp;lang=en" download');
    const refused = await send(app, 'GET', '/orders.csv?status=lost&lang=en', { session: owner });
    expect(refused.status).to.equal(400);
    expect(refused.headers.get('content-type')).to.match(/^text\/html/);
  });

  it('gives the file to owners, members and read-only sign-ins alike, and no one signed out', async () => {
    for (const [role, credential] of Object.entries(await panelRoles(app, tenant))) {
      const session = await signIn(app, credential);
      const file = await send(app, 'GET', '/orders.csv?lang=en', { session });
      expect(file.status, role).to.equal(200);
      expect(file.text.split('\r\n').filter(Boolean), role).to.have.length(4);
    }
    const anonymous = await send(app, 'GET', '/orders.csv');
    expect(anonymous.status).to.equal(303);
  });

  it('streams 100,000 orders in batches of 1,000, the first bytes before the last batch is read, with bounded memory', async () => {
    const big = await seed();
    await app.ctx.pool.query(
      `INSERT INTO orders (code, company_id, livemode, product_id, status, amount, payment_method, customer, created_at, paid_at)
       SELECT gen_random_uuid(), $1, true, $2, 'paid', (10 + i % 990)::numeric(12,2), 'pix',
              jsonb_build_object('name', 'Buyer ' || i, 'email', 'buyer' || i || '@example.com'),
              now() - make_interval(secs => i), now() - make_interval(secs => i)
         FROM generate_series(1, 100000) AS i`,
      [big.company.id, big.products[0]?.id],
    );
    // A web process of its own, so the statements watched are this download's.
    const own = await startTestApp();
    try {
      const session = await signIn(own, big.panel_token);
      const watch = recordStatements(own.ctx.pool);
      // Live memory, not garbage waiting for the collector: heapUsed read between collections swings
      // by tens of MiB with the collector's timing (a CI run read 69 MiB of mostly garbage). A forced
      // collection before each megabyte's reading makes it what the download keeps alive (about 1 MiB
      // here); holding the 16 MiB file, or its 100,000 rows, would cross the bound.
      const collect = forcedCollector();
      collect();
      const baseline = process.memoryUsage().heapUsed;
      let peak = baseline;
      let nextReadingAt = 0;
      let firstChunkAt = 0;
      let lines = 0;
      let bytes = 0;
      try {
        const res = await fetch(`${own.url}/dashboard/orders.csv?lang=en`, {
          headers: { cookie: session.cookie },
        });
        expect(res.status).to.equal(200);
        const reader = res.body?.getReader();
        if (!reader) throw new Error('no body');
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          firstChunkAt ||= performance.now();
          bytes += value.byteLength;
          for (const byte of value) if (byte === 0x0a) lines++;
          if (bytes >= nextReadingAt) {
            nextReadingAt = bytes + 2 ** 20;
            collect();
            peak = Math.max(peak, process.memoryUsage().heapUsed);
          }
        }
      } finally {
        watch.stop();
      }
      expect(lines).to.equal(100_001);
      const batches = watch.taken.filter((s) => /from "orders"/i.test(s.text) && /limit/i.test(s.text));
      expect(batches.length).to.be.within(100, 101);
      expect(batches.every((s) => /limit \$\d+/i.test(s.text))).to.equal(true);
      expect(firstChunkAt, 'the first bytes arrived before the last batch was read').to.be.below(
        batches.at(-1)?.start ?? 0,
      );
      const grown = (peak - baseline) / 2 ** 20;
      expect(
        grown,
        `heap grew ${grown.toFixed(1)} MiB for a ${(bytes / 2 ** 20).toFixed(1)} MiB file`,
      ).to.be.below(8);
    } finally {
      await own.close();
      // The suite's closing log check searches every stored buyer e-mail in the service logs, one
      // scan each: 100,000 synthetic ones, which never passed through the service, would make it run
      // for tens of minutes. They are this test's own rows, so it removes them.
      await app.ctx.pool.query(
        `DELETE FROM orders WHERE company_id = $1 AND customer->>'email' ~ '^buyer[0-9]+@example\\.com$'`,
        [big.company.id],
      );
    }
  });
});

/** The engine's collector, reached without starting Node with --expose-gc. */
function forcedCollector(): () => void {
  v8.setFlagsFromString('--expose-gc');
  const gc: unknown = runInNewContext('gc');
  if (typeof gc !== 'function') throw new Error('the garbage collector could not be exposed');
  return () => void gc();
}
