import { seed, startTestApp, type TestApp } from '../helpers/app.js';
import { testEnvironment } from '../helpers/environment.js';
import { createIntegration, Receiver, startEngine } from '../events/helpers.js';
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
      `      fuzz: FUZZ_SEED=${fuzzConfig.seed}${fuzzConfig.seedFromEnv ? ' (from env)' : ''} FUZZ_RUNS=${fuzzConfig.runs} FUZZ_HOSTILE_RUNS=${fuzzConfig.hostileRuns}`,
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
