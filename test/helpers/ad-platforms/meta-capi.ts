/**
 * A stand-in for Meta's Conversions API on loopback, written from Meta's public reference (not from
 * our code). Each rule cites where it comes from:
 * - [Using the API]  https://developers.facebook.com/docs/marketing-api/conversions-api/using-the-api
 * - [Server event]   https://developers.facebook.com/docs/marketing-api/conversions-api/parameters/server-event
 * - [Customer info]  https://developers.facebook.com/docs/marketing-api/conversions-api/parameters/customer-information-parameters
 * - [Custom data]    https://developers.facebook.com/docs/marketing-api/conversions-api/parameters/custom-data
 * - [fbp and fbc]    https://developers.facebook.com/docs/marketing-api/conversions-api/parameters/fbp-and-fbc
 * - [Test events]    https://developers.facebook.com/docs/marketing-api/conversions-api/using-the-api#testEventCode
 * Where the reference is silent, it is strict (noted "strict").
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isIP } from 'node:net';

export interface MetaEvent {
  event_name: string;
  event_time: number;
  event_id?: string;
  action_source: string;
  event_source_url?: string;
  user_data: Record<string, string>;
  custom_data?: Record<string, unknown>;
}

export interface MetaRequest {
  pixelId: string;
  version: string;
  testEventCode: string | undefined;
  events: MetaEvent[];
  at: number;
}

// [Server event] action_source values.
const ACTION_SOURCES = [
  'email',
  'website',
  'app',
  'phone_call',
  'chat',
  'physical_store',
  'system_generated',
  'business_messaging',
  'other',
];
// [Customer info] parameters that must be SHA-256 hashed (lower-case hex).
const HASHED = ['em', 'ph', 'fn', 'ln', 'ge', 'db', 'ct', 'st', 'zp', 'country', 'external_id'];
const UNHASHED = [
  'client_ip_address',
  'client_user_agent',
  'fbc',
  'fbp',
  'subscription_id',
  'fb_login_id',
  'lead_id',
];
const SHA256_HEX = /^[0-9a-f]{64}$/;

export class MetaCapiStandIn {
  readonly requests: MetaRequest[] = [];
  readonly refused: string[] = [];
  /** Answer every request with this status (an outage), instead of checking it. */
  down: number | null = null;
  private server: http.Server | undefined;

  constructor(
    private readonly accessToken: string,
    private readonly now: () => number = Date.now,
  ) {}

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const answer = this.handle(req, Buffer.concat(chunks).toString('utf8'));
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** The events received, flattened. */
  events(): (MetaEvent & { testEventCode: string | undefined })[] {
    return this.requests.flatMap((r) => r.events.map((e) => ({ ...e, testEventCode: r.testEventCode })));
  }

  /**
   * What it refused for one pixel: the suite's database holds other tests' pixels, whose conversions
   * any test's delivery worker sends to its own stand-in, with their own tokens.
   */
  refusedFor(pixelId: string): string[] {
    return this.refusals.filter((r) => r.pixelId === pixelId).map((r) => r.message);
  }

  private readonly refusals: { pixelId: string | undefined; message: string }[] = [];

  private refuse(status: number, message: string, code = 100, pixelId?: string) {
    this.refused.push(message);
    this.refusals.push({ pixelId, message });
    // [Using the API] errors come as a Graph API error object.
    return { status, body: { error: { message, type: 'OAuthException', code, fbtrace_id: 'standin' } } };
  }

  private handle(req: http.IncomingMessage, raw: string): { status: number; body: unknown } {
    if (this.down !== null)
      return { status: this.down, body: { error: { message: 'unavailable', code: 2 } } };
    // [Using the API] POST https://graph.facebook.com/{API_VERSION}/{PIXEL_ID}/events
    const url = new URL(req.url ?? '/', 'http://standin');
    const path = /^\/(v\d+\.\d+)\/(\d+)\/events$/.exec(url.pathname);
    if (req.method !== 'POST' || !path)
      return this.refuse(404, `unknown path ${req.method} ${url.pathname}`, 803);
    const pixelId = path[2];
    // strict: a JSON body.
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? ''))
      return this.refuse(400, 'not JSON', 100, pixelId);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return this.refuse(400, 'body is not JSON', 100, pixelId);
    }
    // [Using the API] access_token is required (body or query); a wrong one is OAuthException 190.
    const token = body.access_token ?? url.searchParams.get('access_token');
    if (token !== this.accessToken) return this.refuse(401, 'Invalid OAuth access token', 190, pixelId);
    // [Using the API] data: an array of at most 1,000 events (strict: at least one).
    const data = body.data;
    if (!Array.isArray(data) || data.length === 0 || data.length > 1000)
      return this.refuse(400, 'data must be 1-1000 events', 100, pixelId);
    const testCode = body.test_event_code;
    // [Test events] test_event_code is a string.
    if (testCode !== undefined && typeof testCode !== 'string')
      return this.refuse(400, 'test_event_code must be a string', 100, pixelId);
    for (const event of data as Record<string, unknown>[]) {
      const problem = this.problemOf(event);
      if (problem) return this.refuse(400, problem, 100, pixelId);
    }
    this.requests.push({
      pixelId: path[2] ?? '',
      version: path[1] ?? '',
      testEventCode: testCode,
      events: data as MetaEvent[],
      at: Date.now(),
    });
    // [Using the API] the answer on success.
    return { status: 200, body: { events_received: data.length, messages: [], fbtrace_id: 'standin' } };
  }

  private problemOf(event: Record<string, unknown>): string | undefined {
    // [Server event] event_name, event_time, action_source and user_data are required.
    if (typeof event.event_name !== 'string' || event.event_name === '') return 'event_name is required';
    // [Server event] event_time: a Unix timestamp in seconds, at most 7 days in the past (strict: not ahead).
    const time = event.event_time;
    if (typeof time !== 'number' || !Number.isInteger(time)) return 'event_time must be an integer (seconds)';
    const nowSeconds = Math.floor(this.now() / 1000);
    if (time > nowSeconds + 60 || time < nowSeconds - 7 * 86_400) return 'event_time out of range';
    if (typeof event.action_source !== 'string' || !ACTION_SOURCES.includes(event.action_source))
      return 'action_source is required and must be a known value';
    // [Server event] event_id: a string, used to deduplicate with the browser pixel (strict: required here).
    if (typeof event.event_id !== 'string' || event.event_id === '') return 'event_id is required';
    // [Server event] website events need event_source_url; [Customer info] and client_user_agent.
    const user = event.user_data;
    if (user === null || typeof user !== 'object' || Array.isArray(user)) return 'user_data is required';
    const userData = user as Record<string, unknown>;
    if (event.action_source === 'website') {
      if (typeof event.event_source_url !== 'string' || !/^https?:\/\//.test(event.event_source_url))
        return 'event_source_url is required for website events';
      if (typeof userData.client_user_agent !== 'string')
        return 'client_user_agent is required for website events';
    }
    for (const [key, value] of Object.entries(userData)) {
      if (HASHED.includes(key)) {
        // [Customer info] hashing required: SHA-256, normalised first.
        if (typeof value !== 'string' || !SHA256_HEX.test(value))
          return `user_data.${key} must be a SHA-256 hash`;
      } else if (UNHASHED.includes(key)) {
        // [Customer info] these are sent in the clear (never hashed).
        if (typeof value !== 'string' || SHA256_HEX.test(value)) return `user_data.${key} must not be hashed`;
      } else return `user_data.${key} is not a customer information parameter`;
    }
    // [Customer info] client_ip_address: an IPv4 or IPv6 address.
    if (userData.client_ip_address !== undefined && isIP(String(userData.client_ip_address)) === 0)
      return 'client_ip_address is not an IP address';
    // [fbp and fbc] fb.<subdomain index>.<creation time ms>.<fbclid> and fb.<index>.<time>.<random>.
    if (userData.fbc !== undefined && !/^fb\.[012]\.\d{13}\.\S+$/.test(String(userData.fbc)))
      return 'fbc must be fb.<index>.<ms>.<fbclid>';
    if (userData.fbp !== undefined && !/^fb\.[012]\.\d{13}\.\d+$/.test(String(userData.fbp)))
      return 'fbp must be fb.<index>.<ms>.<random>';
    const custom = event.custom_data as Record<string, unknown> | undefined;
    if (custom !== undefined) {
      // [Custom data] value: a number; currency: an ISO 4217 code; content_ids: a list of strings.
      if (custom.value !== undefined && typeof custom.value !== 'number')
        return 'custom_data.value must be a number';
      if (custom.currency !== undefined && !/^[A-Z]{3}$/.test(String(custom.currency)))
        return 'custom_data.currency must be ISO 4217';
      if (
        custom.content_ids !== undefined &&
        (!Array.isArray(custom.content_ids) || custom.content_ids.some((id) => typeof id !== 'string'))
      )
        return 'custom_data.content_ids must be strings';
      if (
        custom.content_type !== undefined &&
        !['product', 'product_group'].includes(String(custom.content_type))
      )
        return 'custom_data.content_type must be product or product_group';
    }
    // [Custom data] a Purchase requires currency and value.
    if (
      event.event_name === 'Purchase' &&
      (typeof custom?.value !== 'number' || typeof custom.currency !== 'string')
    )
      return 'Purchase requires custom_data.value and currency';
    return undefined;
  }
}
