import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
import { freePort } from '../../src/infra/free-port.js';
import type { TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { noteSecret } from '../helpers/secrets.js';
import { startFocusStandIn, type FocusStandIn } from '../helpers/focusnfe/server.js';
import { checkout, P, type PanelOrder } from '../orders/helpers.js';
import { activeOffer } from '../checkout/helpers.js';
import { sellerWorld, type SellerWorld } from '../emails/helpers.js';

export const CNPJ = '11222333000181';
export const IM = '12345';
export const CITY = '3550308';
/** A valid CPF (its check digits hold). */
export const BUYER_CPF = '52998224725';

export interface OrderInvoice {
  status: string;
  number: string | null;
  pdf_url: string | null;
  xml_url: string | null;
  message: string | null;
}
export type InvoicedOrder = PanelOrder & { invoice: OrderInvoice | null };

export interface InvoiceWorld extends SellerWorld {
  readonly focus: FocusStandIn;
  readonly token: string;
}

/** A running Focus NFe stand-in and the seller's token there; read both once the before hooks ran. */
export interface FocusSeller {
  readonly focus: FocusStandIn;
  readonly token: string;
}

/**
 * Starts a Focus NFe stand-in in a before hook (register it before the engine's, which reads
 * `env.FOCUSNFE_API_URL`), where the seller's company is registered and its municipality issues NFS-e
 * and requires the buyer's CPF or CNPJ; stops it after.
 */
export function focusStandInFor(env: Record<string, string>): FocusSeller {
  let focus: FocusStandIn | undefined;
  let token = '';
  before(async () => {
    focus = await startFocusStandIn();
    env.FOCUSNFE_API_URL = focus.url;
    token = focus.addCompany({ cnpj: CNPJ, inscricaoMunicipal: IM });
    // The log check searches every log line for it.
    noteSecret(token);
    focus.municipalities.set(CITY, {
      codigo_municipio: CITY,
      nome_municipio: 'São Paulo',
      sigla_uf: 'SP',
      nfse_habilitada: true,
      status_nfse: 'ativo',
      endereco_obrigatorio_nfse: false,
      cpf_cnpj_obrigatorio_nfse: true,
      item_lista_servico_obrigatorio_nfse: true,
      items: ['0802', '0107'],
    });
  });
  after(() => focus?.close());
  return {
    get focus() {
      if (!focus) throw new Error('the stand-in starts in a before hook');
      return focus;
    },
    get token() {
      return token;
    },
  };
}

/**
 * A seller with the engine pointed at a Focus NFe stand-in (started first). `publicPort`: the engine
 * listens on a port known before it starts, and its public address is 127.0.0.1 there, so the
 * stand-in can call the webhook addresses the engine gives it.
 */
export function invoiceWorld(options: { publicPort?: boolean } = {}): InvoiceWorld {
  const env: Record<string, string> = { FOCUSNFE_TIMEOUT_MS: '1000' };
  const seller = focusStandInFor(env);
  if (options.publicPort)
    before(async () => {
      const port = await freePort();
      env.PORT = String(port);
      env.PUBLIC_BASE_URL = `http://127.0.0.1:${port}`;
    });
  const world = sellerWorld({ env });
  return Object.defineProperties(world, {
    focus: { get: () => seller.focus },
    token: { get: () => seller.token },
  }) as InvoiceWorld;
}

export const invoiceConfig = (token: string, overrides: Record<string, unknown> = {}) => ({
  provider: 'focusnfe',
  token,
  cnpj: CNPJ,
  inscricao_municipal: IM,
  codigo_municipio: CITY,
  item_lista_servico: '0802',
  aliquota: 2,
  iss_retido: false,
  discriminacao: 'Curso {product} - pedido {order_code}',
  ...overrides,
});

/** Creates the tenant's invoice integration through the panel (every product). */
export async function createInvoiceIntegration(
  app: TestApp,
  tenant: SeedResult,
  config: Record<string, unknown>,
): Promise<number> {
  const res = await app.http.post<{ id: number }>(`${P}/integrations/`, {
    auth: tenant.panel_token,
    body: { type: 'invoice', events: [], send_to_all_products: true, config },
  });
  expect(res.status, res.text).to.equal(201);
  return res.body.id;
}

/** A live card purchase at the checkout, paid at once (the dev gateway), with the buyer's CPF or not. */
export async function paidOrder(
  app: TestApp,
  tenant: SeedResult,
  buyer: { document?: string; name?: string } = {},
): Promise<PanelOrder> {
  const { order } = await checkout(app, tenant, activeOffer(tenant).code, null, {
    payment_method: 'credit_card',
    name: buyer.name ?? 'Bia Buyer',
    ...(buyer.document ? { document: buyer.document } : {}),
  });
  expect(order.status).to.equal('paid');
  return order;
}

export const panelOrder = async (app: TestApp, tenant: SeedResult, code: string): Promise<InvoicedOrder> => {
  const res = await app.http.get<InvoicedOrder>(`${P}/orders/${code}`, { auth: tenant.panel_token });
  expect(res.status, res.text).to.equal(200);
  return res.body;
};

/** The order once its invoice reached `status` (read through the panel). */
export const invoiceReaches = (
  app: TestApp,
  tenant: SeedResult,
  code: string,
  status: string,
  timeoutMs = 30_000,
): Promise<InvoicedOrder> =>
  eventually(
    async () => {
      const order = await panelOrder(app, tenant, code);
      return order.invoice?.status === status ? order : undefined;
    },
    timeoutMs,
    `invoice of ${code} ${status}`,
  );

/** The events of the tenant's live account of these kinds, through the events API. */
export async function eventsOf(
  app: TestApp,
  tenant: SeedResult,
  type: string,
): Promise<Array<{ type: string; data: { order: { code: string }; invoice: OrderInvoice } }>> {
  const res = await app.http.get<{
    data: Array<{ type: string; data: { order: { code: string }; invoice: OrderInvoice } }>;
  }>(`/v1/events?type=${type}&limit=100`, { auth: tenant.keys.live });
  expect(res.status, res.text).to.equal(200);
  return res.body.data;
}

/** The id and round of an order's invoice (its job's id is made of them). */
export async function invoiceRowOf(app: TestApp, code: string): Promise<{ id: number; round: number }> {
  const { rows } = await app.ctx.pool.query<{ id: string; round: number }>(
    'SELECT id, round FROM order_invoices WHERE order_code = $1',
    [code],
  );
  const row = rows[0];
  if (!row) throw new Error(`no invoice of ${code}`);
  return { id: Number(row.id), round: row.round };
}
