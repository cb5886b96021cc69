import Joi from 'joi';
import { keyRingProblem, parseKeyRing, singleKeyRing, type KeyRing } from './credentials.js';
import { fieldErrors } from './validation/fields.js';
import type { Config, MercadoPagoConfig } from './config-types.js';

export type {
  Config,
  EmailConfig,
  MercadoPagoConfig,
  RedisClusterTarget,
  RedisTarget,
} from './config-types.js';

/**
 * The non-production default of CREDENTIALS_ENCRYPTION_KEY (documented, refused in production): tokens
 * sealed with it on a laptop are as safe as the laptop.
 */
export const DEV_CREDENTIALS_ENCRYPTION_KEY = Buffer.alloc(32, 'dev-credentials-key-not-for-prod').toString(
  'base64',
);

/** The non-production default of GATEWAY_WEBHOOK_SECRET (documented, never used in production). */
export const DEV_GATEWAY_WEBHOOK_SECRET = 'dev-gateway-secret-not-for-production';

const DEFAULT_RETRY_SCHEDULE = '5,300,1800,7200,18000,36000,50400,72000,86400';

const DEFAULT_RENEWAL_RETRY_SCHEDULE = '86400,259200,432000';

/** A renewal is retried at most this many times, each at most a year after the failure before it. */
const RENEWAL_RETRIES_MAX = 10;

const RENEWAL_RETRY_DELAY_MAX = 366 * 86_400;

/** `1,3600,86400` → delays in seconds: 1 to RENEWAL_RETRIES_MAX whole numbers, each 1 s to a year. */
const renewalRetrySchedule = Joi.string()
  .pattern(/^\d+(,\d+)*$/)
  .custom((value: string, helpers) => {
    const delays = value.split(',').map(Number);
    if (delays.length > RENEWAL_RETRIES_MAX)
      return helpers.message({ custom: `must list at most ${RENEWAL_RETRIES_MAX} retries` });
    if (delays.some((d) => d < 1 || d > RENEWAL_RETRY_DELAY_MAX))
      return helpers.message({ custom: `each delay must be 1 to ${RENEWAL_RETRY_DELAY_MAX} seconds` });
    return value;
  })
  .messages({ 'string.pattern.base': 'must be comma-separated whole seconds, e.g. 86400,259200,432000' })
  .default(DEFAULT_RENEWAL_RETRY_SCHEDULE);

const HTTP_URI = { scheme: ['http', 'https'] };

/** An absolute http(s) URL setting with its default (a provider's host, overridable for stand-ins). */
const httpUrl = (fallback: string) => Joi.string().uri(HTTP_URI).default(fallback);

const GRAPH_VERSION = /^v\d+\.\d+$/;

const schema = Joi.object({
  NODE_ENV: Joi.string().valid('development', 'test', 'production').default('development'),
  HOST: Joi.string().default('0.0.0.0'),
  TRUST_PROXY: Joi.string().default('loopback'),
  PORT: Joi.number().integer().min(0).max(65535).default(3000),
  DATABASE_URL: Joi.string().uri({ scheme: ['postgres', 'postgresql'] }),
  DATABASE_MIGRATION_URL: Joi.string().uri({ scheme: ['postgres', 'postgresql'] }),
  DATABASE_PREPARED_STATEMENTS: Joi.boolean().default(true),
  REDIS_URL: Joi.string().uri({ scheme: ['redis', 'rediss'] }),
  REDIS_CLUSTER_NODES: Joi.string()
    .pattern(/^\s*[^\s,:]+:\d{1,5}\s*(,\s*[^\s,:]+:\d{1,5}\s*)*$/)
    .messages({ 'string.pattern.base': 'must be comma-separated host:port pairs' }),
  REDIS_USERNAME: Joi.string(),
  REDIS_PASSWORD: Joi.string(),
  REDIS_TLS: Joi.boolean().default(false),
  DATA_DIR: Joi.string().default('.data'),
  EMBEDDED_PG_PORT: Joi.number().integer().min(1).max(65535).default(54329),
  QUEUE_PREFIX: Joi.string().default('{plinks}'),
  LOG_LEVEL: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
  PUBLIC_BASE_URL: Joi.string().uri({ scheme: ['http', 'https'] }),
  PANEL_API_URL: Joi.string().uri({ scheme: ['http', 'https'] }),
  CHECKOUT_URL: Joi.string().uri({ scheme: ['http', 'https'] }),
  REQUEST_TIMEOUT_MS: Joi.number().integer().min(100).default(30_000),
  BODY_LIMIT_BYTES: Joi.number()
    .integer()
    .min(1024)
    .default(100 * 1024),
  KEY_CACHE_TTL_MS: Joi.number().integer().min(0).max(300_000).default(30_000),
  RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(1).default(300),
  RATE_LIMIT_WRITES_PER_MINUTE: Joi.number().integer().min(1).default(60),
  WEBHOOK_TIMEOUT_MS: Joi.number().integer().min(100).default(15000),
  WEBHOOK_RETRY_SCHEDULE: Joi.string()
    .pattern(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/)
    .default(DEFAULT_RETRY_SCHEDULE),
  WEBHOOK_RETRY_JITTER: Joi.number().min(0).max(1).default(0.2),
  WEBHOOK_RESPONSE_MAX_BYTES: Joi.number()
    .integer()
    .min(0)
    .default(20 * 1024),
  BREAKER_THRESHOLD: Joi.number().integer().min(1).default(10),
  WEBHOOK_MAX_IN_FLIGHT: Joi.number().integer().min(1).max(1000).default(8),
  ALLOW_PRIVATE_WEBHOOK_TARGETS: Joi.boolean(),
  OUTBOX_CONCURRENCY: Joi.number().integer().min(1).default(32),
  DELIVERY_CONCURRENCY: Joi.number().integer().min(1).max(10_000).default(256),
  EXPIRY_CONCURRENCY: Joi.number().integer().min(1).default(4),
  SIMULATE_CONCURRENCY: Joi.number().integer().min(1).default(8),
  OUTBOX_SWEEP_MS: Joi.number().integer().min(100).default(5000),
  // At most a second: a link must expire within a second of its expires_at.
  LINK_EXPIRY_TICK_MS: Joi.number().integer().min(50).max(1000).default(250),
  RENEWAL_SWEEP_MS: Joi.number().integer().min(100).default(60_000),
  RENEWAL_RETRY_SCHEDULE: renewalRetrySchedule,
  SIMULATE_WAIT_MS: Joi.number().integer().min(100).default(20000),
  ADMIN_USER: Joi.string(),
  ADMIN_PASSWORD: Joi.string().min(8),
  ADMIN_READ_WRITE: Joi.boolean().default(false),
  METRICS_TOKEN: Joi.string().min(16),
  METRICS_PORT: Joi.number().port(),
  RETENTION_DAYS: Joi.number().integer().min(1).max(3650).default(30),
  DEV_GATEWAY: Joi.boolean(),
  GATEWAY_WEBHOOK_SECRET: Joi.string().min(16),
  ORDER_ABANDON_AFTER_SECONDS: Joi.number()
    .integer()
    .min(1)
    .max(30 * 86_400)
    .default(1800),
  MERCADOPAGO_CLIENT_ID: Joi.string().max(200),
  MERCADOPAGO_CLIENT_SECRET: Joi.string().max(500),
  MERCADOPAGO_WEBHOOK_SECRET: Joi.string().min(16).max(500),
  MERCADOPAGO_API_URL: httpUrl('https://api.mercadopago.com'),
  MERCADOPAGO_AUTH_URL: httpUrl('https://auth.mercadopago.com.br'),
  MERCADOPAGO_SDK_URL: httpUrl('https://sdk.mercadopago.com/js/v2'),
  MERCADOPAGO_RECONCILE_AFTER_SECONDS: Joi.number()
    .integer()
    .min(1)
    .max(30 * 86_400)
    .default(900),
  MERCADOPAGO_TIMEOUT_MS: Joi.number().integer().min(100).max(60_000).default(10_000),
  FOCUSNFE_API_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('https://api.focusnfe.com.br'),
  FOCUSNFE_TIMEOUT_MS: Joi.number().integer().min(100).max(60_000).default(15_000),
  META_GRAPH_URL: httpUrl('https://graph.facebook.com'),
  META_GRAPH_VERSION: Joi.string().pattern(GRAPH_VERSION).default('v25.0'),
  GA4_MP_URL: httpUrl('https://www.google-analytics.com'),
  META_PIXEL_SCRIPT_URL: httpUrl('https://connect.facebook.net/en_US/fbevents.js'),
  META_PIXEL_HOST: httpUrl('https://www.facebook.com'),
  CREDENTIALS_ENCRYPTION_KEY: Joi.string()
    .base64()
    .custom((value: string, helpers) =>
      Buffer.from(value, 'base64').length === 32
        ? value
        : helpers.message({ custom: 'must be 32 random bytes in base64 (openssl rand -base64 32)' }),
    )
    .messages({ 'string.base64': 'must be 32 random bytes in base64 (openssl rand -base64 32)' }),
  CREDENTIALS_ENCRYPTION_KEYS: Joi.string().custom((value: string, helpers) => {
    const problem = keyRingProblem(value);
    return problem === undefined ? value : helpers.message({ custom: problem });
  }),
  SMTP_URL: Joi.string().uri({ scheme: ['smtp', 'smtps'] }),
  EMAIL_FROM: Joi.string().email({ tlds: false }),
  EMAIL_RATE_LIMIT_PER_HOUR: Joi.number().integer().min(1).max(1_000_000).default(500),
  EMAIL_CONCURRENCY: Joi.number().integer().min(1).max(100).default(4),
  EMAIL_INBOX_PORT: Joi.number().integer().min(1).max(65535).default(1080),
  PLATFORM_FEE_PERCENT: Joi.number().min(0).max(50).precision(2).default(0),
  PLATFORM_FEE_FIXED: Joi.number().min(0).max(1_000_000).precision(2).default(0),
})
  .and('ADMIN_USER', 'ADMIN_PASSWORD')
  // One MP application is three values: an id without its secrets could connect nobody.
  .and('MERCADOPAGO_CLIENT_ID', 'MERCADOPAGO_CLIENT_SECRET', 'MERCADOPAGO_WEBHOOK_SECRET')
  // One Redis or a cluster, never both: a silent choice would split queues over two stores.
  .oxor('REDIS_URL', 'REDIS_CLUSTER_NODES')
  // A worker told to serve metrics without a token would serve nothing: refuse, naming both.
  .with('METRICS_PORT', 'METRICS_TOKEN')
  .messages({
    'object.with': 'is required when {#main} is set',
    'object.oxor': 'set one of {#peersWithLabels}, not both',
    'object.and': 'set {#presentWithLabels} together with {#missingWithLabels}',
  })
  .unknown(true);

export class ConfigError extends Error {
  override name = 'ConfigError';
}

interface RawEnv {
  NODE_ENV: Config['env'];
  HOST: string;
  TRUST_PROXY: string;
  PORT: number;
  DATABASE_URL?: string;
  DATABASE_MIGRATION_URL?: string;
  DATABASE_PREPARED_STATEMENTS: boolean;
  REDIS_URL?: string;
  REDIS_CLUSTER_NODES?: string;
  REDIS_USERNAME?: string;
  REDIS_PASSWORD?: string;
  REDIS_TLS: boolean;
  DATA_DIR: string;
  EMBEDDED_PG_PORT: number;
  QUEUE_PREFIX: string;
  LOG_LEVEL: Config['logLevel'];
  PUBLIC_BASE_URL?: string;
  PANEL_API_URL?: string;
  CHECKOUT_URL?: string;
  REQUEST_TIMEOUT_MS: number;
  BODY_LIMIT_BYTES: number;
  KEY_CACHE_TTL_MS: number;
  RATE_LIMIT_PER_MINUTE: number;
  RATE_LIMIT_WRITES_PER_MINUTE: number;
  WEBHOOK_TIMEOUT_MS: number;
  WEBHOOK_RETRY_SCHEDULE: string;
  WEBHOOK_RETRY_JITTER: number;
  WEBHOOK_RESPONSE_MAX_BYTES: number;
  BREAKER_THRESHOLD: number;
  WEBHOOK_MAX_IN_FLIGHT: number;
  ALLOW_PRIVATE_WEBHOOK_TARGETS?: boolean;
  OUTBOX_CONCURRENCY: number;
  DELIVERY_CONCURRENCY: number;
  EXPIRY_CONCURRENCY: number;
  SIMULATE_CONCURRENCY: number;
  OUTBOX_SWEEP_MS: number;
  LINK_EXPIRY_TICK_MS: number;
  RENEWAL_SWEEP_MS: number;
  RENEWAL_RETRY_SCHEDULE: string;
  SIMULATE_WAIT_MS: number;
  ADMIN_USER?: string;
  ADMIN_PASSWORD?: string;
  ADMIN_READ_WRITE: boolean;
  METRICS_TOKEN?: string;
  METRICS_PORT?: number;
  RETENTION_DAYS: number;
  DEV_GATEWAY?: boolean;
  GATEWAY_WEBHOOK_SECRET?: string;
  ORDER_ABANDON_AFTER_SECONDS: number;
  MERCADOPAGO_CLIENT_ID?: string;
  MERCADOPAGO_CLIENT_SECRET?: string;
  MERCADOPAGO_WEBHOOK_SECRET?: string;
  MERCADOPAGO_API_URL: string;
  MERCADOPAGO_AUTH_URL: string;
  MERCADOPAGO_SDK_URL: string;
  MERCADOPAGO_RECONCILE_AFTER_SECONDS: number;
  MERCADOPAGO_TIMEOUT_MS: number;
  FOCUSNFE_API_URL: string;
  FOCUSNFE_TIMEOUT_MS: number;
  META_GRAPH_URL: string;
  META_GRAPH_VERSION: string;
  GA4_MP_URL: string;
  META_PIXEL_SCRIPT_URL: string;
  META_PIXEL_HOST: string;
  CREDENTIALS_ENCRYPTION_KEY?: string;
  CREDENTIALS_ENCRYPTION_KEYS?: string;
  SMTP_URL?: string;
  EMAIL_FROM?: string;
  EMAIL_RATE_LIMIT_PER_HOUR: number;
  EMAIL_CONCURRENCY: number;
  EMAIL_INBOX_PORT: number;
  PLATFORM_FEE_PERCENT: number;
  PLATFORM_FEE_FIXED: number;
}

function mercadoPagoOf(raw: RawEnv): MercadoPagoConfig | undefined {
  const { MERCADOPAGO_CLIENT_ID: clientId, MERCADOPAGO_CLIENT_SECRET: clientSecret } = raw;
  const webhookSecret = raw.MERCADOPAGO_WEBHOOK_SECRET;
  // The schema's `and` makes the three present together or not at all.
  if (clientId === undefined || clientSecret === undefined || webhookSecret === undefined) return undefined;
  return {
    clientId,
    clientSecret,
    webhookSecret,
    apiUrl: trimSlash(raw.MERCADOPAGO_API_URL),
    authUrl: trimSlash(raw.MERCADOPAGO_AUTH_URL),
    sdkUrl: raw.MERCADOPAGO_SDK_URL,
    reconcileAfterSeconds: raw.MERCADOPAGO_RECONCILE_AFTER_SECONDS,
    timeoutMs: raw.MERCADOPAGO_TIMEOUT_MS,
  };
}

/** The keys that seal stored credentials (the ring supersedes the single key); production with MP and none is refused by name. */
function credentialsKeyOf(raw: RawEnv, production: boolean, mercadoPago: boolean): KeyRing | undefined {
  if (raw.CREDENTIALS_ENCRYPTION_KEYS !== undefined) return parseKeyRing(raw.CREDENTIALS_ENCRYPTION_KEYS);
  if (raw.CREDENTIALS_ENCRYPTION_KEY !== undefined)
    return singleKeyRing(Buffer.from(raw.CREDENTIALS_ENCRYPTION_KEY, 'base64'));
  if (!production) return singleKeyRing(Buffer.from(DEV_CREDENTIALS_ENCRYPTION_KEY, 'base64'));
  if (mercadoPago) {
    throw new ConfigError(
      'Invalid configuration:\n  CREDENTIALS_ENCRYPTION_KEY: is required in production when MERCADOPAGO_CLIENT_ID is set (openssl rand -base64 32)',
    );
  }
  return undefined;
}

const trimSlash = (url: string): string => url.replace(/\/+$/, '');

/**
 * Reads and validates the environment. Throws a ConfigError naming every bad variable, so a
 * misconfigured process stops before it binds a port or opens a pool.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const { value, error } = schema.validate(present, { abortEarly: false, convert: true });
  if (error) {
    const problems = Object.entries(fieldErrors(error)).map(
      ([name, messages]) => `${name}: ${messages.join('; ')}`,
    );
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const raw = value as RawEnv;
  const base = trimSlash(raw.PUBLIC_BASE_URL ?? `http://localhost:${raw.PORT}`);
  const production = raw.NODE_ENV === 'production';
  const mercadoPago = mercadoPagoOf(raw);
  const keys = [raw.CREDENTIALS_ENCRYPTION_KEY, ...(raw.CREDENTIALS_ENCRYPTION_KEYS ?? '').split(/[:,]/)];
  if (production && keys.includes(DEV_CREDENTIALS_ENCRYPTION_KEY)) {
    throw new ConfigError(
      'Invalid configuration:\n  CREDENTIALS_ENCRYPTION_KEY: the documented development key cannot be used in production',
    );
  }
  return {
    env: raw.NODE_ENV,
    host: raw.HOST,
    trustProxy: raw.TRUST_PROXY,
    port: raw.PORT,
    databaseUrl: raw.DATABASE_URL,
    redisUrl: raw.REDIS_URL,
    redisCluster: raw.REDIS_CLUSTER_NODES
      ? {
          kind: 'cluster',
          nodes: raw.REDIS_CLUSTER_NODES.split(',').map((node) => {
            const [host = '', port = ''] = node.trim().split(':');
            return { host, port: Number(port) };
          }),
          username: raw.REDIS_USERNAME,
          password: raw.REDIS_PASSWORD,
          tls: raw.REDIS_TLS,
        }
      : undefined,
    databasePreparedStatements: raw.DATABASE_PREPARED_STATEMENTS,
    databaseMigrationUrl: raw.DATABASE_MIGRATION_URL,
    dataDir: raw.DATA_DIR,
    embeddedPostgresPort: raw.EMBEDDED_PG_PORT,
    queuePrefix: raw.QUEUE_PREFIX,
    logLevel: raw.LOG_LEVEL,
    urls: {
      payments: base,
      panel: trimSlash(raw.PANEL_API_URL ?? `${base}/panel/v1`),
      checkout: trimSlash(raw.CHECKOUT_URL ?? `${base}/pay`),
    },
    limits: {
      requestTimeoutMs: raw.REQUEST_TIMEOUT_MS,
      bodyBytes: raw.BODY_LIMIT_BYTES,
      requestsPerMinute: raw.RATE_LIMIT_PER_MINUTE,
      keyCacheTtlMs: raw.KEY_CACHE_TTL_MS,
      writesPerMinute: raw.RATE_LIMIT_WRITES_PER_MINUTE,
    },
    webhooks: {
      timeoutMs: raw.WEBHOOK_TIMEOUT_MS,
      retryScheduleSeconds: raw.WEBHOOK_RETRY_SCHEDULE.split(',').map(Number),
      retryJitter: raw.WEBHOOK_RETRY_JITTER,
      responseBodyMaxBytes: raw.WEBHOOK_RESPONSE_MAX_BYTES,
      breakerThreshold: raw.BREAKER_THRESHOLD,
      maxInFlight: raw.WEBHOOK_MAX_IN_FLIGHT,
      allowPrivateTargets: raw.ALLOW_PRIVATE_WEBHOOK_TARGETS ?? !production,
    },
    workers: {
      outboxConcurrency: raw.OUTBOX_CONCURRENCY,
      deliveryConcurrency: raw.DELIVERY_CONCURRENCY,
      expiryConcurrency: raw.EXPIRY_CONCURRENCY,
      simulateConcurrency: raw.SIMULATE_CONCURRENCY,
      outboxSweepMs: raw.OUTBOX_SWEEP_MS,
      linkExpiryTickMs: raw.LINK_EXPIRY_TICK_MS,
      renewalSweepMs: raw.RENEWAL_SWEEP_MS,
    },
    renewalRetryScheduleSeconds: raw.RENEWAL_RETRY_SCHEDULE.split(',').map(Number),
    simulateWaitMs: raw.SIMULATE_WAIT_MS,
    admin: { user: raw.ADMIN_USER, password: raw.ADMIN_PASSWORD, readWrite: raw.ADMIN_READ_WRITE },
    metrics: { token: raw.METRICS_TOKEN, port: raw.METRICS_PORT },
    retentionDays: raw.RETENTION_DAYS,
    devGateway: raw.DEV_GATEWAY ?? !production,
    gatewayWebhookSecret: raw.GATEWAY_WEBHOOK_SECRET ?? (production ? undefined : DEV_GATEWAY_WEBHOOK_SECRET),
    orderAbandonAfterSeconds: raw.ORDER_ABANDON_AFTER_SECONDS,
    mercadoPago,
    credentialsKey: credentialsKeyOf(raw, production, mercadoPago !== undefined),
    email: {
      smtpUrl: raw.SMTP_URL,
      from: raw.EMAIL_FROM ?? `no-reply@${new URL(base).hostname}`,
      perCompanyPerHour: raw.EMAIL_RATE_LIMIT_PER_HOUR,
      concurrency: raw.EMAIL_CONCURRENCY,
      inboxPort: raw.EMAIL_INBOX_PORT,
    },
    platformFee: { percent: raw.PLATFORM_FEE_PERCENT.toFixed(2), fixed: raw.PLATFORM_FEE_FIXED.toFixed(2) },
    focusNfe: { apiUrl: trimSlash(raw.FOCUSNFE_API_URL), timeoutMs: raw.FOCUSNFE_TIMEOUT_MS },
    adPlatforms: {
      metaGraphUrl: trimSlash(raw.META_GRAPH_URL),
      metaGraphVersion: raw.META_GRAPH_VERSION,
      ga4Url: trimSlash(raw.GA4_MP_URL),
      metaPixelScriptUrl: raw.META_PIXEL_SCRIPT_URL,
      metaPixelOrigin: new URL(raw.META_PIXEL_HOST).origin,
    },
  };
}

/** Pathname part of a configured public URL, used to mount an app (e.g. `/panel/v1`). */
export function mountPath(url: string): string {
  const path = new URL(url).pathname.replace(/\/+$/, '');
  return path === '' ? '/' : path;
}
