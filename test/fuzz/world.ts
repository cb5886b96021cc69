import { seed, startTestApp, type TestApp } from '../helpers/app.js';
import { testEnvironment } from '../helpers/environment.js';
import { createIntegration, Receiver, startEngine } from '../events/helpers.js';
import { payPath, postForm } from '../checkout/helpers.js';
import { fuzzConfig } from './config.js';
import { loadDocument, type ApiDocument, type ApiName } from './documents.js';
import { sendRaw } from './raw-http.js';
import { ReferencePools, type Credentials } from './references.js';
import { TenantRows } from './rows.js';
import { RequestValidator } from './generate.js';

export type SeedResult = Awaited<ReturnType<typeof seed>>;

/** The service under test and what the suite learnt from it at start. */
export interface FuzzWorld {
  app: TestApp;
  baseUrl: string;
  docs: Record<ApiName, ApiDocument>;
  rows: TenantRows;
  validator: RequestValidator;
  /** `{checkout_url}` path on this service, read from an offer's documented `url`. */
  checkoutPath: string;
}

export interface FuzzTenant {
  seed: SeedResult;
  companyId: number;
  credentials: Credentials;
  pools: ReferencePools;
  /** Every credential of the tenant, so reports can hide them. */
  secrets: string[];
}

let world: Promise<FuzzWorld> | undefined;

/**
 * One app for every fuzz file. Simulate waits for first delivery attempts that no worker makes here,
 * so its wait is cut to the minimum; nothing else differs from the ordinary test app.
 */
export function fuzzWorld(): Promise<FuzzWorld> {
  world ??= (async () => {
    const app = await startTestApp({ SIMULATE_WAIT_MS: '100' });
    const [payments, panel] = await Promise.all([
      loadDocument(app.url, 'payments'),
      loadDocument(app.url, 'panel'),
    ]);
    const rows = await TenantRows.open(testEnvironment().databaseUrl);
    const probe = await seed();
    const offers = await sendRaw(app.url, {
      method: 'GET',
      path: payments.operations.find((o) => o.id === 'listOffers')?.fullTemplate ?? '/v1/offers',
      headers: { authorization: `Bearer ${probe.keys.test}` },
    });
    const list: unknown = offers.json;
    const items: unknown[] = Array.isArray(list)
      ? list
      : typeof list === 'object' && list !== null && 'data' in list && Array.isArray(list.data)
        ? list.data
        : [];
    const first = items[0];
    const url =
      typeof first === 'object' && first !== null && 'url' in first && typeof first.url === 'string'
        ? first.url
        : 'http://x/pay/x';
    const checkoutPath = new URL(url).pathname.replace(/\/[^/]*$/, '');
    console.log(
      `      fuzz: FUZZ_SEED=${fuzzConfig.seed}${fuzzConfig.seedFromEnv ? ' (from env)' : ' (random: set it to replay this run)'} FUZZ_RUNS=${fuzzConfig.runs} FUZZ_HOSTILE_RUNS=${fuzzConfig.hostileRuns}`,
    );
    return {
      app,
      baseUrl: app.url,
      docs: { payments, panel },
      rows,
      validator: new RequestValidator(),
      checkoutPath,
    };
  })();
  return world;
}

export async function newTenant(w: FuzzWorld): Promise<FuzzTenant> {
  const s = await seed();
  const credentials: Credentials = { payments: s.keys.test, panel: s.panel_token };
  return {
    seed: s,
    companyId: s.company.id,
    credentials,
    pools: new ReferencePools(w.baseUrl, [w.docs.payments, w.docs.panel], credentials),
    secrets: [s.keys.test, s.keys.live, s.keys.read_only, s.panel_token],
  };
}

/**
 * Webhook deliveries exist only once a worker has relayed an event, and the fuzz app runs none: a
 * short-lived engine (app plus workers) simulates one payment for the tenant, so `delivery_id` and
 * `starting_after` of the deliveries operations have real values to use.
 */
export async function giveDeliveries(tenant: FuzzTenant): Promise<void> {
  const receiver = await new Receiver().start();
  receiver.reply = (_req, index) => ({ status: index % 2 === 0 ? 200 : 500 });
  const engine = await startEngine({ SIMULATE_WAIT_MS: '5000' });
  try {
    await createIntegration(engine.app, tenant.seed, {
      url: receiver.url,
      events: ['order.paid', 'order.payment_declined', 'order.expired'],
      sendToAllProducts: true,
    });
    const offer = tenant.seed.offers.find((o) => o.status === 'active');
    for (const outcome of ['paid', 'failed']) {
      const link = await engine.app.http.post<{ id: string }>('/v1/payment-links', {
        auth: tenant.seed.keys.test,
        body: { offer_code: offer?.code },
      });
      if (link.status !== 201) throw new Error(`fixture link not created: ${link.status} ${link.text}`);
      const simulated = await engine.app.http.post(`/v1/payment-links/${link.body.id}/simulate`, {
        auth: tenant.seed.keys.test,
        body: { outcome },
      });
      if (simulated.status !== 200)
        throw new Error(`fixture simulate failed: ${simulated.status} ${simulated.text}`);
    }
  } finally {
    await engine.close();
    await receiver.close();
  }
}

/**
 * Orders and subscriptions exist only once a buyer has paid: the tenant's live links are paid at the
 * checkout (the fuzz app runs the dev gateway), so the orders and subscriptions operations have real
 * codes and ids to use: a paid and a pending order on an offer, and a paid plan (a subscription).
 */
export async function giveOrders(w: FuzzWorld, tenant: FuzzTenant): Promise<void> {
  const { offers, plans } = tenant.seed;
  const offer = offers.find((o) => o.status === 'active');
  const plan = plans.find((p) => p.status === 'active');
  if (!offer || !plan) throw new Error('seed has no active offer or plan');
  const purchases: Array<[{ offer_code: string } | { plan_code: string }, string, string]> = [
    [{ offer_code: offer.code }, offer.code, 'credit_card'],
    [{ offer_code: offer.code }, offer.code, 'pix'],
    [{ plan_code: plan.code }, plan.code, 'credit_card'],
  ];
  for (const [body, code, paymentMethod] of purchases) {
    const link = await w.app.http.post<{ id: string }>('/v1/payment-links', {
      auth: tenant.seed.keys.live,
      body,
    });
    if (link.status !== 201) throw new Error(`fixture link not created: ${link.status} ${link.text}`);
    const paid = await postForm(w.app, payPath(w.app, `/${code}/pay`), {
      plink: link.body.id,
      name: 'Fuzz Buyer',
      email: `fuzz-${tenant.companyId}@example.com`,
      payment_method: paymentMethod,
    });
    // The pay step leads (303, followed here) to the order's page.
    if (paid.status !== 200) throw new Error(`fixture checkout failed: ${paid.status}`);
  }
}
