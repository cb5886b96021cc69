/**
 * The Mercado Pago stand-in: one loopback HTTP server that answers as MP's API, OAuth screen and
 * JS SDK host do, with the state of one MP application (client id and secret, webhook secret) and
 * of the seller accounts connected to it. Which MP reference page each part follows:
 *
 * - OAuth ("OAuth" docs: "Get Access Token", "Renew Access Token", "Best practices"; reference
 *   "Create and refresh token" `POST /oauth/token` with its error table): the authorization screen
 *   at `{authUrl}/authorization`, the authorization_code grant (with PKCE) and the refresh_token
 *   grant, which rotates the refresh token.
 * - Payments (reference "Payments": "Create payment", "Get payment", "Search payments"; Checkout Transparente "Pix", "Boleto", "Cards" integration pages; "Test cards" for
 *   the cardholder names APRO, OTHE, CONT, CALL, FUND, SECU, EXPI, FORM…): `POST /v1/payments`
 *   with X-Idempotency-Key, `GET /v1/payments/{id}`, `GET /v1/payments/search`. Every request a
 *   seller's server sends is first checked against ./requests.ts (schemas from MP's reference).
 * - Refunds (reference "Refunds": "Create refund"):
 *   `POST /v1/payments/{id}/refunds`.
 * - Chargebacks ("Chargeback management": "Manage chargebacks"; reference "Get chargeback"):
 *   `GET /v1/chargebacks/{id}`.
 * - Card tokens and payment methods (what MercadoPago.js calls; sdk-js "Core methods" and "Fields
 *   module"): `POST /v1/card_tokens`, `GET /v1/payment_methods/search`.
 * - Notifications ("Webhooks" notifications page, "Validate notification origin"): POST to the
 *   payment's notification_url with `?data.id=&type=`, signed in `x-signature` over the manifest
 *   `id:{data.id};request-id:{x-request-id};ts:{ts};`.
 * - The SDK script and Secure Fields frames: see ./sdk.ts.
 *
 * Where MP's pages are silent the stand-in picks the plainest behaviour and says so in a comment.
 */
import { createHash, createHmac, randomBytes, randomInt, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import express, { type NextFunction, type Request, type Response } from 'express';
import QRCode from 'qrcode';
import {
  CARD_BRANDS,
  CARD_SHAPES,
  ISSUER_IDS,
  PAYMENT_METHODS,
  brandOf,
  bradescoBoleto,
  brasiliaDay,
  luhnValid,
  mpDate,
  paymentMethodForBin,
  pixCode,
  pixKeyOf,
  snakeKeys,
  validDocument,
  mercadoPagoFee,
  type CardBrand,
} from './instruments.js';
import { requestProblems } from './requests.js';
import { fieldFrame, isFieldType, sdkScript } from './sdk.js';
import type {
  MpCardToken,
  MpChargeback,
  MpError,
  MpIpnNotification,
  MpNotification,
  MpOAuthError,
  MpPayment,
  MpPaymentStatus,
  MpRefund,
  MpTokenResponse,
} from './wire.js';

/** A Mercado Pago account that connects to the application (a seller company's). */
export interface Seller {
  /** MP's numeric account id: `user_id` in token answers, `collector_id` on payments. */
  userId: number;
  nickname: string;
  email: string;
  /** The receiver name in its Pix BR Codes (ASCII, up to 25 characters). */
  name: string;
  city: string;
}

export interface StandInOptions {
  /** The MP application's credentials; generated when not given. */
  clientId?: string;
  clientSecret?: string;
  /** The application's webhook secret (Your integrations → Webhooks); generated when not given. */
  webhookSecret?: string;
  /** Redirect URLs registered for the application; when given, the authorization checks against them. */
  redirectUris?: string[];
  /** Seconds an access token lives: `expires_in` (default 15552000, 180 days). */
  expiresIn?: number;
  /** `live_mode` of tokens, payments and notifications (default true: production credentials). */
  liveMode?: boolean;
  /** MP refuses a payment without X-Idempotency-Key (default true). */
  requireIdempotencyKey?: boolean;
  /** Send `payment.created` to the notification_url when a payment is created (default true). */
  notifyOnCreate?: boolean;
  /** The application's webhook URL, used for a payment created without notification_url. */
  webhookUrl?: string;
  /** How long a notification waits for the receiver's answer (default 10 s). */
  notificationTimeoutMs?: number;
  /** The clock for dates and token lifetimes (default: the real one). */
  now?: () => Date;
}

/** A fault `failNext` arms: an error status, a dropped connection, or a slow answer. */
export type Fault =
  | { status: 408 | 429 | 500 | 502 | 503 }
  /** The connection is dropped before anything is done: nothing was created. */
  | { kind: 'reset' }
  /** The request waits `ms` before it is handled. */
  | { kind: 'delay'; ms: number }
  /** The request is handled (the payment, refund or token exists), then the answer is lost. */
  | { kind: 'reset-after-create' }
  /** The request is handled at once; its answer leaves `ms` later (a client may time out first). */
  | { kind: 'delay-after-create'; ms: number };

export interface FaultMatcher {
  /** GET, POST…; any method when absent. */
  method?: string;
  /** Tested against the path without the query, e.g. /^\/v1\/payments$/. */
  path: RegExp;
}

/** One request the stand-in received. Tokens and card data never appear in it. */
export interface LoggedRequest {
  at: Date;
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  /** Lower-case names; `authorization` reads `user_id=<id>` for the seller it authenticated as. */
  headers: Record<string, string>;
  /** The parsed body, with secrets and card numbers masked. */
  body: unknown;
  /** The seller whose access token (or public key) the request carried, when valid. */
  userId: number | null;
  /** The status answered; null when the connection was dropped. */
  status: number | null;
  /** The fault applied, if any (`status 503`, `reset`, `delay 200`, `reset-after-create`…). */
  fault: string | null;
  /** True when an X-Idempotency-Key replay was answered from the first request's answer. */
  replayed: boolean;
}

/** One attempt at delivering a notification. */
export interface NotificationDelivery {
  notificationId: number;
  url: string;
  requestId: string;
  /** The receiver's status; null when it could not be reached or timed out. */
  status: number | null;
  error: string | null;
  at: Date;
}

/** A notification the stand-in sent, with every attempt at it. */
export interface SentNotification {
  id: number;
  userId: number;
  /**
   * `webhook`: signed, the notification_url with `data.id` and `type` added. `ipn`: MP's older,
   * unsigned call, the notification_url with `topic` and `id` added.
   */
  kind: 'webhook' | 'ipn';
  url: string;
  body: MpNotification | MpIpnNotification;
  deliveries: NotificationDelivery[];
}

/** What a control method changed, and what its notification's receiver answered. */
export interface Outcome {
  payment: MpPayment;
  /** null when the payment has no notification_url (nor the application a webhook URL) or `notify: false`. */
  delivery: NotificationDelivery | null;
}

export interface ControlOptions {
  /** false models a lost notification: the payment changes, nothing is sent. */
  notify?: boolean;
}

/** A card for `createCardToken`; each part defaults to MP's Brazilian Visa test card. */
export interface TestCard {
  number?: string;
  expirationMonth?: number;
  expirationYear?: number;
  securityCode?: string;
  /** The cardholder name decides the outcome in MP's sandbox: APRO, OTHE, CONT, CALL, FUND, SECU… */
  holder?: string;
  identification?: { type: 'CPF' | 'CNPJ'; number: string };
}

interface Answer {
  status: number;
  body: unknown;
}

interface CodeGrant {
  userId: number;
  redirectUri: string;
  challenge: { value: string; method: 'S256' | 'plain' } | null;
  expiresAt: number;
  used: boolean;
}

interface AccessToken {
  userId: number;
  expiresAt: number;
  revoked: boolean;
}

interface RefreshToken {
  userId: number;
  active: boolean;
}

interface CardTokenRecord {
  json: MpCardToken;
  userId: number;
  brand: CardBrand;
  expiresAt: number;
  usedAt: number | null;
}

interface ChargebackRecord {
  json: MpChargeback;
  userId: number;
}

interface ArmedFault {
  matcher: FaultMatcher;
  fault: Fault;
  remaining: number;
}

/** MP's `message` and `error` for each status a fault answers with (MP's error shape, `cause` empty). */
const FAULT_WORDS: Record<Extract<Fault, { status: number }>['status'], [string, string]> = {
  408: ['request_timeout', 'request_timeout'],
  429: ['too_many_requests', 'too_many_requests'],
  500: ['internal_error', 'internal_server_error'],
  502: ['bad_gateway', 'bad_gateway'],
  503: ['service_unavailable', 'service_unavailable'],
};

type AfterFault = Extract<Fault, { kind: 'reset-after-create' | 'delay-after-create' }>;

/** Outcomes of MP's sandbox by cardholder name ("Test cards"); any other name is approved. */
const CARD_OUTCOMES: Record<string, [MpPaymentStatus, string]> = {
  APRO: ['approved', 'accredited'],
  OTHE: ['rejected', 'cc_rejected_other_reason'],
  CONT: ['in_process', 'pending_contingency'],
  CALL: ['rejected', 'cc_rejected_call_for_authorize'],
  FUND: ['rejected', 'cc_rejected_insufficient_amount'],
  SECU: ['rejected', 'cc_rejected_bad_filled_security_code'],
  EXPI: ['rejected', 'cc_rejected_bad_filled_date'],
  FORM: ['rejected', 'cc_rejected_bad_filled_other'],
  CARD: ['rejected', 'cc_rejected_bad_filled_card_number'],
  INST: ['rejected', 'cc_rejected_invalid_installments'],
  DUPL: ['rejected', 'cc_rejected_duplicated_payment'],
  LOCK: ['rejected', 'cc_rejected_card_disabled'],
  ATTE: ['rejected', 'cc_rejected_max_attempts'],
  BLAC: ['rejected', 'cc_rejected_blacklist'],
};

const DEFAULT_EXPIRES_IN = 15_552_000;
const CODE_TTL_MS = 10 * 60_000;
const CARD_TOKEN_TTL_MS = 7 * 24 * 3600_000;
const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined;

const round2 = (n: number): number => Math.round(n * 100) / 100;

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

/** MP's error body. Codes are those of MP's published error lists; 1 ("Params Error") where none fits. */
function mpError(status: number, message: string, code?: number | string, description?: string): Answer {
  const error: MpError = {
    message,
    error: status === 404 ? 'not_found' : status === 401 ? 'unauthorized' : 'bad_request',
    status,
    cause: code === undefined ? [] : [{ code, description: description ?? message, data: null }],
  };
  return { status, body: error };
}

const badRequest = (code: number | string, description: string): Answer =>
  mpError(400, description, code, description);

const paymentNotFound = (): Answer => mpError(404, 'Payment not found', 2000, 'Payment not found');

function oauthError(error: MpOAuthError['error'], message: string): Answer {
  const body: MpOAuthError = { error, message, status: 400, cause: [] };
  return { status: 400, body };
}

/** MP's answer to an unknown, expired or revoked access token. */
const INVALID_TOKEN: Answer = {
  status: 401,
  body: { message: 'invalid_token', error: 'not_found', status: 401, cause: [] } satisfies MpError,
};

/** No Authorization header at all (MP's wording for this case is not documented). */
const NO_TOKEN: Answer = {
  status: 401,
  body: { message: 'unauthorized', error: 'unauthorized', status: 401, cause: [] } satisfies MpError,
};

const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/** Query parameters as strings (repeated ones as arrays), from the raw URL. */
function queryOf(req: Request): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of new URL(req.originalUrl, 'http://stand-in').searchParams) {
    const existing = out[key];
    out[key] =
      existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}

const firstQuery = (req: Request, name: string): string | undefined =>
  new URL(req.originalUrl, 'http://stand-in').searchParams.get(name) ?? undefined;

/** A copy of a request body fit for a log: OAuth secrets and card data masked. */
function maskedBody(path: string, body: unknown): unknown {
  if (!isRecord(body)) return body;
  const copy: Record<string, unknown> = structuredClone(body);
  if (path === '/oauth/token') {
    for (const key of ['client_secret', 'code', 'refresh_token', 'code_verifier'])
      if (key in copy) copy[key] = '(masked)';
  }
  if (path === '/v1/card_tokens') {
    if (typeof copy.card_number === 'string')
      copy.card_number = `${copy.card_number.slice(0, 6)}…${copy.card_number.slice(-4)}`;
    if ('security_code' in copy) copy.security_code = '(masked)';
  }
  return copy;
}

/** The value at a dotted path (`payer.email`) of a payment, as a string for a search filter. */
function fieldAt(payment: MpPayment, path: string): string | undefined {
  let value: unknown = payment;
  for (const part of path.split('.')) {
    if (!isRecord(value)) return undefined;
    value = value[part];
  }
  return value === null || value === undefined ? undefined : String(value);
}

export class MercadoPagoStandIn {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly webhookSecret: string;

  private readonly server: http.Server;
  private readonly options: Required<
    Omit<StandInOptions, 'clientId' | 'clientSecret' | 'webhookSecret' | 'redirectUris' | 'webhookUrl'>
  > & {
    redirectUris: string[] | undefined;
    webhookUrl: string | undefined;
  };
  private baseUrl = '';

  private readonly sellers = new Map<number, Seller>();
  private readonly publicKeys = new Map<string, number>();
  private readonly publicKeyOf = new Map<number, string>();
  private readonly codes = new Map<string, CodeGrant>();
  private readonly accessTokens = new Map<string, AccessToken>();
  private readonly refreshTokens = new Map<string, RefreshToken>();
  private readonly payments = new Map<number, MpPayment>();
  /** The `application_fee` each payment was made with (MP answers it only inside `fee_details`). */
  private readonly applicationFees = new Map<number, number>();
  private readonly cardTokens = new Map<string, CardTokenRecord>();
  private readonly chargebackRecords = new Map<string, ChargebackRecord>();
  /** Answers by seller, operation and X-Idempotency-Key; a promise while the first is being handled. */
  private readonly idempotent = new Map<string, Promise<Answer>>();
  private readonly faults: ArmedFault[] = [];
  private readonly afterFaults = new WeakMap<Request, AfterFault>();
  private readonly entries = new WeakMap<Request, LoggedRequest>();
  private readonly log: LoggedRequest[] = [];
  private readonly sent = new Map<number, SentNotification>();
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Errors thrown inside the stand-in (its own bugs): a test may assert there are none. */
  readonly errors: Error[] = [];

  private nextUserId = 1_100_000_000 + randomInt(100_000_000);
  private nextPaymentId = 1_320_000_000 + randomInt(10_000_000) * 10;
  private nextRefundId = 1_700_000_000 + randomInt(10_000_000);
  private nextChargebackId = 236_000_000_000 + randomInt(1_000_000_000);
  private nextNotificationId = 115_000_000_000 + randomInt(1_000_000_000);

  private constructor(options: StandInOptions) {
    this.clientId =
      options.clientId ?? `${randomInt(1000, 10_000)}${String(randomInt(1e12)).padStart(12, '0')}`;
    this.clientSecret = options.clientSecret ?? randomBytes(24).toString('base64url');
    this.webhookSecret = options.webhookSecret ?? hex(32);
    this.options = {
      expiresIn: options.expiresIn ?? DEFAULT_EXPIRES_IN,
      liveMode: options.liveMode ?? true,
      requireIdempotencyKey: options.requireIdempotencyKey ?? true,
      notifyOnCreate: options.notifyOnCreate ?? true,
      notificationTimeoutMs: options.notificationTimeoutMs ?? 10_000,
      now: options.now ?? (() => new Date()),
      redirectUris: options.redirectUris,
      webhookUrl: options.webhookUrl,
    };
    this.server = http.createServer(this.app());
  }

  /** Starts a stand-in on 127.0.0.1 and a free port. */
  static async start(options: StandInOptions = {}): Promise<MercadoPagoStandIn> {
    const standIn = new MercadoPagoStandIn(options);
    await new Promise<void>((resolve) => standIn.server.listen(0, '127.0.0.1', resolve));
    const { port } = standIn.server.address() as AddressInfo;
    standIn.baseUrl = `http://127.0.0.1:${port}`;
    return standIn;
  }

  /** MERCADOPAGO_API_URL: where `/v1/...` and `/oauth/token` are (MP's api.mercadopago.com). */
  get apiUrl(): string {
    return this.baseUrl;
  }

  /** MERCADOPAGO_AUTH_URL: `{authUrl}/authorization` is the consent screen (MP's auth.mercadopago.com). */
  get authUrl(): string {
    return `${this.baseUrl}/auth`;
  }

  /** MERCADOPAGO_SDK_URL: the script's own URL (MP's https://sdk.mercadopago.com/js/v2). */
  get sdkUrl(): string {
    return `${this.baseUrl}/js/v2`;
  }

  /** The three URLs as the service reads them from its environment. */
  env(): { MERCADOPAGO_API_URL: string; MERCADOPAGO_AUTH_URL: string; MERCADOPAGO_SDK_URL: string } {
    return {
      MERCADOPAGO_API_URL: this.apiUrl,
      MERCADOPAGO_AUTH_URL: this.authUrl,
      MERCADOPAGO_SDK_URL: this.sdkUrl,
    };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private now(): number {
    return this.options.now().getTime();
  }

  // ---------------------------------------------------------------- sellers and OAuth

  /** A new seller account (unique user_id), known to the stand-in. */
  createSeller(input: Partial<Seller> = {}): Seller {
    const userId = input.userId ?? this.nextUserId++;
    const seller: Seller = {
      userId,
      nickname: input.nickname ?? `TESTUSER${userId}`,
      email: input.email ?? `test_user_${userId}@testuser.com`,
      name: input.name ?? `VENDEDOR ${userId}`,
      city: input.city ?? 'SAO PAULO',
    };
    this.sellers.set(userId, seller);
    return seller;
  }

  seller(userId: number): Seller | undefined {
    return this.sellers.get(userId);
  }

  private known(seller: Seller): Seller {
    return this.sellers.get(seller.userId) ?? this.createSeller(seller);
  }

  /** The authorization request in a URL's query, or why MP's screen would refuse it. */
  private authorizationRequest(
    params: URLSearchParams,
  ): { redirectUri: string; state: string | null; challenge: CodeGrant['challenge'] } | { error: string } {
    if (params.get('client_id') !== this.clientId) return { error: 'client_id is not a known application' };
    if (params.get('response_type') !== 'code') return { error: 'response_type must be code' };
    const platform = params.get('platform_id');
    if (platform !== null && platform !== 'mp') return { error: 'platform_id must be mp' };
    const redirectUri = params.get('redirect_uri');
    if (!redirectUri) return { error: 'redirect_uri is required' };
    if (!URL.canParse(redirectUri)) return { error: 'redirect_uri is not a URL' };
    if (this.options.redirectUris && !this.options.redirectUris.includes(redirectUri))
      return { error: 'redirect_uri is not registered for the application' };
    const challenge = params.get('code_challenge');
    const method = params.get('code_challenge_method') ?? 'plain';
    if (challenge === null) return { redirectUri, state: params.get('state'), challenge: null };
    if (method !== 'S256' && method !== 'plain')
      return { error: 'code_challenge_method must be S256 or plain' };
    if (!/^[A-Za-z0-9._~-]{43,128}$/.test(challenge)) return { error: 'code_challenge is malformed' };
    return { redirectUri, state: params.get('state'), challenge: { value: challenge, method } };
  }

  private issueCode(userId: number, redirectUri: string, challenge: CodeGrant['challenge']): string {
    const code = `TG-${hex(12)}-${userId}`;
    this.codes.set(code, {
      userId,
      redirectUri,
      challenge,
      expiresAt: this.now() + CODE_TTL_MS,
      used: false,
    });
    return code;
  }

  /**
   * The seller accepts the consent screen at `authorizationUrl` (what the service redirected the
   * browser to): validates its query as MP does and returns the URL MP redirects back to,
   * `redirect_uri?code=TG-…&state=…`. The code is single-use, lives 10 minutes and is bound to the
   * seller, the application, the redirect_uri and the PKCE challenge. Throws for a query MP refuses.
   */
  async authorize(authorizationUrl: string, seller: Seller): Promise<string> {
    const url = new URL(authorizationUrl);
    if (`${url.origin}${url.pathname}` !== `${this.authUrl}/authorization`)
      throw new Error(
        `${url.origin}${url.pathname} is not the stand-in's authorization screen (${this.authUrl}/authorization)`,
      );
    const request = this.authorizationRequest(url.searchParams);
    if ('error' in request) throw new Error(`Mercado Pago refuses the authorization: ${request.error}`);
    const { userId } = this.known(seller);
    return this.redirectBack(request, this.issueCode(userId, request.redirectUri, request.challenge));
  }

  private redirectBack(request: { redirectUri: string; state: string | null }, code: string): string {
    const back = new URL(request.redirectUri);
    back.searchParams.set('code', code);
    if (request.state !== null) back.searchParams.set('state', request.state);
    return back.toString();
  }

  private ensurePublicKey(userId: number): string {
    let key = this.publicKeyOf.get(userId);
    if (!key) {
      key = `APP_USR-${randomUUID()}`;
      this.publicKeyOf.set(userId, key);
      this.publicKeys.set(key, userId);
    }
    return key;
  }

  private tokensFor(userId: number, grant: 'authorization_code' | 'refresh_token'): MpTokenResponse {
    const stamp = new Date(this.now()).toISOString();
    const accessToken = `APP_USR-${this.clientId}-${stamp.slice(5, 7)}${stamp.slice(8, 10)}${stamp.slice(11, 13)}-${hex(16)}-${userId}`;
    this.accessTokens.set(accessToken, {
      userId,
      expiresAt: this.now() + this.options.expiresIn * 1000,
      revoked: false,
    });
    const refreshToken = `TG-${hex(12)}-${userId}`;
    this.refreshTokens.set(refreshToken, { userId, active: true });
    const tokens: MpTokenResponse = {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: this.options.expiresIn,
      scope: 'offline_access read write',
      refresh_token: refreshToken,
    };
    // The refresh answers as the "Renew access token" guide's example: the tokens alone.
    if (grant === 'refresh_token') return tokens;
    return {
      ...tokens,
      user_id: userId,
      public_key: this.ensurePublicKey(userId),
      live_mode: this.options.liveMode,
    };
  }

  /** Tokens for a seller as if it had gone through OAuth: for tests that start from a connected account. */
  issueTokens(seller: Seller): MpTokenResponse {
    return this.tokensFor(this.known(seller).userId, 'authorization_code');
  }

  /** The seller's public key (what its checkout gives MercadoPago.js). */
  publicKey(userId: number): string {
    return this.ensurePublicKey(userId);
  }

  /** Every access token of the seller answers 401 from now on; its refresh token still works. */
  expireAccessToken(userId: number): void {
    for (const token of this.accessTokens.values())
      if (token.userId === userId) token.expiresAt = Math.min(token.expiresAt, this.now() - 1);
  }

  /**
   * The seller revoked the application on MP: its refresh tokens answer invalid_grant and its
   * access tokens 401. A new authorization connects it again.
   */
  revokeGrant(userId: number): void {
    for (const token of this.refreshTokens.values()) if (token.userId === userId) token.active = false;
    for (const token of this.accessTokens.values()) if (token.userId === userId) token.revoked = true;
  }

  private oauthToken(body: unknown): Answer {
    if (!isRecord(body)) return oauthError('invalid_request', 'the body must carry the parameters');
    const grantType = text(body.grant_type);
    if (!grantType) return oauthError('invalid_request', 'grant_type is required');
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token')
      return oauthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
    if (body.client_id === undefined || body.client_secret === undefined)
      return oauthError('invalid_request', 'client_id and client_secret are required');
    if (String(body.client_id) !== this.clientId || body.client_secret !== this.clientSecret)
      return oauthError('invalid_client', 'invalid client_id or client_secret');
    // The whole body against the reference's shape (./requests.ts), in OAuth's error words.
    const problem = requestProblems.oauthToken(body);
    if (problem) return oauthError('invalid_request', problem.body.message);

    if (grantType === 'refresh_token') {
      const refreshToken = text(body.refresh_token);
      if (!refreshToken) return oauthError('invalid_request', 'refresh_token is required');
      const record = this.refreshTokens.get(refreshToken);
      if (!record || !record.active) return oauthError('invalid_grant', 'invalid refresh_token');
      // Rotation: the refresh token used is spent; the answer carries its successor.
      record.active = false;
      return { status: 200, body: this.tokensFor(record.userId, 'refresh_token') };
    }

    const code = text(body.code);
    if (!code) return oauthError('invalid_request', 'code is required');
    const grant = this.codes.get(code);
    if (!grant || grant.used || grant.expiresAt <= this.now())
      return oauthError('invalid_grant', 'invalid authorization code');
    if (body.redirect_uri !== grant.redirectUri)
      return oauthError('invalid_grant', 'redirect_uri does not match the one authorized');
    if (grant.challenge) {
      const verifier = text(body.code_verifier);
      const expected = grant.challenge.method === 'S256' && verifier ? s256(verifier) : verifier;
      if (!verifier || expected !== grant.challenge.value)
        return oauthError('invalid_grant', 'code_verifier does not match the code_challenge');
    }
    grant.used = true;
    return { status: 200, body: this.tokensFor(grant.userId, 'authorization_code') };
  }

  /** The seller an access token in `Authorization: Bearer` belongs to, or MP's 401. */
  private authenticate(req: Request): { userId: number } | { answer: Answer } {
    const header = req.get('authorization');
    if (!header) return { answer: NO_TOKEN };
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const token = match?.[1] ? this.accessTokens.get(match[1]) : undefined;
    if (!token || token.revoked || token.expiresAt <= this.now()) return { answer: INVALID_TOKEN };
    return { userId: token.userId };
  }

  /** What a log shows for an Authorization header: whose token it was, never the token. */
  private describeAuthorization(header: string): { text: string; userId: number | null } {
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const token = match?.[1] ? this.accessTokens.get(match[1]) : undefined;
    if (!token) return { text: '(unknown token)', userId: null };
    if (token.revoked) return { text: `user_id=${token.userId} (revoked)`, userId: null };
    if (token.expiresAt <= this.now()) return { text: `user_id=${token.userId} (expired)`, userId: null };
    return { text: `user_id=${token.userId}`, userId: token.userId };
  }

  /** The seller of `?public_key=` (what MercadoPago.js sends) or of a Bearer token. */
  private publicCaller(req: Request): { userId: number } | { answer: Answer } {
    const key = firstQuery(req, 'public_key');
    if (key !== undefined) {
      const userId = this.publicKeys.get(key);
      // MP's wording for an unknown public key is not documented.
      return userId === undefined ? { answer: mpError(404, 'public_key not found') } : { userId };
    }
    return this.authenticate(req);
  }

  // ---------------------------------------------------------------- card tokens

  private cardTokenRecord(userId: number, body: unknown): Answer {
    if (!isRecord(body)) return mpError(400, 'invalid parameters', 1, 'body must be a JSON object');
    // Cause codes of the card token API, as MercadoPago.js v1 documented them.
    const number = typeof body.card_number === 'string' ? body.card_number.replace(/\s/g, '') : '';
    if (number === '') return badRequest('205', 'parameter cardNumber can not be null/empty');
    const brand = brandOf(number);
    if (!brand || !luhnValid(number) || number.length !== CARD_SHAPES[brand].numberLength)
      return badRequest('E301', 'invalid parameter cardNumber');
    const month = Number(body.expiration_month);
    const year = Number(body.expiration_year);
    if (body.expiration_month === undefined)
      return badRequest('208', 'parameter cardExpirationMonth can not be null/empty');
    if (body.expiration_year === undefined)
      return badRequest('209', 'parameter cardExpirationYear can not be null/empty');
    if (!Number.isInteger(month) || month < 1 || month > 12)
      return badRequest('325', 'invalid parameter cardExpirationMonth');
    const today = new Date(this.now());
    const thisMonth = today.getUTCFullYear() * 12 + today.getUTCMonth();
    if (!Number.isInteger(year) || year < 1000 || year * 12 + month - 1 < thisMonth)
      return badRequest('326', 'invalid parameter cardExpirationYear');
    const cvv = typeof body.security_code === 'string' ? body.security_code : '';
    if (cvv === '') return badRequest('224', 'parameter securityCode can not be null/empty');
    if (!/^\d+$/.test(cvv) || cvv.length !== CARD_SHAPES[brand].cvvLength)
      return badRequest('E302', 'invalid parameter securityCode');
    const holder = isRecord(body.cardholder) ? body.cardholder : {};
    const name = text(holder.name);
    if (!name) return badRequest('221', 'parameter cardholderName can not be null/empty');
    if (!/^[\p{L} .'-]+$/u.test(name)) return badRequest('316', 'invalid parameter cardholderName');
    const identification = isRecord(holder.identification) ? holder.identification : {};
    const docType = text(identification.type);
    const docNumber = text(identification.number);
    if (docType !== undefined || docNumber !== undefined) {
      if (!docType) return badRequest('212', 'parameter docType can not be null/empty');
      if (!docNumber) return badRequest('214', 'parameter docNumber can not be null/empty');
      if (docType !== 'CPF' && docType !== 'CNPJ') return badRequest('322', 'invalid parameter docType');
      if (!validDocument(docType, docNumber)) return badRequest('324', 'invalid parameter docNumber');
    }
    const now = this.now();
    const json: MpCardToken = {
      id: hex(16),
      public_key: this.ensurePublicKey(userId),
      card_id: null,
      status: 'active',
      date_used: null,
      luhn_validation: true,
      live_mode: this.options.liveMode,
      require_esc: false,
      card_number_length: number.length,
      security_code_length: cvv.length,
      first_six_digits: number.slice(0, 6),
      last_four_digits: number.slice(-4),
      expiration_month: month,
      expiration_year: year,
      date_created: mpDate(new Date(now)),
      date_last_updated: mpDate(new Date(now)),
      date_due: mpDate(new Date(now + CARD_TOKEN_TTL_MS)),
      cardholder: {
        name,
        identification: docType && docNumber ? { type: docType, number: docNumber } : {},
      },
    };
    this.cardTokens.set(json.id, { json, userId, brand, expiresAt: now + CARD_TOKEN_TTL_MS, usedAt: null });
    return { status: 201, body: json };
  }

  /**
   * A card token for the seller, as MercadoPago.js would make in the buyer's browser: for tests of
   * card payments that do not run a browser. Throws with MP's cause when the card is refused.
   */
  createCardToken(seller: Seller, card: TestCard = {}): string {
    const { userId } = this.known(seller);
    const answer = this.cardTokenRecord(userId, {
      card_number: card.number ?? '4235647728025682',
      expiration_month: card.expirationMonth ?? 11,
      expiration_year: card.expirationYear ?? 2030,
      security_code: card.securityCode ?? '123',
      cardholder: {
        name: card.holder ?? 'APRO',
        identification: card.identification ?? { type: 'CPF', number: '12345678909' },
      },
    });
    const body = answer.body;
    if (answer.status !== 201 || !isRecord(body) || typeof body.id !== 'string')
      throw new Error(`card token refused: ${JSON.stringify(body)}`);
    return body.id;
  }

  // ---------------------------------------------------------------- payments

  private async createPayment(userId: number, body: unknown, idempotencyKey?: string): Promise<Answer> {
    if (!isRecord(body)) return badRequest(1, 'the body must be a JSON object');
    const amount = body.transaction_amount;
    if (amount === undefined || amount === null)
      return badRequest(4002, "transaction_amount attribute can't be null");
    if (typeof amount !== 'number' || !Number.isFinite(amount))
      return badRequest(4003, 'transaction_amount attribute must be numeric');
    if (amount <= 0) return badRequest(4037, 'Invalid transaction_amount');
    const methodId = text(body.payment_method_id);
    if (!methodId) return badRequest(4001, "payment_method_id attribute can't be null");
    const method = PAYMENT_METHODS.find((m) => m.id === methodId);
    if (!method) return badRequest(1, `Invalid payment_method_id: ${methodId}`);
    const payer = isRecord(body.payer) ? body.payer : undefined;
    const email = payer ? text(payer.email) : undefined;
    if (!payer || !email || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email) || email.length > 254)
      return badRequest(4050, 'payer.email must be a valid email');
    const notificationUrl = body.notification_url;
    if (
      notificationUrl !== undefined &&
      (typeof notificationUrl !== 'string' ||
        notificationUrl.length > 500 ||
        !URL.canParse(notificationUrl) ||
        !/^https?:$/.test(new URL(notificationUrl).protocol))
    )
      return badRequest(4020, 'notification_url attribute must be url valid');
    if (body.metadata !== undefined && !isRecord(body.metadata))
      return badRequest(4022, 'metadata attribute must be a valid JSON');
    for (const field of ['external_reference', 'description', 'statement_descriptor'] as const)
      if (body[field] !== undefined && typeof body[field] !== 'string')
        return badRequest(1, `${field} must be a string`);
    // Payments API: `application_fee` (number), the marketplace's commission, taken from the
    // seller's share; it cannot reach the amount. The reference is silent on decimals: at most two.
    const applicationFee = body.application_fee;
    if (
      applicationFee !== undefined &&
      (typeof applicationFee !== 'number' ||
        !(applicationFee > 0) ||
        applicationFee >= amount ||
        Math.round(applicationFee * 100) !== applicationFee * 100)
    )
      return badRequest(1, 'application_fee must be a positive number below transaction_amount');
    const expiration = body.date_of_expiration;
    if (
      expiration !== undefined &&
      (typeof expiration !== 'string' ||
        !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?([+-]\d{2}:\d{2}|Z)$/.test(expiration) ||
        Number.isNaN(Date.parse(expiration)))
    )
      return badRequest(1, "date_of_expiration must be a date-time as yyyy-MM-dd'T'HH:mm:ss.SSSZ");
    // "Receiving payment by Pix" guide (mercadopago.com.br/developers/en/docs/checkout-api-payments/
    // integration-configuration/integrate-pix): a Pix expires between 30 minutes and 30 days after
    // the moment MP receives the request.
    if (methodId === 'pix' && typeof expiration === 'string') {
      const ahead = Date.parse(expiration) - this.now();
      if (ahead < 30 * 60_000 || ahead > 30 * DAY_MS)
        return badRequest(
          1,
          'date_of_expiration must be between 30 minutes and 30 days from the creation of a Pix payment',
        );
    }

    // Then the whole request against the reference's shape (./requests.ts).
    const problem = requestProblems.createPayment(body, idempotencyKey);
    if (problem) return problem;

    const id = this.nextPaymentId++;
    const now = this.now();
    const created = mpDate(new Date(now));
    const seller = this.sellers.get(userId) ?? this.createSeller({ userId });
    const ticketUrl = `${this.baseUrl}/payments/${id}/ticket?caller_id=${userId}&hash=${randomUUID()}`;
    const base = {
      id,
      date_created: created,
      date_last_updated: created,
      money_release_date: null,
      operation_type: 'regular_payment' as const,
      payment_method_id: methodId,
      currency_id: 'BRL' as const,
      description: text(body.description) ?? null,
      live_mode: this.options.liveMode,
      collector_id: userId,
      payer: { ...structuredClone(payer), email },
      metadata: isRecord(body.metadata) ? snakeKeys(body.metadata) : {},
      additional_info: isRecord(body.additional_info) ? structuredClone(body.additional_info) : {},
      external_reference: text(body.external_reference) ?? null,
      transaction_amount: amount,
      transaction_amount_refunded: 0,
      fee_details: [],
      captured: true,
      binary_mode: body.binary_mode === true,
      statement_descriptor: text(body.statement_descriptor) ?? null,
      notification_url: typeof notificationUrl === 'string' ? notificationUrl : null,
      processing_mode: 'aggregator' as const,
      refunds: [],
    };

    let payment: MpPayment;
    if (methodId === 'pix') {
      const qr = pixCode({
        key: pixKeyOf(userId),
        name: seller.name,
        city: seller.city,
        amount,
        paymentId: id,
      });
      const png = await QRCode.toBuffer(qr, { type: 'png', errorCorrectionLevel: 'M', margin: 2 });
      payment = {
        ...base,
        date_approved: null,
        date_of_expiration: typeof expiration === 'string' ? expiration : mpDate(new Date(now + DAY_MS)),
        issuer_id: null,
        payment_type_id: 'bank_transfer',
        payment_method: { id: 'pix', type: 'bank_transfer', issuer_id: null },
        status: 'pending',
        status_detail: 'pending_waiting_transfer',
        installments: 1,
        transaction_details: {
          net_received_amount: 0,
          total_paid_amount: amount,
          installment_amount: 0,
          overpaid_amount: 0,
          external_resource_url: null,
          payment_method_reference_id: null,
          financial_institution: null,
        },
        card: {},
        point_of_interaction: {
          type: 'OPENPLATFORM',
          sub_type: null,
          transaction_data: {
            qr_code: qr,
            qr_code_base64: png.toString('base64'),
            ticket_url: ticketUrl,
            transaction_id: null,
            e2e_id: null,
            bank_transfer_id: null,
            financial_institution: null,
          },
        },
      };
    } else if (methodId === 'bolbradesco') {
      const refused = this.boletoPayerProblem(payer);
      if (refused) return refused;
      const dateOfExpiration =
        typeof expiration === 'string' ? expiration : mpDate(new Date(now + 3 * DAY_MS));
      let numbers;
      try {
        numbers = bradescoBoleto(id, amount, brasiliaDay(new Date(Date.parse(dateOfExpiration))));
      } catch (err) {
        return badRequest(
          1,
          `no boleto for this amount or due date: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
      payment = {
        ...base,
        date_approved: null,
        date_of_expiration: dateOfExpiration,
        issuer_id: null,
        payment_type_id: 'ticket',
        payment_method: { id: 'bolbradesco', type: 'ticket', issuer_id: null },
        status: 'pending',
        status_detail: 'pending_waiting_payment',
        installments: 1,
        transaction_details: {
          net_received_amount: 0,
          total_paid_amount: amount,
          installment_amount: 0,
          overpaid_amount: 0,
          external_resource_url: `${ticketUrl}&payment_method_id=bolbradesco`,
          payment_method_reference_id: numbers.barcode.slice(30, 41),
          financial_institution: null,
          digitable_line: numbers.digitableLine,
          // sdk-nodejs src/clients/payment/commonTypes.ts: TransactionDetails.barcode.content.
          barcode: { content: numbers.barcode },
        },
        card: {},
        point_of_interaction: {},
      };
    } else {
      const brand = CARD_BRANDS.find((b) => b === methodId);
      if (!brand) return badRequest(1, `Invalid payment_method_id: ${methodId}`);
      const installments = body.installments;
      if (installments === undefined || installments === null)
        return badRequest(4004, "installments attribute can't be null");
      if (
        typeof installments !== 'number' ||
        !Number.isInteger(installments) ||
        installments < 1 ||
        installments > 12
      )
        return badRequest(4005, 'installments attribute must be numeric');
      const issuer = body.issuer_id;
      if (issuer !== undefined && issuer !== null && !/^\d+$/.test(String(issuer)))
        return badRequest(1, 'issuer_id must be numeric');
      const tokenId = text(body.token);
      if (!tokenId) return badRequest(4000, "card atributte can't be null");
      const token = this.cardTokens.get(tokenId);
      if (!token) return badRequest(2006, 'Card Token not found');
      // A token is single-use, lives seven days, and only the public key's account can charge it.
      if (token.userId !== userId || token.usedAt !== null || token.expiresAt <= now)
        return badRequest(3003, 'Invalid card_token_id');
      if (token.brand !== brand)
        return badRequest(1, `payment_method_id ${methodId} does not match the card (${token.brand})`);
      token.usedAt = now;
      token.json.date_used = created;
      const holderWord = token.json.cardholder.name.trim().split(/\s+/)[0]?.toUpperCase() ?? '';
      const [status, statusDetail] = CARD_OUTCOMES[holderWord] ?? ['approved', 'accredited'];
      const issuerId = String(issuer ?? ISSUER_IDS[brand]);
      payment = {
        ...base,
        date_approved: status === 'approved' ? created : null,
        date_of_expiration: null,
        issuer_id: issuerId,
        payment_type_id: 'credit_card',
        payment_method: { id: brand, type: 'credit_card', issuer_id: issuerId },
        status,
        status_detail: statusDetail,
        installments,
        transaction_details: {
          net_received_amount: status === 'approved' ? amount : 0,
          total_paid_amount: amount,
          installment_amount: round2(amount / installments),
          overpaid_amount: 0,
          external_resource_url: null,
          payment_method_reference_id: null,
          financial_institution: null,
        },
        card: {
          id: null,
          first_six_digits: token.json.first_six_digits,
          last_four_digits: token.json.last_four_digits,
          expiration_month: token.json.expiration_month,
          expiration_year: token.json.expiration_year,
          date_created: created,
          date_last_updated: created,
          cardholder: {
            name: token.json.cardholder.name,
            identification: {
              type: token.json.cardholder.identification.type ?? null,
              number: token.json.cardholder.identification.number ?? null,
            },
          },
        },
        point_of_interaction: {},
      };
    }
    this.payments.set(id, payment);
    if (typeof applicationFee === 'number') this.applicationFees.set(id, applicationFee);
    if (payment.status === 'approved') this.listFees(payment);
    if (this.options.notifyOnCreate) this.notifyLater(payment, 'payment.created');
    return { status: 201, body: structuredClone(payment) };
  }

  /** A registered boleto needs the payer's name, a valid CPF/CNPJ and a full address. */
  private boletoPayerProblem(payer: Record<string, unknown>): Answer | null {
    if (!text(payer.first_name)) return badRequest(1, 'payer.first_name is required for boleto');
    if (!text(payer.last_name)) return badRequest(1, 'payer.last_name is required for boleto');
    const identification = isRecord(payer.identification) ? payer.identification : {};
    const type = text(identification.type);
    const number = text(identification.number);
    if (!type || !number)
      return badRequest(1, 'payer.identification type and number are required for boleto');
    if ((type !== 'CPF' && type !== 'CNPJ') || !validDocument(type, number))
      return badRequest(2067, 'Invalid user identification number');
    const address = isRecord(payer.address) ? payer.address : {};
    for (const field of ['zip_code', 'street_name', 'street_number', 'neighborhood', 'city', 'federal_unit'])
      if (!text(address[field])) return badRequest(1, `payer.address.${field} is required for boleto`);
    if (!/^\d{5}-?\d{3}$/.test(String(address.zip_code)))
      return badRequest(1, 'payer.address.zip_code is invalid');
    if (!/^[A-Z]{2}$/.test(String(address.federal_unit)))
      return badRequest(1, 'payer.address.federal_unit is invalid');
    return null;
  }

  private ownedPayment(userId: number, rawId: string | string[] | undefined): MpPayment | undefined {
    const id = Number(rawId);
    const payment = Number.isSafeInteger(id) ? this.payments.get(id) : undefined;
    // Another seller's payment does not exist for this token: MP answers 404, not 403.
    return payment && payment.collector_id === userId ? payment : undefined;
  }

  private search(userId: number, req: Request): Answer {
    const query = queryOf(req);
    const problem = requestProblems.searchPayments(query);
    if (problem) return problem;
    const single = (name: string): string | undefined => {
      const value = query[name];
      return Array.isArray(value) ? value[0] : value;
    };
    const limit = Math.min(Math.max(Number(single('limit') ?? 30) || 30, 1), 1000);
    const offset = Math.max(Number(single('offset') ?? 0) || 0, 0);
    const sort = single('sort') ?? 'date_created';
    const descending = (single('criteria') ?? 'asc') === 'desc';
    const control = new Set(['sort', 'criteria', 'limit', 'offset', 'range', 'begin_date', 'end_date']);
    const filters = Object.entries(query).filter(([key]) => !control.has(key));
    const matches = [...this.payments.values()]
      .filter((p) => p.collector_id === userId)
      .filter((p) =>
        filters.every(([key, value]) => fieldAt(p, key) === (Array.isArray(value) ? value[0] : value)),
      )
      .sort((a, b) => {
        const left = fieldAt(a, sort) ?? '';
        const right = fieldAt(b, sort) ?? '';
        const order = sort === 'id' ? a.id - b.id : left < right ? -1 : left > right ? 1 : a.id - b.id;
        return descending ? -order : order;
      });
    return {
      status: 200,
      body: {
        paging: { total: matches.length, limit, offset },
        results: matches.slice(offset, offset + limit).map((p) => structuredClone(p)),
      },
    };
  }

  private refundBody(payment: MpPayment, amount: number, sourceName: string): MpRefund {
    const seller = this.sellers.get(payment.collector_id);
    return {
      id: this.nextRefundId++,
      payment_id: payment.id,
      amount,
      metadata: {},
      source: { id: String(payment.collector_id), name: seller?.nickname ?? sourceName, type: 'collector' },
      date_created: mpDate(new Date(this.now())),
      unique_sequence_number: null,
      refund_mode: 'standard',
      adjustment_amount: 0,
      status: 'approved',
      reason: null,
      labels: [],
    };
  }

  /** Refunds `amount` (the rest when undefined) of an approved payment; an error answer otherwise. */
  private applyRefund(payment: MpPayment, requested: number | undefined): MpRefund | Answer {
    if (payment.status !== 'approved') {
      const description =
        'Not valid action, the resource is in a state that does not allow this operation. For more information see the state that has the resource.';
      return badRequest(3005, description);
    }
    const remaining = round2(payment.transaction_amount - payment.transaction_amount_refunded);
    const amount = requested ?? remaining;
    if (amount <= 0 || amount > remaining)
      return badRequest(1, `Invalid refund amount: ${remaining} is refundable`);
    const refund = this.refundBody(payment, amount, 'collector');
    payment.refunds.push(refund);
    payment.transaction_amount_refunded = round2(payment.transaction_amount_refunded + amount);
    const full = payment.transaction_amount_refunded >= payment.transaction_amount;
    payment.status = full ? 'refunded' : 'approved';
    payment.status_detail = full ? 'refunded' : 'partially_refunded';
    payment.date_last_updated = refund.date_created;
    return refund;
  }

  private createRefund(payment: MpPayment, body: unknown, idempotencyKey?: string): Answer {
    const problem = requestProblems.createRefund(body, idempotencyKey);
    if (problem) return problem;
    const requested = isRecord(body) ? body.amount : undefined;
    if (requested !== undefined && (typeof requested !== 'number' || !Number.isFinite(requested)))
      return badRequest(1, 'amount must be numeric');
    const refund = this.applyRefund(payment, requested);
    if ('body' in refund) return refund;
    this.notifyLater(payment, 'payment.updated');
    return { status: 201, body: structuredClone(refund) };
  }

  /** `POST /v1/payments` and refunds: the same key from the same seller gets the first answer. */
  private idempotently(
    req: Request,
    userId: number,
    operation: string,
    handle: () => Promise<Answer> | Answer,
  ): Promise<Answer> {
    const key = req.get('x-idempotency-key');
    if (!key) return Promise.resolve(handle());
    const slot = `${userId}|${operation}|${key}`;
    const earlier = this.idempotent.get(slot);
    if (earlier) {
      const entry = this.entries.get(req);
      if (entry) entry.replayed = true;
      return earlier;
    }
    const answer = Promise.resolve().then(handle);
    this.idempotent.set(slot, answer);
    return answer;
  }

  // ---------------------------------------------------------------- reading state

  /** A payment as `GET /v1/payments/{id}` shows it (a copy). */
  payment(id: number): MpPayment | undefined {
    const payment = this.payments.get(id);
    return payment ? structuredClone(payment) : undefined;
  }

  /** The seller's payments, oldest first (copies). */
  paymentsOf(userId: number): MpPayment[] {
    return [...this.payments.values()]
      .filter((p) => p.collector_id === userId)
      .map((p) => structuredClone(p));
  }

  /** Chargebacks, of one payment when given (copies). */
  chargebacks(paymentId?: number): MpChargeback[] {
    return [...this.chargebackRecords.values()]
      .filter((c) => paymentId === undefined || c.json.payments.some((p) => p.id === paymentId))
      .map((c) => structuredClone(c.json));
  }

  /** Every request received so far, oldest first. */
  get requests(): readonly LoggedRequest[] {
    return this.log.slice();
  }

  clearRequests(): void {
    this.log.length = 0;
  }

  /** Every notification sent so far, with its deliveries. */
  get notifications(): readonly SentNotification[] {
    return [...this.sent.values()].map((n) => structuredClone(n));
  }

  /** Resolves when no notification is on its way (those sent by API calls are not awaited by them). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  // ---------------------------------------------------------------- faults

  /** The next `times` requests that match answer with `fault` instead of (or besides) their answer. */
  failNext(matcher: FaultMatcher, fault: Fault, times = 1): void {
    this.faults.push({ matcher, fault, remaining: times });
  }

  clearFaults(): void {
    this.faults.length = 0;
  }

  // ---------------------------------------------------------------- what happens on MP's side

  private mustPayment(id: number): MpPayment {
    const payment = this.payments.get(id);
    if (!payment) throw new Error(`no payment ${id} on the stand-in`);
    return payment;
  }

  /** An approved payment's `fee_details` (MP's fee, the application's), and what the seller receives. */
  private listFees(payment: MpPayment): void {
    const amount = payment.transaction_amount;
    const application = this.applicationFees.get(payment.id);
    payment.fee_details = [
      {
        type: 'mercadopago_fee',
        amount: mercadoPagoFee(payment.payment_type_id, amount),
        fee_payer: 'collector',
      },
      ...(application === undefined
        ? []
        : [{ type: 'application_fee' as const, amount: application, fee_payer: 'collector' as const }]),
    ];
    const fees = payment.fee_details.reduce((sum, f) => sum + f.amount, 0);
    payment.transaction_details.net_received_amount = Math.round((amount - fees) * 100) / 100;
  }

  private setStatus(payment: MpPayment, status: MpPaymentStatus, detail: string): void {
    const at = mpDate(new Date(this.now()));
    payment.status = status;
    payment.status_detail = detail;
    payment.date_last_updated = at;
    if (status === 'approved') {
      payment.date_approved = at;
      payment.money_release_date = at;
      this.listFees(payment);
      payment.transaction_details.installment_amount = round2(
        payment.transaction_amount / payment.installments,
      );
    }
  }

  private async afterChange(payment: MpPayment, options: ControlOptions): Promise<Outcome> {
    const delivery =
      options.notify === false
        ? null
        : await this.notify(payment, 'payment', 'payment.updated', String(payment.id));
    return { payment: structuredClone(payment), delivery };
  }

  /** The buyer paid (Pix, boleto) or the card payment in process was approved. */
  async approve(paymentId: number, options: ControlOptions = {}): Promise<Outcome> {
    const payment = this.mustPayment(paymentId);
    if (payment.status !== 'pending' && payment.status !== 'in_process')
      throw new Error(
        `payment ${paymentId} is ${payment.status}: only a pending or in_process payment is approved`,
      );
    this.setStatus(payment, 'approved', 'accredited');
    if ('transaction_data' in payment.point_of_interaction) {
      const data = payment.point_of_interaction.transaction_data;
      data.e2e_id = `E${hex(16).toUpperCase().slice(0, 31)}`;
      data.transaction_id = `PIXE${hex(14).toUpperCase()}`;
      data.bank_transfer_id = randomInt(1e9, 1e10);
      data.financial_institution = '1';
    }
    return this.afterChange(payment, options);
  }

  /** A card payment in process was rejected (or a pending one refused). */
  async reject(paymentId: number, options: ControlOptions = {}): Promise<Outcome> {
    const payment = this.mustPayment(paymentId);
    if (payment.status !== 'pending' && payment.status !== 'in_process')
      throw new Error(
        `payment ${paymentId} is ${payment.status}: only a pending or in_process payment is rejected`,
      );
    const card = payment.payment_type_id === 'credit_card' || payment.payment_type_id === 'debit_card';
    this.setStatus(payment, 'rejected', card ? 'cc_rejected_high_risk' : 'rejected_by_bank');
    return this.afterChange(payment, options);
  }

  /** A Pix or boleto expired unpaid (`cancelled`, `expired`), or a card in process was cancelled. */
  async cancel(paymentId: number, options: ControlOptions = {}): Promise<Outcome> {
    const payment = this.mustPayment(paymentId);
    if (payment.status !== 'pending' && payment.status !== 'in_process')
      throw new Error(
        `payment ${paymentId} is ${payment.status}: only a pending or in_process payment is cancelled`,
      );
    const offline = payment.payment_type_id === 'bank_transfer' || payment.payment_type_id === 'ticket';
    this.setStatus(payment, 'cancelled', offline ? 'expired' : 'by_collector');
    return this.afterChange(payment, options);
  }

  /** The seller refunded the whole payment on MP's own panel. */
  async refund(paymentId: number, options: ControlOptions = {}): Promise<Outcome & { refund: MpRefund }> {
    const payment = this.mustPayment(paymentId);
    const refund = this.applyRefund(payment, undefined);
    if ('body' in refund)
      throw new Error(`payment ${paymentId} is ${payment.status}: only an approved payment is refunded`);
    return { ...(await this.afterChange(payment, options)), refund: structuredClone(refund) };
  }

  /**
   * The buyer disputed an approved card payment with the issuer: the payment turns `charged_back`
   * and two notifications go out, `type=chargebacks` for the chargeback and `payment.updated`.
   */
  async chargeback(
    paymentId: number,
    /** `topic`: the notification's type (MP's "Chargebacks" topic is `topic_chargebacks_wh`). */
    options: ControlOptions & { topic?: 'chargebacks' | 'topic_chargebacks_wh' } = {},
  ): Promise<Outcome & { chargeback: MpChargeback; chargebackDelivery: NotificationDelivery | null }> {
    const payment = this.mustPayment(paymentId);
    if (payment.status !== 'approved' || payment.payment_type_id !== 'credit_card')
      throw new Error(
        `payment ${paymentId} is a ${payment.status} ${payment.payment_type_id}: only approved card payments are charged back`,
      );
    const now = this.now();
    const chargeback: MpChargeback = {
      id: String(this.nextChargebackId++),
      payments: [{ id: payment.id }],
      currency: 'BRL',
      amount: payment.transaction_amount,
      coverage_applied: null,
      coverage_eligible: true,
      documentation_required: true,
      documentation_status: 'pending',
      date_documentation_deadline: mpDate(new Date(now + 7 * DAY_MS)),
      date_created: mpDate(new Date(now)),
      date_last_updated: mpDate(new Date(now)),
      live_mode: this.options.liveMode,
    };
    this.chargebackRecords.set(chargeback.id, { json: chargeback, userId: payment.collector_id });
    this.setStatus(payment, 'charged_back', 'settled');
    const chargebackDelivery =
      options.notify === false
        ? null
        : await this.notify(
            payment,
            options.topic ?? 'topic_chargebacks_wh',
            'chargeback.created',
            chargeback.id,
          );
    return {
      ...(await this.afterChange(payment, options)),
      chargeback: structuredClone(chargeback),
      chargebackDelivery,
    };
  }

  // ---------------------------------------------------------------- notifications

  /** The `x-signature` MP puts on a notification (see "Validate notification origin"). */
  private signature(dataId: string, requestId: string, ts: number): string {
    const manifest = `id:${dataId.toLowerCase()};request-id:${requestId};ts:${ts};`;
    return `ts=${ts},v1=${createHmac('sha256', this.webhookSecret).update(manifest).digest('hex')}`;
  }

  /**
   * MP's notifications of a change: the signed webhook and, unless the notification_url says
   * `source_news=webhooks`, the unsigned IPN call too (only the IPN with `source_news=ipn`). Webhooks
   * guide, "Configuration when creating payments": "source_news=webhooks" in the notification_url
   * restricts it to webhooks. Answers the webhook's delivery (the IPN's when only that went).
   */
  private async notify(
    payment: MpPayment,
    type: MpNotification['type'],
    action: MpNotification['action'],
    dataId: string,
  ): Promise<NotificationDelivery | null> {
    const target = payment.notification_url ?? this.options.webhookUrl;
    if (!target) return null;
    const source = payment.notification_url ? new URL(target).searchParams.get('source_news') : 'webhooks';
    const ipn = source === 'webhooks' ? null : this.deliver(this.ipnOf(payment, target, type, dataId));
    if (source === 'ipn') return ipn;
    const url = new URL(target);
    url.searchParams.set('data.id', dataId);
    url.searchParams.set('type', type);
    const id = this.nextNotificationId++;
    const notification: SentNotification = {
      id,
      userId: payment.collector_id,
      kind: 'webhook',
      url: url.toString(),
      body: {
        action,
        api_version: 'v1',
        data: { id: dataId },
        date_created: mpDate(new Date(this.now())),
        id,
        live_mode: this.options.liveMode,
        type,
        user_id: String(payment.collector_id),
      },
      deliveries: [],
    };
    this.sent.set(id, notification);
    const [delivery] = await Promise.all([this.deliver(notification), ipn]);
    return delivery;
  }

  /** The IPN call of a change: `?topic=payment|chargebacks&id=`, a resource address, no signature. */
  private ipnOf(
    payment: MpPayment,
    target: string,
    type: MpNotification['type'],
    dataId: string,
  ): SentNotification {
    const topic = type === 'payment' ? 'payment' : 'chargebacks';
    const url = new URL(target);
    url.searchParams.set('topic', topic);
    url.searchParams.set('id', dataId);
    const id = this.nextNotificationId++;
    const notification: SentNotification = {
      id,
      userId: payment.collector_id,
      kind: 'ipn',
      url: url.toString(),
      body: {
        resource: `${this.baseUrl}/v1/${topic === 'payment' ? 'payments' : 'chargebacks'}/${dataId}`,
        topic,
      },
      deliveries: [],
    };
    this.sent.set(id, notification);
    return notification;
  }

  /** A notification sent after the answer that caused it (as MP sends them), tracked by `settled()`. */
  private notifyLater(payment: MpPayment, action: 'payment.created' | 'payment.updated'): void {
    const later = new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
      this.notify(payment, 'payment', action, String(payment.id)),
    );
    this.track(later);
  }

  private track(promise: Promise<unknown>): void {
    this.inFlight.add(promise);
    void promise.finally(() => this.inFlight.delete(promise));
  }

  private deliver(notification: SentNotification): Promise<NotificationDelivery> {
    const attempt = (async (): Promise<NotificationDelivery> => {
      const requestId = randomUUID();
      const ts = Math.floor(this.now() / 1000);
      const delivery: NotificationDelivery = {
        notificationId: notification.id,
        url: notification.url,
        requestId,
        status: null,
        error: null,
        at: new Date(this.now()),
      };
      try {
        const response = await fetch(notification.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'MercadoPago WebHook v1.0 payment',
            // IPN calls carry no signature; webhooks do ("Validate notification origin").
            ...(notification.kind === 'webhook' && 'data' in notification.body
              ? {
                  'x-request-id': requestId,
                  'x-signature': this.signature(notification.body.data.id, requestId, ts),
                }
              : {}),
          },
          body: JSON.stringify(notification.body),
          signal: AbortSignal.timeout(this.options.notificationTimeoutMs),
        });
        await response.arrayBuffer();
        delivery.status = response.status;
      } catch (err) {
        delivery.error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      }
      notification.deliveries.push(delivery);
      return { ...delivery };
    })();
    this.track(attempt);
    return attempt;
  }

  /** Sends a notification again (new x-request-id and ts, same body), as MP's retries do. */
  redeliver(notificationId: number): Promise<NotificationDelivery> {
    const notification = this.sent.get(notificationId);
    if (!notification) throw new Error(`no notification ${notificationId} was sent`);
    return this.deliver(notification);
  }

  // ---------------------------------------------------------------- HTTP

  private app(): express.Express {
    const app = express();
    app.disable('x-powered-by');
    app.set('etag', false);

    // The log first: even a request whose body does not parse is recorded.
    app.use((req, res, next) => {
      const headers: Record<string, string> = {};
      let userId: number | null = null;
      for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined) continue;
        if (name === 'authorization') {
          const described = this.describeAuthorization(String(value));
          headers[name] = described.text;
          userId = described.userId;
        } else headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      const publicKey = firstQuery(req, 'public_key');
      if (userId === null && publicKey !== undefined) userId = this.publicKeys.get(publicKey) ?? null;
      const entry: LoggedRequest = {
        at: new Date(this.now()),
        method: req.method,
        path: req.path,
        query: queryOf(req),
        headers,
        body: undefined,
        userId,
        status: null,
        fault: null,
        replayed: false,
      };
      this.log.push(entry);
      this.entries.set(req, entry);
      res.on('finish', () => {
        entry.status = res.statusCode;
      });
      next();
    });

    // MP's API answers browsers from any origin (MercadoPago.js calls it from the seller's page).
    app.use((req, res, next) => {
      if (req.path.startsWith('/auth/')) return next();
      res.set('access-control-allow-origin', '*');
      if (req.method !== 'OPTIONS') return next();
      res.set('access-control-allow-methods', 'GET, POST, PUT, OPTIONS');
      res.set('access-control-allow-headers', req.get('access-control-request-headers') ?? 'content-type');
      res.set('access-control-max-age', '600');
      res.status(204).end();
    });

    app.use(express.json({ limit: '1mb' }));
    app.use(express.urlencoded({ extended: false }));
    app.use((req, _res, next) => {
      const entry = this.entries.get(req);
      if (entry) entry.body = maskedBody(req.path, req.body);
      next();
    });

    app.use(async (req, res, next) => {
      const index = this.faults.findIndex(
        (f) =>
          (f.matcher.method === undefined || f.matcher.method.toUpperCase() === req.method) &&
          f.matcher.path.test(req.path),
      );
      const armed = this.faults[index];
      if (!armed) return next();
      armed.remaining -= 1;
      if (armed.remaining <= 0) this.faults.splice(index, 1);
      const { fault } = armed;
      const entry = this.entries.get(req);
      if ('status' in fault) {
        if (entry) entry.fault = `status ${fault.status}`;
        const words = FAULT_WORDS[fault.status];
        res.status(fault.status).json({
          message: words[0],
          error: words[1],
          status: fault.status,
          cause: [],
        } satisfies MpError);
        return;
      }
      if (entry) entry.fault = 'ms' in fault ? `${fault.kind} ${fault.ms}` : fault.kind;
      if (fault.kind === 'reset') {
        req.socket.destroy();
        return;
      }
      if (fault.kind === 'delay') await sleep(fault.ms);
      else this.afterFaults.set(req, fault);
      next();
    });

    const reply = async (req: Request, res: Response, answer: Answer): Promise<void> => {
      const after = this.afterFaults.get(req);
      if (after?.kind === 'reset-after-create') {
        req.socket.destroy();
        return;
      }
      if (after?.kind === 'delay-after-create') await sleep(after.ms);
      if (res.destroyed) return;
      res.status(answer.status).json(answer.body);
    };

    /** An API route that needs a seller's access token. */
    const authed =
      (handle: (req: Request, userId: number) => Answer | Promise<Answer>) =>
      async (req: Request, res: Response): Promise<void> => {
        const caller = this.authenticate(req);
        await reply(req, res, 'answer' in caller ? caller.answer : await handle(req, caller.userId));
      };

    /** A route MercadoPago.js calls with `?public_key=` (a Bearer token works too). */
    const publicRoute =
      (handle: (req: Request, userId: number) => Answer | Promise<Answer>) =>
      async (req: Request, res: Response): Promise<void> => {
        const caller = this.publicCaller(req);
        await reply(req, res, 'answer' in caller ? caller.answer : await handle(req, caller.userId));
      };

    app.get('/auth/authorization', (req, res) => {
      const params = new URL(req.originalUrl, 'http://stand-in').searchParams;
      const request = this.authorizationRequest(params);
      res.set('content-type', 'text/html; charset=utf-8');
      if ('error' in request) {
        res.status(400).send(page('Autorização recusada', `<p>${escapeHtml(request.error)}</p>`));
        return;
      }
      const chosen = params.get('stand_in_seller');
      if (chosen !== null) {
        const seller = this.sellers.get(Number(chosen));
        if (!seller) {
          res
            .status(400)
            .send(page('Autorização recusada', `<p>no seller ${escapeHtml(chosen)} on the stand-in</p>`));
          return;
        }
        res.redirect(
          302,
          this.redirectBack(request, this.issueCode(seller.userId, request.redirectUri, request.challenge)),
        );
        return;
      }
      const links = [...this.sellers.values()]
        .map((s) => {
          const choice = new URLSearchParams(params);
          choice.set('stand_in_seller', String(s.userId));
          return `<li><a href="?${escapeHtml(choice.toString())}">Autorizar como ${escapeHtml(s.nickname)} (${s.userId})</a></li>`;
        })
        .join('');
      res.send(
        page(
          'Autorizar a aplicação',
          `<p>A aplicação ${escapeHtml(this.clientId)} pede acesso à sua conta Mercado Pago (offline_access read write).</p><ul>${links}</ul>`,
        ),
      );
    });

    app.post('/oauth/token', async (req, res) => {
      await reply(req, res, this.oauthToken(req.body));
    });

    app.get(
      '/users/me',
      authed((_req, userId) => {
        const seller = this.sellers.get(userId);
        return {
          status: 200,
          body: {
            id: userId,
            nickname: seller?.nickname,
            email: seller?.email,
            first_name: seller?.name,
            last_name: '',
            country_id: 'BR',
            site_id: 'MLB',
          },
        };
      }),
    );

    app.post(
      '/v1/payments',
      authed((req, userId) => {
        if (this.options.requireIdempotencyKey && !req.get('x-idempotency-key'))
          return badRequest(4292, "Header X-Idempotency-Key can't be null");
        return this.idempotently(req, userId, 'POST /v1/payments', () =>
          this.createPayment(userId, req.body, req.get('x-idempotency-key')),
        );
      }),
    );
    app.get(
      '/v1/payments/search',
      authed((req, userId) => this.search(userId, req)),
    );
    app.get(
      '/v1/payments/:id',
      authed((req, userId) => {
        const payment = this.ownedPayment(userId, req.params.id);
        return payment ? { status: 200, body: structuredClone(payment) } : paymentNotFound();
      }),
    );
    app.post(
      '/v1/payments/:id/refunds',
      authed((req, userId) => {
        const payment = this.ownedPayment(userId, req.params.id);
        if (!payment) return paymentNotFound();
        return this.idempotently(req, userId, `POST /v1/payments/${payment.id}/refunds`, () =>
          this.createRefund(payment, req.body, req.get('x-idempotency-key')),
        );
      }),
    );
    app.get(
      '/v1/chargebacks/:id',
      authed((req, userId) => {
        const record = this.chargebackRecords.get(String(req.params.id));
        return record && record.userId === userId
          ? { status: 200, body: structuredClone(record.json) }
          : mpError(404, 'Chargeback not found');
      }),
    );

    app.post(
      '/v1/card_tokens',
      publicRoute((req, userId) => this.cardTokenRecord(userId, req.body)),
    );
    app.get(
      '/v1/payment_methods/search',
      publicRoute((req) => {
        const bin = firstQuery(req, 'bins') ?? firstQuery(req, 'bin') ?? '';
        const found = bin.length >= 6 ? paymentMethodForBin(bin) : null;
        const results = found ? [found] : [];
        return { status: 200, body: { paging: { total: results.length, limit: 30, offset: 0 }, results } };
      }),
    );
    app.get('/js/v2', (_req, res) => {
      res.set('content-type', 'application/javascript; charset=utf-8');
      res.set('cache-control', 'no-store');
      res.send(sdkScript(this.baseUrl));
    });
    app.get('/js/v2/fields/:type', (req, res) => {
      const type = String(req.params.type);
      const group = firstQuery(req, 'group');
      const publicKey = firstQuery(req, 'public_key');
      const parentOrigin = firstQuery(req, 'parent_origin');
      if (!isFieldType(type) || !group || !publicKey || !parentOrigin || !URL.canParse(parentOrigin)) {
        res
          .status(400)
          .type('text/plain')
          .send('unknown field or missing group, public_key or parent_origin');
        return;
      }
      res.set('content-type', 'text/html; charset=utf-8');
      res.set('cache-control', 'no-store');
      res.send(
        fieldFrame({
          type,
          group,
          publicKey,
          parentOrigin: new URL(parentOrigin).origin,
          locale: firstQuery(req, 'locale'),
          placeholder: firstQuery(req, 'placeholder'),
          srLabel: firstQuery(req, 'sr_label'),
          ariaRequired: firstQuery(req, 'aria_required') !== 'false',
        }),
      );
    });

    // MP's page for a Pix or boleto (ticket_url, external_resource_url): what the buyer would open.
    app.get('/payments/:id/ticket', (req, res) => {
      const payment = this.payments.get(Number(req.params.id));
      res.set('content-type', 'text/html; charset=utf-8');
      if (!payment) {
        res.status(404).send(page('Pagamento não encontrado', ''));
        return;
      }
      const code =
        'transaction_data' in payment.point_of_interaction
          ? payment.point_of_interaction.transaction_data.qr_code
          : (payment.transaction_details.digitable_line ?? '');
      res.send(
        page(
          `Pagamento ${payment.id}`,
          `<p>R$ ${payment.transaction_amount.toFixed(2).replace('.', ',')} — ${escapeHtml(payment.status)}</p><p><code>${escapeHtml(code)}</code></p>`,
        ),
      );
    });

    app.use((req, res) => {
      void reply(req, res, mpError(404, 'resource not found'));
    });

    app.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
      if (res.headersSent) return next(err);
      if (isRecord(err) && err.type === 'entity.parse.failed') {
        res
          .status(400)
          .json({ message: 'Invalid JSON', error: 'bad_request', status: 400, cause: [] } satisfies MpError);
        return;
      }
      const error = err instanceof Error ? err : new Error(String(err));
      this.errors.push(error);
      console.error('mercadopago stand-in:', error);
      res.status(500).json({
        message: 'internal_error',
        error: 'internal_server_error',
        status: 500,
        cause: [],
      } satisfies MpError);
    });
    return app;
  }
}
