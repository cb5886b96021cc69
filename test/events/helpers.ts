import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import { randomBase62 } from '../../src/shared/ids.js';
import { publishAfterCommit } from '../../src/events/publish.js';
import { exampleEventData } from '../../src/events/examples.js';
import type { EventKind } from '../../src/events/kinds.js';
import { recordEvent, type NewEvent } from '../../src/events/outbox.js';
import { schema } from '../../src/shared/db/index.js';
import type { Db } from '../../src/shared/db/index.js';
import type { SeedResult } from '../../src/cli/seed.js';
import { newLinkId, newShortCode } from '../../src/shared/ids.js';
import { startWorkers, type RunningWorkers, type WorkerOptions } from '../../workers/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { testEnvironment } from '../helpers/environment.js';
import {
  reportWebhookViolation,
  servedWebhookValidator,
  type WebhookBodyValidator,
} from '../helpers/webhook-validator.js';

export interface ReceivedRequest {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Hold the response this long (tests of in-flight work). */
  delayMs?: number;
}

/**
 * A real HTTP receiver on loopback that records every request and answers as told. Every body it
 * receives is checked against the `webhooks` schema of its kind in the served payments document; a
 * body that does not match fails the running test (root afterEach hook) and any `waitFor`.
 */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  readonly violations: string[] = [];
  /** Requests received and not yet answered, and the most there ever were at once. */
  open = 0;
  maxOpen = 0;
  reply: (req: ReceivedRequest, index: number) => Reply = () => ({ status: 200, body: 'ok' });
  private server: http.Server | undefined;
  private readonly path = `/hook-${randomBase62(12)}`;
  private waiters: Array<() => void> = [];
  /** Answers held back (`delayMs`): dropped when the receiver closes, with their connections. */
  private readonly held = new Set<NodeJS.Timeout>();
  private validator: WebhookBodyValidator | undefined;

  private check(received: ReceivedRequest): void {
    const problem = this.validator?.problem(received.body);
    if (problem === undefined) return;
    const described = `webhook ${String(received.headers['webhook-id'])}: ${problem}`;
    this.violations.push(described);
    reportWebhookViolation(described);
  }

  async start(): Promise<this> {
    this.validator = await servedWebhookValidator();
    this.server = http.createServer((req, res) => {
      // A delivery meant for an earlier test's receiver, whose port the system gave to this one, is
      // not this test's: 410 ends its retries, and it is not recorded.
      if (req.url !== this.path) {
        req.resume();
        res.writeHead(410).end();
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const received: ReceivedRequest = {
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        const index = this.requests.length;
        this.check(received);
        this.requests.push(received);
        this.open += 1;
        this.maxOpen = Math.max(this.maxOpen, this.open);
        for (const w of this.waiters.splice(0)) w();
        const answer = this.reply(received, index);
        const send = (): void => {
          this.open -= 1;
          res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
          res.end(answer.body ?? '');
        };
        if (answer.delayMs) {
          const timer = setTimeout(() => {
            this.held.delete(timer);
            send();
          }, answer.delayMs);
          this.held.add(timer);
        } else send();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    const address = this.server?.address() as AddressInfo;
    return `http://127.0.0.1:${address.port}${this.path}`;
  }

  /** Resolves once `count` requests arrived; rejects after `timeoutMs`. */
  async waitFor(count: number, timeoutMs = 10_000): Promise<ReceivedRequest[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.requests.length < count) {
      if (this.violations.length > 0) throw new Error(this.violations.join('\n'));
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`receiver got ${this.requests.length} of ${count} requests in ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    if (this.violations.length > 0) throw new Error(this.violations.join('\n'));
    return this.requests;
  }

  async close(): Promise<void> {
    for (const timer of this.held) clearTimeout(timer);
    this.held.clear();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

// The one polling helper lives in test/helpers; the event tests have always imported it from here.
export { eventually } from '../helpers/eventually.js';

/**
 * How many of these events (or, given a company, of its events) no relay has claimed yet: those
 * still in the outbox (docs/webhooks.md, "The outbox").
 */
export async function unclaimedEvents(db: Db, of: { eventIds: string[] } | { companyId: number }): Promise<number> {
  const where =
    'eventIds' in of
      ? sql`event_id = ANY(${sql.param(of.eventIds)}::text[])`
      : sql`company_id = ${of.companyId}`;
  const result = await db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM event_outbox WHERE ${where}`);
  return result.rows[0]?.n ?? 0;
}

export interface IntegrationInput {
  url?: string;
  secret?: string;
  type?: string;
  events: string[];
  productIds?: number[];
  sendToAllProducts?: boolean;
  isActive?: boolean;
}

/** Creates an integration through the panel API (and links products), as a company would. */
export async function createIntegration(
  app: TestApp,
  tenant: SeedResult,
  input: IntegrationInput,
): Promise<number> {
  const config: Record<string, string> = {};
  if (input.url !== undefined) config.url = input.url;
  if (input.secret !== undefined) config.secret = input.secret;
  const res = await app.http.post<{ id: number }>('/panel/v1/integrations/', {
    auth: tenant.panel_token,
    body: {
      type: input.type ?? 'webhook',
      config,
      events: input.events,
      is_active: input.isActive ?? true,
      send_to_all_products: input.sendToAllProducts ?? false,
    },
  });
  if (res.status !== 201) throw new Error(`integration not created: ${res.status} ${res.text}`);
  for (const productId of input.productIds ?? []) {
    const linked = await app.http.post(`/panel/v1/integrations/${res.body.id}/products`, {
      auth: tenant.panel_token,
      body: { product_id: productId },
    });
    if (linked.status !== 201) throw new Error(`product not linked: ${linked.status} ${linked.text}`);
  }
  return res.body.id;
}

export async function integration(db: Db, id: number): Promise<typeof schema.integrations.$inferSelect> {
  const [row] = await db.select().from(schema.integrations).where(eq(schema.integrations.id, id));
  if (!row) throw new Error(`no integration ${id}`);
  return row;
}

/** A link inserted directly (the event engine needs links, not the create endpoint). */
export async function createLink(
  db: Db,
  tenant: SeedResult,
  input: {
    livemode?: boolean;
    externalReference?: string | null;
    expiresAt?: Date;
    metadata?: Record<string, string>;
  } = {},
): Promise<typeof schema.paymentLinks.$inferSelect> {
  const offer = tenant.offers.find((o) => o.status === 'active');
  if (!offer) throw new Error('seed has no active offer');
  const [offerRow] = await db.select().from(schema.offers).where(eq(schema.offers.code, offer.code));
  if (!offerRow) throw new Error('offer row missing');
  const [row] = await db
    .insert(schema.paymentLinks)
    .values({
      id: newLinkId(),
      companyId: tenant.company.id,
      livemode: input.livemode ?? false,
      type: 'offer',
      offerId: offerRow.id,
      offerCode: offerRow.code,
      productId: offerRow.productId,
      shortCode: newShortCode(),
      externalReference: input.externalReference === undefined ? 'order-42' : input.externalReference,
      metadata: input.metadata ?? { campaign: 'spring' },
      expiresAt: input.expiresAt ?? new Date(Date.now() + 7 * 86_400_000),
    })
    .returning();
  if (!row) throw new Error('link not created');
  return row;
}

/**
 * A `data` of the documented shape for `kind`, for tests of the event engine that need events but not
 * the state change behind them (the tests of every real path are in every-kind.test.ts). `note`
 * (the buyer's name) tells events apart.
 */
export const sampleEventData = (kind: EventKind, productId: number | null, note = 'sample') =>
  exampleEventData(kind, { productId, buyerName: note });

/**
 * Records an event the way a service does (one transaction), then takes the fast path. Without `data`
 * the event carries `sampleEventData` of its kind.
 */
export async function emit(
  app: TestApp,
  event: Omit<NewEvent, 'livemode' | 'test' | 'data'> & {
    livemode?: boolean;
    test?: boolean;
    data?: Record<string, unknown>;
    note?: string;
  },
): Promise<string> {
  const { note, data, ...rest } = event;
  const id = await app.ctx.db.transaction(async (tx) => {
    const recorded = await recordEvent(tx, {
      livemode: false,
      test: false,
      ...rest,
      data: data ?? sampleEventData(event.type, event.productId, note),
    });
    return recorded.id;
  });
  publishAfterCommit(app.ctx, [id]);
  return id;
}

export interface Engine {
  app: TestApp;
  workers: RunningWorkers;
  close(): Promise<void>;
}

/**
 * An app plus in-process workers with their own queue prefix, so their configuration (retry
 * schedule, breaker threshold) never handles another test's jobs.
 */
export async function startEngine(
  env: Record<string, string> = {},
  options: WorkerOptions = {},
): Promise<Engine> {
  const app = await startTestApp({
    QUEUE_PREFIX: `{plinks-test-${randomBase62(6).toLowerCase()}}`,
    WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2',
    WEBHOOK_RETRY_JITTER: '0',
    OUTBOX_SWEEP_MS: '200',
    ...env,
  });
  const workers = await startWorkers(app.ctx, { kind: 'single', url: testEnvironment().redis.url }, options);
  return {
    app,
    workers,
    async close() {
      await workers.close();
      await app.close();
    },
  };
}

/**
 * The engine and webhook receiver of a suite: registers, in the `describe` it is called from, a
 * `before` that starts an engine (`startEngine(env)`) and then the receiver, and an `after` that
 * closes them. Both are usable from the hooks registered after it and from the tests.
 */
export function engineAndReceiver(env: Record<string, string> = {}): { engine: Engine; receiver: Receiver } {
  let started: Engine | undefined;
  let listening = false;
  const running = (): Engine => {
    if (!started) throw new Error('the engine starts in the before hook of engineAndReceiver');
    return started;
  };
  const receiver = new Receiver();
  before(async () => {
    started = await startEngine(env);
    await receiver.start();
    listening = true;
  });
  after(async () => {
    if (listening) await receiver.close();
    await started?.close();
  });
  const engine: Engine = {
    get app() {
      return running().app;
    },
    get workers() {
      return running().workers;
    },
    close: () => running().close(),
  };
  return { engine, receiver };
}
