import { randomUUID } from 'node:crypto';
import type { Pool } from 'undici';
import { pick, sleep } from './util.js';

export interface LinkRef {
  id: string;
  /** Offer or plan code: the checkout path of a live link. */
  code: string;
  test: boolean;
}

/** One seeded company as the traffic sees it. */
export interface Tenant {
  companyId: number;
  panelToken: string;
  readOnlyKey: string;
  testKeys: string[];
  liveKeys: string[];
  offerCodes: string[];
  planCodes: string[];
  integrationIds: number[];
  /** Active links nobody is changing: an operation that changes one takes it out first. */
  activeTest: LinkRef[];
  activeLive: LinkRef[];
  /** Recent links of any status, for reads. */
  recent: LinkRef[];
}

export const ENDPOINTS = [
  'POST /v1/payment-links (test)',
  'POST /v1/payment-links (live)',
  'GET /v1/payment-links/{id}',
  'GET /v1/payment-links',
  'POST /v1/payment-links/{id}/cancel',
  'POST /v1/payment-links/{id}/simulate',
  'GET /v1/offers',
  'GET /pay/{code}?plink=',
  'POST /pay/{code}/pay',
  'GET /panel/v1/integrations/',
  'GET /panel/v1/integrations/{id}/deliveries',
] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

/** Relative weight of each operation in the mix. */
export type Mix = Record<Endpoint, number>;

export const DEFAULT_MIX: Mix = {
  'POST /v1/payment-links (test)': 12,
  'POST /v1/payment-links (live)': 12,
  'GET /v1/payment-links/{id}': 20,
  'GET /v1/payment-links': 8,
  'POST /v1/payment-links/{id}/cancel': 4,
  'POST /v1/payment-links/{id}/simulate': 8,
  'GET /v1/offers': 3,
  'GET /pay/{code}?plink=': 5,
  'POST /pay/{code}/pay': 8,
  'GET /panel/v1/integrations/': 4,
  'GET /panel/v1/integrations/{id}/deliveries': 4,
};

export class EndpointStats {
  count = 0;
  readonly latencies: number[] = [];
  readonly statuses = new Map<number, number>();
  serverErrors = 0;
  /** Statuses other than the one the operation expects, below 500 (429 included). */
  unexpected = 0;
  networkErrors = 0;
  readonly errorKinds = new Map<string, number>();

  record(latencyMs: number, status: number, expected: number): void {
    this.count += 1;
    this.latencies.push(latencyMs);
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    if (status >= 500) this.serverErrors += 1;
    else if (status !== expected) this.unexpected += 1;
  }

  recordNetworkError(kind: string): void {
    this.networkErrors += 1;
    this.errorKinds.set(kind, (this.errorKinds.get(kind) ?? 0) + 1);
  }
}

export interface TrafficOptions {
  concurrency: number;
  /** Cap on requests per second over all virtual users; unset: as fast as the service answers. */
  ratePerSecond?: number;
  mix?: Mix;
}

const POOL_CAP = 300;
const RECENT_CAP = 200;

const push = (list: LinkRef[], link: LinkRef, cap: number): void => {
  list.push(link);
  if (list.length > cap) list.splice(0, list.length - cap);
};

const takeRandom = (list: LinkRef[]): LinkRef | undefined => {
  if (list.length === 0) return undefined;
  const index = Math.floor(Math.random() * list.length);
  const [link] = list.splice(index, 1);
  return link;
};

interface Reply {
  status: number;
  body: string;
}

/**
 * Closed-loop virtual users, each picking an operation by weight for a random company. Operations
 * that change a link own it meanwhile, so every answer has one expected status and anything else
 * is counted: 5xx, other statuses, network errors. Samples of each are kept for the report.
 */
export class Traffic {
  readonly stats = new Map<Endpoint, EndpointStats>(ENDPOINTS.map((e) => [e, new EndpointStats()]));
  inFlight = 0;
  /** Requests under way per endpoint: a fault can wait until the calls it is aimed at are in flight. */
  readonly inFlightBy = new Map<Endpoint, number>();
  startedAt = 0;
  stoppedAt = 0;
  readonly samples: string[] = [];
  private running = false;
  private users: Array<Promise<void>> = [];
  private nextSlot = 0;
  private readonly cumulative: Array<[Endpoint, number]>;
  private readonly totalWeight: number;
  private sequence = 0;

  constructor(
    private readonly http: Pool,
    private readonly tenants: Tenant[],
    private readonly options: TrafficOptions,
  ) {
    const mix = options.mix ?? DEFAULT_MIX;
    let sum = 0;
    this.cumulative = ENDPOINTS.filter((e) => mix[e] > 0).map((e) => {
      sum += mix[e];
      return [e, sum];
    });
    this.totalWeight = sum;
  }

  start(): void {
    this.running = true;
    this.startedAt = Date.now();
    this.nextSlot = performance.now();
    this.users = Array.from({ length: this.options.concurrency }, () => this.user());
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.users);
    this.stoppedAt = Date.now();
  }

  get seconds(): number {
    return ((this.stoppedAt || Date.now()) - this.startedAt) / 1000;
  }

  totals(): { requests: number; serverErrors: number; unexpected: number; networkErrors: number } {
    let requests = 0;
    let serverErrors = 0;
    let unexpected = 0;
    let networkErrors = 0;
    for (const s of this.stats.values()) {
      requests += s.count + s.networkErrors;
      serverErrors += s.serverErrors;
      unexpected += s.unexpected;
      networkErrors += s.networkErrors;
    }
    return { requests, serverErrors, unexpected, networkErrors };
  }

  private async user(): Promise<void> {
    while (this.running) {
      if (this.options.ratePerSecond) {
        // A shared schedule of slots spreads the requests of all users evenly over each second.
        const slot = this.nextSlot;
        this.nextSlot = Math.max(this.nextSlot, performance.now()) + 1000 / this.options.ratePerSecond;
        const wait = slot - performance.now();
        if (wait > 0) await sleep(wait);
        if (!this.running) return;
      }
      const ok = await this.operation(this.pickEndpoint(), pick(this.tenants));
      // While the web process is down every request fails at once; a short pause keeps the loop
      // from spinning on refused connections.
      if (!ok) await sleep(200);
    }
  }

  private pickEndpoint(): Endpoint {
    const r = Math.random() * this.totalWeight;
    for (const [endpoint, bound] of this.cumulative) if (r < bound) return endpoint;
    return 'GET /v1/payment-links/{id}';
  }

  /** Returns false after a network error. */
  private async operation(endpoint: Endpoint, t: Tenant): Promise<boolean> {
    switch (endpoint) {
      case 'POST /v1/payment-links (test)':
        return this.create(t, true);
      case 'POST /v1/payment-links (live)':
        return this.create(t, false);
      case 'GET /v1/payment-links/{id}': {
        const link = t.recent.length > 0 ? pick(t.recent) : undefined;
        if (!link) return this.create(t, Math.random() < 0.5);
        return (
          (await this.call(
            endpoint,
            'GET',
            `/v1/payment-links/${link.id}`,
            this.keyHeaders(t, link.test),
            200,
          )) !== undefined
        );
      }
      case 'GET /v1/payment-links': {
        const test = Math.random() < 0.5;
        const query = Math.random() < 0.3 ? '?limit=20&status=active' : '?limit=20';
        return (
          (await this.call(endpoint, 'GET', `/v1/payment-links${query}`, this.keyHeaders(t, test), 200)) !==
          undefined
        );
      }
      case 'POST /v1/payment-links/{id}/cancel': {
        const test = Math.random() < 0.5;
        const link = takeRandom(test ? t.activeTest : t.activeLive);
        if (!link) return this.create(t, test);
        return (
          (await this.call(
            endpoint,
            'POST',
            `/v1/payment-links/${link.id}/cancel`,
            this.keyHeaders(t, test),
            200,
          )) !== undefined
        );
      }
      case 'POST /v1/payment-links/{id}/simulate': {
        const link = takeRandom(t.activeTest);
        if (!link) return this.create(t, true);
        const r = Math.random();
        const outcome = r < 0.5 ? 'paid' : r < 0.8 ? 'failed' : 'expired';
        const reply = await this.call(
          endpoint,
          'POST',
          `/v1/payment-links/${link.id}/simulate`,
          { ...this.keyHeaders(t, true), 'content-type': 'application/json' },
          200,
          JSON.stringify({ outcome }),
        );
        // A declined payment leaves the link active and payable.
        if (reply?.status === 200 && outcome === 'failed') push(t.activeTest, link, POOL_CAP);
        return reply !== undefined;
      }
      case 'GET /v1/offers':
        return (
          (await this.call(endpoint, 'GET', '/v1/offers', this.keyHeaders(t, Math.random() < 0.5), 200)) !==
          undefined
        );
      case 'GET /pay/{code}?plink=': {
        const live = t.recent.filter((l) => !l.test);
        const link = live.length > 0 ? pick(live) : undefined;
        if (!link) return this.create(t, false);
        return (
          (await this.call(endpoint, 'GET', `/pay/${link.code}?plink=${link.id}`, {}, 200)) !== undefined
        );
      }
      case 'POST /pay/{code}/pay': {
        const link = takeRandom(t.activeLive);
        if (!link) return this.create(t, false);
        const n = ++this.sequence;
        const form = new URLSearchParams({
          plink: link.id,
          name: `Buyer ${n}`,
          // Mostly new addresses (each is a lead.created), some repeated.
          email: `buyer${Math.random() < 0.8 ? n : n % 50}@example.com`,
          payment_method: 'credit_card',
        });
        return (
          (await this.call(
            endpoint,
            'POST',
            `/pay/${link.code}/pay`,
            { 'content-type': 'application/x-www-form-urlencoded' },
            // The pay step leads to the order's page (the card is paid by then).
            303,
            form.toString(),
          )) !== undefined
        );
      }
      case 'GET /panel/v1/integrations/': {
        // Owners and read-only keys both read the panel.
        const auth = Math.random() < 0.5 ? t.panelToken : t.readOnlyKey;
        return (
          (await this.call(
            endpoint,
            'GET',
            '/panel/v1/integrations/',
            { authorization: `Bearer ${auth}` },
            200,
          )) !== undefined
        );
      }
      case 'GET /panel/v1/integrations/{id}/deliveries': {
        const id = pick(t.integrationIds);
        return (
          (await this.call(
            endpoint,
            'GET',
            `/panel/v1/integrations/${id}/deliveries?limit=20`,
            { authorization: `Bearer ${t.panelToken}` },
            200,
          )) !== undefined
        );
      }
    }
  }

  private keyHeaders(t: Tenant, test: boolean): Record<string, string> {
    return { authorization: `Bearer ${pick(test ? t.testKeys : t.liveKeys)}` };
  }

  private async create(t: Tenant, test: boolean): Promise<boolean> {
    const endpoint: Endpoint = test ? 'POST /v1/payment-links (test)' : 'POST /v1/payment-links (live)';
    const n = ++this.sequence;
    const usePlan = t.planCodes.length > 0 && Math.random() < 0.2;
    const code = usePlan ? pick(t.planCodes) : pick(t.offerCodes);
    const body = {
      ...(usePlan ? { plan_code: code } : { offer_code: code }),
      external_reference: `load-${n}`,
      metadata: { source: 'bench' },
      customer: { name: `Customer ${n}`, email: `customer${n}@example.com` },
    };
    const headers: Record<string, string> = {
      ...this.keyHeaders(t, test),
      'content-type': 'application/json',
    };
    if (Math.random() < 0.2) headers['idempotency-key'] = randomUUID();
    const reply = await this.call(endpoint, 'POST', '/v1/payment-links', headers, 201, JSON.stringify(body));
    if (reply?.status === 201) {
      const link: LinkRef = { id: (JSON.parse(reply.body) as { id: string }).id, code, test };
      push(test ? t.activeTest : t.activeLive, link, POOL_CAP);
      push(t.recent, link, RECENT_CAP);
    }
    return reply !== undefined;
  }

  /** One request; undefined after a network error (refused, reset, timeout). */
  private async call(
    endpoint: Endpoint,
    method: 'GET' | 'POST',
    path: string,
    headers: Record<string, string>,
    expected: number,
    body?: string,
  ): Promise<Reply | undefined> {
    const stats = this.stats.get(endpoint);
    if (!stats) throw new Error(`unknown endpoint ${endpoint}`);
    const started = performance.now();
    this.inFlight += 1;
    this.inFlightBy.set(endpoint, (this.inFlightBy.get(endpoint) ?? 0) + 1);
    try {
      const response = await this.http.request({
        method,
        path,
        headers,
        ...(body !== undefined ? { body } : {}),
      });
      const text = await response.body.text();
      stats.record(performance.now() - started, response.statusCode, expected);
      if (response.statusCode !== expected && this.samples.length < 40) {
        const requestId = response.headers['request-id'];
        this.samples.push(
          `${new Date().toISOString().slice(11, 23)} ${endpoint} → ${response.statusCode}` +
            `${typeof requestId === 'string' ? ` (Request-Id ${requestId})` : ''}: ${text.replace(/\s+/g, ' ').slice(0, 200)}`,
        );
      }
      return { status: response.statusCode, body: text };
    } catch (err) {
      const e = err as Error & { code?: string };
      stats.recordNetworkError(e.code ?? e.name);
      return undefined;
    } finally {
      this.inFlight -= 1;
      this.inFlightBy.set(endpoint, (this.inFlightBy.get(endpoint) ?? 1) - 1);
    }
  }
}
