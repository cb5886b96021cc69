import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
import { freePort } from '../../src/infra/free-port.js';
import { seed, type TestApp } from '../helpers/app.js';
import { startEngine, type Engine } from '../events/helpers.js';
import { testEnvironment } from '../helpers/environment.js';
import { buyerAddress, type ArrivedMail } from '../helpers/smtp.js';
import { payPath, postForm } from '../checkout/helpers.js';
import { P, type List, type PanelOrder } from '../orders/helpers.js';

export interface OrderWithEmails extends PanelOrder {
  emails: Array<{ kind: string; to: string; state: string; sent_at: string | null }>;
}

export interface Purchase {
  method?: 'credit_card' | 'pix' | 'boleto';
  lang?: 'pt-BR' | 'en';
  email?: string;
  name?: string;
  consent?: boolean;
  installments?: number;
  /** The offer or plan code (default: the tenant's first active offer). */
  code?: string;
  /** Through this payment link (its code must be the link's). */
  plink?: string;
}

/** Buys at the checkout as a buyer would (HTTP in), and returns the order the panel shows. */
export async function buy(
  app: TestApp,
  tenant: SeedResult,
  purchase: Purchase = {},
): Promise<{ order: OrderWithEmails; email: string }> {
  const email = purchase.email ?? buyerAddress();
  const code = purchase.code ?? tenant.offers.find((o) => o.status === 'active')?.code ?? '';
  const page = await postForm(app, payPath(app, `/${code}/pay?lang=${purchase.lang ?? 'pt-BR'}`), {
    ...(purchase.plink ? { plink: purchase.plink } : {}),
    name: purchase.name ?? 'Bia Buyer',
    email,
    payment_method: purchase.method ?? 'pix',
    ...(purchase.installments ? { installments: String(purchase.installments) } : {}),
    ...(purchase.consent ? { recovery_consent: 'yes' } : {}),
  });
  expect(page.status, page.body.slice(0, 500)).to.equal(200);
  const list = await app.http.get<List<OrderWithEmails>>(`${P}/orders?limit=100`, {
    auth: tenant.panel_token,
  });
  const order = list.body.data.find((o) => o.customer.email === email);
  if (!order) throw new Error(`no order of ${email}`);
  return { order, email };
}

export const panelOrder = async (app: TestApp, tenant: SeedResult, code: string): Promise<OrderWithEmails> =>
  (await app.http.get<OrderWithEmails>(`${P}/orders/${code}`, { auth: tenant.panel_token })).body;

/** The run's SMTP server on loopback. */
export const smtp = () => testEnvironment().smtp;

/** The one e-mail that arrived for `to` with a subject matching `subject`, waiting for it. */
export async function mailTo(to: string, subject: RegExp, timeoutMs = 30_000): Promise<ArrivedMail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = smtp()
      .to(to)
      .filter((m) => subject.test(m.parsed.subject ?? ''));
    if (found.length > 1) throw new Error(`${found.length} e-mails matching ${subject} for ${to}`);
    if (found[0]) return found[0];
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`no e-mail matching ${subject} for ${to}`);
    await smtp()
      .waitFor(to, smtp().to(to).length + 1, left)
      .catch(() => undefined);
  }
}

/** The message rows of a company, oldest first. */
export async function messagesOf(
  app: TestApp,
  companyId: number,
): Promise<
  Array<{
    id: number;
    kind: string;
    recipient: string;
    state: string;
    send_at: Date;
    order_code: string | null;
  }>
> {
  const { rows } = await app.ctx.pool.query<{
    id: string;
    kind: string;
    recipient: string;
    state: string;
    send_at: Date;
    order_code: string | null;
  }>(
    'SELECT id, kind, recipient, state, send_at, order_code FROM email_messages WHERE company_id = $1 ORDER BY id',
    [companyId],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

/** The text of the HTML part with tags removed, for reading what a mail client shows. */
export const htmlText = (mail: ArrivedMail): string =>
  String(mail.parsed.html || '')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ');

/** A suite's engine (app and in-process workers) and its seller: started before its tests, closed after. */
export interface SellerWorld {
  readonly engine: Engine;
  readonly tenant: SeedResult;
  readonly app: TestApp;
}

/**
 * Registers, in the `describe` it is called from, a `before` that starts an engine (`env`) and seeds
 * a company (`name`), and an `after` that closes the engine.
 */
export function sellerWorld(
  options: { env?: Record<string, string>; name?: string; localhost?: boolean } = {},
): SellerWorld {
  let engine: Engine | undefined;
  let tenant: SeedResult | undefined;
  before(async () => {
    // `localhost`: links are made for localhost, and a browser opens them under 127.0.0.1.
    const port = options.localhost ? await freePort() : undefined;
    const local: Record<string, string> = port
      ? { PORT: String(port), PUBLIC_BASE_URL: `http://localhost:${port}` }
      : {};
    engine = await startEngine({ ...local, ...options.env });
    tenant = await seed(options.name === undefined ? {} : { name: options.name });
  });
  after(() => engine?.close());
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the world starts in the before hook of sellerWorld');
    return value;
  };
  return {
    get engine() {
      return started(engine);
    },
    get tenant() {
      return started(tenant);
    },
    get app() {
      return started(engine).app;
    },
  };
}
