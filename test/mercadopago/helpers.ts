/**
 * A world for the Mercado Pago tests: the stand-in (test/helpers/mercadopago), then the service
 * (web app and in-process workers) configured with its addresses on a known port, so the
 * notification_url the service sends MP reaches it, and a webhook receiver.
 */
import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
import { freePort } from '../../src/infra/free-port.js';
import { findAccount } from '../../src/gateways/accounts/repository.js';
import { schema } from '../../src/shared/db/index.js';
import { eq } from 'drizzle-orm';
import { MercadoPagoStandIn, type Seller } from '../helpers/mercadopago/index.js';
import { noteSecret } from '../helpers/secrets.js';
import { Receiver, startEngine, type Engine } from '../events/helpers.js';
import { createLink, payPath } from '../checkout/helpers.js';
import type { TestApp } from '../helpers/app.js';

export const P = '/panel/v1';

/** The settings a deployment sets for its MP application (docs/mercadopago.md). */
export function mercadoPagoEnv(mp: MercadoPagoStandIn): Record<string, string> {
  return {
    ...mp.env(),
    MERCADOPAGO_CLIENT_ID: mp.clientId,
    MERCADOPAGO_CLIENT_SECRET: mp.clientSecret,
    MERCADOPAGO_WEBHOOK_SECRET: mp.webhookSecret,
  };
}

export interface MercadoPagoWorld {
  readonly mp: MercadoPagoStandIn;
  readonly engine: Engine;
  readonly receiver: Receiver;
  readonly app: TestApp;
}

/**
 * Registers, in the calling `describe`, hooks that start the stand-in, the service on a known port
 * with `env` over the MP settings, and a receiver; and close them after.
 */
export function mercadoPagoWorld(env: Record<string, string> = {}): MercadoPagoWorld {
  let mp: MercadoPagoStandIn | undefined;
  let engine: Engine | undefined;
  const receiver = new Receiver();
  let listening = false;
  before(async function () {
    this.timeout(60_000);
    mp = await MercadoPagoStandIn.start();
    const port = await freePort();
    engine = await startEngine({
      ...mercadoPagoEnv(mp),
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      // Nothing is read back from MP before a test asks, unless the test says otherwise.
      MERCADOPAGO_RECONCILE_AFTER_SECONDS: '3600',
      ...env,
    });
    await receiver.start();
    listening = true;
  });
  after(async () => {
    if (listening) await receiver.close();
    await engine?.close();
    await mp?.close();
  });
  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} starts in the before hook of mercadoPagoWorld`);
    return value;
  };
  return {
    get mp() {
      return need(mp, 'the stand-in');
    },
    get engine() {
      return need(engine, 'the engine');
    },
    get app() {
      return need(engine, 'the engine').app;
    },
    receiver,
  };
}

export interface WireIntegration {
  id: number;
  type: string;
  is_active: boolean;
  config: Record<string, string>;
}

/** Creates the company's MP gateway integration; answers its id. */
export async function createMercadoPagoGateway(app: TestApp, tenant: SeedResult): Promise<number> {
  const res = await app.http.post<WireIntegration>(`${P}/integrations/`, {
    auth: tenant.panel_token,
    body: { type: 'gateway', config: { provider: 'mercadopago' }, events: [] },
  });
  expect(res.status, res.text).to.equal(201);
  return res.body.id;
}

/** The company's pending authorization address (the alert's oauth_url). */
export async function oauthUrlOf(app: TestApp, tenant: SeedResult): Promise<URL> {
  const alert = await app.http.get<{ pending: boolean; oauth_url?: string }>(`${P}/integrations/alerts`, {
    auth: tenant.panel_token,
  });
  expect(alert.body.pending, alert.text).to.equal(true);
  return new URL(String(alert.body.oauth_url));
}

/** Path and query of an absolute URL on the service. */
export const onService = (url: string): string => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

/**
 * The whole round trip a seller makes: the gateway created, MP's consent given by `seller`, the
 * browser back at the service's callback. The account's tokens are noted as secrets, so the log
 * check of the run looks for them.
 */
export async function connectMercadoPago(
  world: Pick<MercadoPagoWorld, 'app' | 'mp'>,
  tenant: SeedResult,
  seller: Seller = world.mp.createSeller(),
): Promise<{ seller: Seller; integrationId: number }> {
  const integrationId = await createMercadoPagoGateway(world.app, tenant);
  const redirect = await world.mp.authorize((await oauthUrlOf(world.app, tenant)).href, seller);
  const done = await world.app.http.get(onService(redirect));
  expect(done.status, done.text).to.equal(200);
  await noteAccountSecrets(world.app, integrationId);
  return { seller, integrationId };
}

/** The tokens the service holds for an integration's account, noted for the run's log check. */
export async function noteAccountSecrets(app: TestApp, integrationId: number): Promise<void> {
  const [row] = await app.ctx.db
    .select({ id: schema.gatewayAccounts.id })
    .from(schema.gatewayAccounts)
    .where(eq(schema.gatewayAccounts.integrationId, integrationId));
  if (!row) return;
  const account = await findAccount(app.ctx.db, app.ctx.config.credentialsKey, row.id);
  if (account) for (const token of [account.accessToken, account.refreshToken]) noteSecret(token);
}

/** What the pay step answered: a 303 to the order's page, or a page of its own. */
export interface Purchase {
  status: number;
  /** The order's code, from the redirect to its page (303), if the pay step went through. */
  orderCode: string | undefined;
  /** The page's HTML when the answer was not a redirect. */
  page: string;
}

const BUYER = { name: 'Maria Souza', email: 'maria@example.com' };
export const BOLETO_PAYER = {
  document: '529.982.247-25',
  zip_code: '01310-100',
  street_name: 'Avenida Paulista',
  street_number: '1000',
  neighborhood: 'Bela Vista',
  city: 'São Paulo',
  state: 'SP',
};

/**
 * Posts the pay form of `code` (with `plink`) as the page would, without following the redirect;
 * `attempt` is the page's own id of the payment.
 */
export async function pay(
  app: TestApp,
  code: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Purchase> {
  const res = await fetch(`${app.url}${payPath(app, `/${code}/pay`)}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ ...BUYER, ...fields }).toString(),
  });
  const location = res.headers.get('location') ?? '';
  const match = /\/orders\/([0-9a-f-]{36})/.exec(location);
  return { status: res.status, orderCode: match?.[1], page: await res.text() };
}

/** A live link for the tenant's first active offer, and its code. */
export async function offerLink(
  app: TestApp,
  tenant: SeedResult,
  body: Record<string, unknown> = {},
): Promise<{ id: string; code: string }> {
  const offer = tenant.offers.find((o) => o.status === 'active');
  if (!offer) throw new Error('seed has no active offer');
  const link = await createLink(app, tenant.keys.live, { offer_code: offer.code, ...body });
  return { id: link.id, code: offer.code };
}
