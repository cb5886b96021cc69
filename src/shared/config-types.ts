/** The typed configuration every process reads: what `loadConfig` (config.ts) makes of the environment. */
import type { KeyRing } from './credentials.js';

/**
 * Where the service's Redis is: one server (`REDIS_URL`, or the private redis-server of `npm
 * start`), or a Redis Cluster reached through seed nodes (`REDIS_CLUSTER_NODES`, with
 * `REDIS_USERNAME`, `REDIS_PASSWORD`, `REDIS_TLS` for every node).
 */
export type RedisTarget =
  | { kind: 'single'; url: string }
  | {
      kind: 'cluster';
      nodes: Array<{ host: string; port: number }>;
      username?: string | undefined;
      password?: string | undefined;
      tls: boolean;
    };

export type RedisClusterTarget = Extract<RedisTarget, { kind: 'cluster' }>;

/** Everything the service reads from the environment, validated once at start. */
export interface Config {
  env: 'development' | 'test' | 'production';
  host: string;
  port: number;
  /** `undefined` means: start the embedded PostgreSQL under `dataDir`. */
  databaseUrl: string | undefined;
  /** `undefined` (and no cluster) means: start a private redis-server from PATH. */
  redisUrl: string | undefined;
  /** A Redis Cluster in place of `redisUrl`. */
  redisCluster: RedisClusterTarget | undefined;
  /**
   * False behind a pooler in transaction mode (PgBouncer before 1.21): no named prepared statement
   * is sent; queries are still built once, and sent unnamed.
   */
  databasePreparedStatements: boolean;
  /** Where migrations run (they hold a session advisory lock); `databaseUrl` when unset. */
  databaseMigrationUrl: string | undefined;
  dataDir: string;
  embeddedPostgresPort: number;
  /** BullMQ key prefix; the braces make it a Redis Cluster hash tag. */
  queuePrefix: string;
  /** Express `trust proxy`: whose X-Forwarded-For names the client (loopback, uniquelocal, CIDRs…). */
  trustProxy: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  urls: {
    /** `{base_url}`: the payments API lives at `${payments}/v1`. */
    payments: string;
    /** `{panel_api_url}`, which already includes `/v1`. */
    panel: string;
    /** `{checkout_url}`: buyer pages. */
    checkout: string;
  };
  limits: {
    /** A request whose headers and body have not arrived by then is answered 408. */
    requestTimeoutMs: number;
    bodyBytes: number;
    requestsPerMinute: number;
    /** How long a process may answer from its cache of key lookups (revocations are announced at once). */
    keyCacheTtlMs: number;
    writesPerMinute: number;
  };
  webhooks: {
    timeoutMs: number;
    /** Delays in seconds between attempts: attempt n+1 waits retryScheduleSeconds[n-1]. */
    retryScheduleSeconds: number[];
    retryJitter: number;
    responseBodyMaxBytes: number;
    breakerThreshold: number;
    allowPrivateTargets: boolean;
    /** Most attempts in flight to one integration at once, across every worker process. */
    maxInFlight: number;
  };
  workers: {
    outboxConcurrency: number;
    /** Integrations (delivery lanes) one worker process sends for at once. */
    deliveryConcurrency: number;
    expiryConcurrency: number;
    simulateConcurrency: number;
    outboxSweepMs: number;
    /** How often a worker expires the links whose expires_at has passed. */
    linkExpiryTickMs: number;
    renewalSweepMs: number;
  };
  /** Delays in seconds of a failed renewal's retries: retry k comes schedule[k-1] after the failure before it. */
  renewalRetryScheduleSeconds: number[];
  simulateWaitMs: number;
  admin: { user: string | undefined; password: string | undefined; readWrite: boolean };
  /** Prometheus text at /metrics (web) and on `port` (worker); absent without a token. */
  metrics: { token: string | undefined; port: number | undefined };
  /** Events, deliveries and attempts older than this are pruned (never unrelayed or pending ones). */
  retentionDays: number;
  devGateway: boolean;
  /**
   * HMAC key of the gateway's payment callbacks. Outside production it defaults to
   * DEV_GATEWAY_WEBHOOK_SECRET; in production, unset means the callback endpoint is off (404).
   */
  gatewayWebhookSecret: string | undefined;
  /** A pending order still unpaid this long after the pay step is abandoned (`order.abandoned`). */
  orderAbandonAfterSeconds: number;
  /** The deployment's Mercado Pago application; undefined when MERCADOPAGO_CLIENT_ID is unset. */
  mercadoPago: MercadoPagoConfig | undefined;
  /** Keys sealing stored credentials, newest first (src/shared/credentials.ts); undefined: none set in production. */
  credentialsKey: KeyRing | undefined;
  email: EmailConfig;
  /** The deployment's platform fee on each MP payment (reais with two decimals); `cli company fee` overrides it. */
  platformFee: { percent: string; fixed: string };
  /** Focus NFe's REST API (docs/invoices.md): base URL and the longest wait for one call. */
  focusNfe: { apiUrl: string; timeoutMs: number };
  /**
   * Where `ad_pixel` integrations send conversions: Meta's Graph API (and its version), GA4's
   * collector; and the browser pixel's script and the origin it reports to (the buyer pages' CSP).
   */
  adPlatforms: {
    metaGraphUrl: string;
    metaGraphVersion: string;
    ga4Url: string;
    metaPixelScriptUrl: string;
    metaPixelOrigin: string;
  };
}

/** E-mail to buyers (docs/email.md). */
export interface EmailConfig {
  /**
   * Where messages go, in nodemailer's URL form (`smtp://`, `smtps://`, user and password in it).
   * Undefined: `npm start` (outside production) runs a private SMTP server with a web inbox.
   */
  smtpUrl: string | undefined;
  /** The address part of `From` and the envelope sender. */
  from: string;
  /** Most messages one company's buyers are sent per hour; more wait for the next free slot. */
  perCompanyPerHour: number;
  /** Messages one worker process sends at once. */
  concurrency: number;
  /** The web port of the private inbox `npm start` runs when SMTP_URL is unset. */
  inboxPort: number;
}

export interface MercadoPagoConfig {
  clientId: string;
  clientSecret: string;
  /** The application's notification signing secret (`x-signature`). */
  webhookSecret: string;
  apiUrl: string;
  authUrl: string;
  sdkUrl: string;
  /** A pending order with no conclusive notification is read from MP this long after it was charged. */
  reconcileAfterSeconds: number;
  /** Each call to MP gives up after this long (the buyer is told to try again). */
  timeoutMs: number;
}
