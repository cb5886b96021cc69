/**
 * Drizzle mirror of the SQL migrations under `migrations/`. The SQL files are the source of truth;
 * change them first, then this file.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  date,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  serial,
  text,
  uuid,
} from 'drizzle-orm/pg-core';
import { BILLING_CYCLES } from '../enums/billing-cycles.js';
import type { TraceCarrier } from '../tracing.js';
import type { CampaignTracking, VisitTracking } from '../tracking.js';
import { DELIVERY_STATUSES } from '../enums/delivery-statuses.js';
import { LINK_STATUSES } from '../enums/link-statuses.js';
import { ORDER_STATUSES } from '../enums/order-statuses.js';
import { PAYMENT_METHODS } from '../enums/payment-methods.js';
import { CANCEL_REASONS, SUBSCRIPTION_STATUSES } from '../enums/subscription-statuses.js';

import { clockStamps, id64, ts } from './schema-columns.js';

export const companies = pgTable('companies', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  name: text('name').notNull(),
  active: boolean('active').notNull().default(true),
  createdAt: ts('created_at').notNull().defaultNow(),
  /** The seller's CNPJ (14 digits), printed on receipts; null when the company has none (0920). */
  cnpj: text('cnpj'),
  /** The company's platform fee, over the deployment's PLATFORM_FEE_*; null: the deployment's (0905). */
  platformFeePercent: numeric('platform_fee_percent', { precision: 5, scale: 2 }),
  platformFeeFixed: numeric('platform_fee_fixed', { precision: 12, scale: 2 }),
});

export const users = pgTable('users', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  companyId: id64('company_id').notNull(),
  email: text('email').notNull(),
  name: text('name').notNull(),
  role: text('role', { enum: ['owner', 'member'] }).notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export const panelTokens = pgTable('panel_tokens', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  userId: id64('user_id').notNull(),
  tokenHash: text('token_hash').notNull(),
  prefix: text('prefix').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
  revokedAt: ts('revoked_at'),
  lastUsedAt: ts('last_used_at'),
});

export const apiKeys = pgTable('api_keys', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  companyId: id64('company_id').notNull(),
  name: text('name').notNull(),
  kind: text('kind', { enum: ['payments', 'read_only'] }).notNull(),
  test: boolean('test').notNull(),
  keyHash: text('key_hash').notNull(),
  prefix: text('prefix').notNull(),
  last4: text('last4').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
  revokedAt: ts('revoked_at'),
  lastUsedAt: ts('last_used_at'),
});

export const products = pgTable('products', {
  id: serial('id').primaryKey(),
  companyId: id64('company_id').notNull(),
  code: uuid('code').notNull(),
  name: text('name').notNull(),
  active: boolean('active').notNull().default(true),
  /** What buying it gives access to through a builtin members area (0940): at most 50 items. */
  content: jsonb('content').$type<ProductContentItem[]>().notNull().default([]),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/** One item of a product's content: a title, an https address, a short description. */
export interface ProductContentItem {
  title: string;
  url: string;
  description: string;
}

/** What offers and plans both are: something a company sells, for one of its products, at a price. */
const itemColumns = () => ({
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  companyId: id64('company_id').notNull(),
  productId: integer('product_id').notNull(),
  code: text('code').notNull(),
  name: text('name').notNull(),
  price: numeric('price', { precision: 12, scale: 2 }).notNull(),
  status: text('status', { enum: ['active', 'inactive'] })
    .notNull()
    .default('active'),
  /** The buyer's right of regret, in days after payment (7–30, 0916). */
  guaranteeDays: integer('guarantee_days').notNull().default(7),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

export const offers = pgTable('offers', itemColumns());

export const plans = pgTable('plans', {
  ...itemColumns(),
  billingCycle: text('billing_cycle', { enum: BILLING_CYCLES }).notNull(),
});

export const coupons = pgTable('coupons', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  companyId: id64('company_id').notNull(),
  code: text('code').notNull(),
  percentOff: numeric('percent_off', { precision: 5, scale: 2 }),
  amountOff: numeric('amount_off', { precision: 12, scale: 2 }),
  active: boolean('active').notNull().default(true),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

export const paymentLinks = pgTable('payment_links', {
  id: text('id').primaryKey(),
  companyId: id64('company_id').notNull(),
  livemode: boolean('livemode').notNull(),
  status: text('status', { enum: LINK_STATUSES }).notNull().default('active'),
  type: text('type', { enum: ['offer', 'plan'] }).notNull(),
  offerId: id64('offer_id'),
  planId: id64('plan_id'),
  offerCode: text('offer_code'),
  planCode: text('plan_code'),
  productId: integer('product_id').notNull(),
  shortCode: text('short_code').notNull(),
  customerName: text('customer_name'),
  customerEmail: text('customer_email'),
  customerPhone: text('customer_phone'),
  customerDocument: text('customer_document'),
  externalReference: text('external_reference'),
  metadata: jsonb('metadata').$type<Record<string, string>>().notNull().default({}),
  couponCode: text('coupon_code'),
  singleUse: boolean('single_use').notNull().default(true),
  expiresAt: ts('expires_at').notNull(),
  paidAt: ts('paid_at'),
  canceledAt: ts('canceled_at'),
  expiredAt: ts('expired_at'),
  latestOrderId: id64('latest_order_id'),
  idempotencyKey: text('idempotency_key'),
  requestHash: text('request_hash'),
  /** What the checkout offers and how (0702). */
  paymentMethods: text('payment_methods', { enum: PAYMENT_METHODS })
    .array()
    .notNull()
    .default(sql`ARRAY['credit_card', 'pix', 'boleto']`),
  pixExpiresInSeconds: integer('pix_expires_in_seconds').notNull().default(1800),
  boletoDueDays: integer('boleto_due_days').notNull().default(3),
  maxInstallments: integer('max_installments').notNull().default(1),
  successUrl: text('success_url'),
  /** The campaign parameters its creator sent (0930). */
  tracking: jsonb('tracking').$type<CampaignTracking>(),
  ...clockStamps(),
});

/** The methods a subscription may renew by, as its buyer chooses on the buyer's page. */
export const RENEWAL_METHODS = ['pix', 'credit_card'] as const;
export type RenewalMethod = (typeof RENEWAL_METHODS)[number];

/** A card token a PSP's browser script made (single use at the PSP): never the card's number. */
export interface RenewalCard {
  token: string;
  payment_method_id: string;
  issuer_id: string | null;
  /** When the buyer gave it (ISO 8601): a PSP's token is valid for a few days only. */
  stored_at: string;
}

export const subscriptions = pgTable('subscriptions', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  companyId: id64('company_id').notNull(),
  livemode: boolean('livemode').notNull(),
  planId: id64('plan_id').notNull(),
  paymentLinkId: text('payment_link_id'),
  status: text('status', { enum: SUBSCRIPTION_STATUSES }).notNull().default('active'),
  currentPeriodEnd: ts('current_period_end').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
  /** Set when the subscription is canceled in the panel (0501). */
  canceledAt: ts('canceled_at'),
  /** Why it was canceled; null while it is not (0703). */
  cancelReason: text('cancel_reason', { enum: CANCEL_REASONS }),
  /** The renewal due at the period end cancels it instead of charging (0703). */
  cancelAtPeriodEnd: boolean('cancel_at_period_end').notNull().default(false),
  /** The period it is in: 1 is the first purchase (0703). */
  currentPeriod: integer('current_period').notNull().default(1),
  /** Failed charges of the renewal due, while past_due; 0 otherwise (0703). */
  failedCharges: integer('failed_charges').notNull().default(0),
  /** When the next retry of a past_due subscription's renewal is due (0703). */
  nextRetryAt: ts('next_retry_at'),
  /** How it renews, as its buyer chose; null: as its first purchase was paid (0942). */
  renewalMethod: text('renewal_method', { enum: RENEWAL_METHODS }),
  /** The card a PSP tokenized in the buyer's browser for its renewals, until one spends it (0942). */
  renewalCard: jsonb('renewal_card').$type<RenewalCard>(),
});

export const orders = pgTable('orders', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  code: uuid('code').notNull(),
  companyId: id64('company_id').notNull(),
  livemode: boolean('livemode').notNull(),
  paymentLinkId: text('payment_link_id'),
  subscriptionId: id64('subscription_id'),
  productId: integer('product_id').notNull(),
  offerId: id64('offer_id'),
  planId: id64('plan_id'),
  status: text('status', { enum: ORDER_STATUSES }).notNull(),
  amount: numeric('amount', { precision: 12, scale: 2 }).notNull(),
  paymentMethod: text('payment_method', { enum: PAYMENT_METHODS }),
  paidAt: ts('paid_at'),
  createdAt: ts('created_at').notNull().defaultNow(),
  /** The buyer as entered at checkout (0401); null for orders made before it. */
  customer: jsonb('customer').$type<OrderCustomer>(),
  /** When a paid order was refunded (0501). */
  refundedAt: ts('refunded_at'),
  /** Card instalments, and the gateway's payment instructions (0702). */
  installments: integer('installments'),
  pixCopyPaste: text('pix_copy_paste'),
  pixExpiresAt: ts('pix_expires_at'),
  boletoDigitableLine: text('boleto_digitable_line'),
  boletoBarcode: text('boleto_barcode'),
  /** The calendar due date, `YYYY-MM-DD`. */
  boletoDueDate: date('boleto_due_date', { mode: 'string' }),
  boletoUrl: text('boleto_url'),
  /** When a still-pending order is abandoned; null: ORDER_ABANDON_AFTER_SECONDS after created_at. */
  abandonAt: ts('abandon_at'),
  /** The checkout's language, which its e-mails speak; null before 0920 and for renewals. */
  language: text('language', { enum: ['pt-BR', 'en'] }),
  /** The buyer agreed at the checkout to a reminder should the order be left unpaid (0920). */
  recoveryConsent: boolean('recovery_consent').notNull().default(false),
  /** What the PSP split off for the platform, and what it kept as its own fee; null: none or unknown (0905). */
  platformFee: numeric('platform_fee', { precision: 12, scale: 2 }),
  gatewayFee: numeric('gateway_fee', { precision: 12, scale: 2 }),
  /** What the checkout visit carried (src/shared/tracking.ts; 0930). */
  tracking: jsonb('tracking').$type<VisitTracking>(),
  /** Who asked for the refund (`seller`: the panel; `buyer`: the buyer's page) and the buyer's reason (0940). */
  refundRequestedBy: text('refund_requested_by', { enum: ['seller', 'buyer'] }),
  refundReason: text('refund_reason'),
  /** When a buyer's refund was queued because the gateway did not answer; the order stays paid until it does (0943). */
  refundQueuedAt: ts('refund_queued_at'),
});

/** Buyer e-mails (lower-cased) a company has seen at its checkout, per mode (0501): `lead.created` once each. */
export const leads = pgTable(
  'leads',
  {
    companyId: id64('company_id').notNull(),
    livemode: boolean('livemode').notNull(),
    email: text('email').notNull(),
    createdAt: ts('created_at')
      .notNull()
      .default(sql`clock_timestamp()`),
  },
  (table) => [primaryKey({ columns: [table.companyId, table.livemode, table.email] })],
);

/** Buyer contact data of an order, in wire form (phone `+digits`, document digits only). */
export interface OrderCustomer {
  name: string | null;
  email: string | null;
  phone: string | null;
  document: string | null;
}

export const integrations = pgTable('integrations', {
  id: serial('id').primaryKey(),
  companyId: id64('company_id').notNull(),
  type: text('type').notNull(),
  isActive: boolean('is_active').notNull().default(true),
  /** What the integration's kind keeps in the clear (src/integrations/kinds/). */
  config: jsonb('config').$type<Record<string, string | number | boolean>>().notNull().default({}),
  events: text('events')
    .array()
    .notNull()
    .default(sql`'{}'`),
  sendToAllProducts: boolean('send_to_all_products').notNull().default(false),
  productIds: integer('product_ids')
    .array()
    .notNull()
    .default(sql`'{}'`),
  failureCount: integer('failure_count').notNull().default(0),
  lastFailureAt: ts('last_failure_at'),
  disabledReason: text('disabled_reason').notNull().default(''),
  // A gateway's pending OAuth authorization is the gateways' (gateway_authorizations, 0923).
  previousSecret: text('previous_secret'),
  previousSecretExpiresAt: ts('previous_secret_expires_at'),
  rateLimitPerSecond: integer('rate_limit_per_second'),
  /** Dotted path of the event body → value or values; null: every subscribed event (0803). */
  filter:
    jsonb('filter').$type<Record<string, string | number | boolean | Array<string | number | boolean>>>(),
  /** Custom header name → value sealed with the credentials key ring; null: none (0804). */
  headers: jsonb('headers').$type<Record<string, string>>(),
  /** Which events the fan-out hands it, as its kind decided at the last save (0915). */
  receives: text('receives', { enum: ['all', 'live', 'none'] })
    .notNull()
    .default('none'),
  /** The kind's other credentials, name → value sealed like `headers`; null: none (0915). */
  secrets: jsonb('secrets').$type<Record<string, string>>(),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

export const integrationProducts = pgTable('integration_products', {
  id: serial('id').primaryKey(),
  integrationId: integer('integration_id').notNull(),
  productId: integer('product_id').notNull(),
  isActive: boolean('is_active').notNull().default(true),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export const events = pgTable('events', {
  id: text('id').primaryKey(),
  companyId: id64('company_id').notNull(),
  type: text('type').notNull(),
  livemode: boolean('livemode').notNull(),
  test: boolean('test').notNull().default(false),
  productId: integer('product_id'),
  payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
  createdAt: ts('created_at')
    .notNull()
    .default(sql`clock_timestamp()`),
  /** When a relay claimed the event, before `event_outbox` (0960); null since: a claimed event has no outbox row. */
  relayedAt: ts('relayed_at'),
  /** Write order of the outbox: the relay claims events in this order. */
  seq: bigserial('seq', { mode: 'number' }).notNull(),
  /** The integration an operational event describes (never delivered to it). */
  integrationId: integer('integration_id'),
  /** The trace context the event was recorded in (tracing on), continued by its webhook POSTs. */
  traceContext: jsonb('trace_context').$type<TraceCarrier>(),
  /** When the e-mail relay queued the event's e-mails; null until then (0920). */
  emailsAt: ts('emails_at'),
});

/**
 * Events no relay has claimed yet, one row each: written with the event (a trigger), deleted by the
 * claim (0960). Small whatever the size of `events`, so the claim's reads stay cheap.
 */
export const eventOutbox = pgTable('event_outbox', {
  seq: bigint('seq', { mode: 'number' }).primaryKey(),
  companyId: id64('company_id').notNull(),
  eventId: text('event_id').notNull(),
});

export const deliveries = pgTable('deliveries', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  eventId: text('event_id').notNull(),
  integrationId: integer('integration_id').notNull(),
  status: text('status', { enum: DELIVERY_STATUSES }).notNull().default('pending'),
  attempts: integer('attempts').notNull().default(0),
  nextAttemptAt: ts('next_attempt_at'),
  lastStatusCode: integer('last_status_code'),
  lastError: text('last_error'),
  ...clockStamps(),
});

export const deliveryLanes = pgTable('delivery_lanes', {
  integrationId: integer('integration_id').primaryKey(),
  generation: id64('generation').notNull().default(1),
  jobAt: ts('job_at'),
  wakeSeq: id64('wake_seq').notNull().default(1),
  bumpedAtWake: id64('bumped_at_wake').notNull().default(1),
  owner: text('owner'),
  leaseUntil: ts('lease_until'),
  pausedUntil: ts('paused_until'),
  nextStartAt: ts('next_start_at'),
  updatedAt: ts('updated_at')
    .notNull()
    .default(sql`clock_timestamp()`),
});

export const deliveryAttempts = pgTable('delivery_attempts', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  deliveryId: id64('delivery_id').notNull(),
  eventId: text('event_id').notNull(),
  integrationId: integer('integration_id').notNull(),
  attempt: integer('attempt').notNull(),
  requestedAt: ts('requested_at').notNull(),
  statusCode: integer('status_code'),
  error: text('error'),
  durationMs: integer('duration_ms').notNull(),
  responseBody: text('response_body'),
  requestHeaders: jsonb('request_headers').$type<Record<string, string>>(),
  requestBody: text('request_body'),
});

export const deliveryRecoveries = pgTable('delivery_recoveries', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  integrationId: integer('integration_id').notNull(),
  since: ts('since').notNull(),
  cursor: id64('cursor').notNull().default(0),
  upToId: id64('up_to_id').notNull(),
  requested: integer('requested').notNull(),
  recovered: integer('recovered').notNull().default(0),
  finishedAt: ts('finished_at'),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export const dashboardSessions = pgTable('dashboard_sessions', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  sessionHash: text('session_hash').notNull(),
  companyId: id64('company_id').notNull(),
  panelTokenId: id64('panel_token_id'),
  apiKeyId: id64('api_key_id'),
  createdAt: ts('created_at').notNull().defaultNow(),
  expiresAt: ts('expires_at').notNull(),
  revokedAt: ts('revoked_at'),
});

/** A company's connection to its PSP account; tokens sealed with the credentials key ring (0801). */
export const gatewayAccounts = pgTable('gateway_accounts', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  companyId: id64('company_id').notNull(),
  provider: text('provider', { enum: ['mercadopago'] }).notNull(),
  accountId: text('account_id').notNull(),
  integrationId: integer('integration_id'),
  publicKey: text('public_key').notNull(),
  accessToken: text('access_token').notNull(),
  refreshToken: text('refresh_token').notNull(),
  tokenExpiresAt: ts('token_expires_at').notNull(),
  tokenLifetimeSeconds: integer('token_lifetime_seconds').notNull(),
  liveMode: boolean('live_mode').notNull().default(true),
  connectedAt: ts('connected_at')
    .notNull()
    .default(sql`clock_timestamp()`),
  refreshedAt: ts('refreshed_at'),
  revokedAt: ts('revoked_at'),
});

export const GATEWAY_PROVIDERS = ['dev', 'callback', 'mercadopago'] as const;
export type GatewayProvider = (typeof GATEWAY_PROVIDERS)[number];
export const CHARGE_STATES = ['starting', 'charged', 'dropped'] as const;

/** One charge asked of a gateway, written before the call; its order_code is the idempotency key (0801). */
export const gatewayCharges = pgTable('gateway_charges', {
  orderCode: uuid('order_code').primaryKey(),
  companyId: id64('company_id').notNull(),
  provider: text('provider', { enum: GATEWAY_PROVIDERS }).notNull(),
  accountId: id64('account_id'),
  paymentLinkId: text('payment_link_id'),
  subscriptionId: id64('subscription_id'),
  state: text('state', { enum: CHARGE_STATES }).notNull().default('starting'),
  reference: text('reference'),
  declineReason: text('decline_reason', {
    enum: ['insufficient_funds', 'security_code', 'call_issuer', 'other'],
  }),
  request: jsonb('request').$type<Record<string, unknown>>().notNull(),
  ...clockStamps(),
  reconcileAt: ts('reconcile_at'),
  reconcileCount: integer('reconcile_count').notNull().default(0),
});

export * from './schema-emails.js';
export * from './schema-buyer.js';
export * from './schema-gateways.js';
