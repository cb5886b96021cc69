/**
 * A stand-in for Google Analytics 4's Measurement Protocol on loopback, written from Google's public
 * reference (not from our code). Each rule cites where it comes from:
 * - [Sending events] https://developers.google.com/analytics/devguides/collection/protocol/ga4/sending-events
 * - [Reference]      https://developers.google.com/analytics/devguides/collection/protocol/ga4/reference
 * - [Events]         https://developers.google.com/analytics/devguides/collection/protocol/ga4/reference/events
 * - [Validation]     https://developers.google.com/analytics/devguides/collection/protocol/ga4/validating-events
 * Google's collector answers 2xx even to malformed hits ([Validation]); the stand-in records every
 * problem in `refused` (the tests assert it stays empty) and answers 400 to them, stricter than Google.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Ga4Event {
  name: string;
  params: Record<string, unknown>;
}
export interface Ga4Hit {
  measurementId: string;
  clientId: string;
  timestampMicros: number | undefined;
  events: Ga4Event[];
}

// [Reference] reserved event names (strict: the ones an e-commerce hit could collide with).
const RESERVED = [
  'ad_activeview',
  'ad_click',
  'ad_exposure',
  'ad_query',
  'app_clear_data',
  'app_install',
  'error',
  'first_open',
  'first_visit',
  'session_start',
  'user_engagement',
];

export class Ga4MpStandIn {
  readonly hits: Ga4Hit[] = [];
  readonly refused: string[] = [];
  private server: http.Server | undefined;

  constructor(
    private readonly measurementId: string,
    private readonly apiSecret: string,
  ) {}

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const problem = this.take(req, Buffer.concat(chunks).toString('utf8'));
        if (problem) this.refused.push(problem);
        // [Sending events] a valid hit is answered 204 No Content (strict: 400 when not valid).
        res.writeHead(problem ? 400 : 204).end(problem ?? '');
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

  private take(req: http.IncomingMessage, raw: string): string | undefined {
    const url = new URL(req.url ?? '/', 'http://standin');
    // [Sending events] POST /mp/collect only (the protocol accepts only HTTP POST).
    if (req.method !== 'POST' || url.pathname !== '/mp/collect')
      return `unknown ${req.method} ${url.pathname}`;
    // [Sending events] measurement_id and api_secret are required query parameters.
    if (url.searchParams.get('measurement_id') !== this.measurementId) return 'wrong measurement_id';
    if (url.searchParams.get('api_secret') !== this.apiSecret) return 'wrong api_secret';
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return 'body is not JSON';
    }
    // [Reference] client_id is required for web streams.
    if (typeof body.client_id !== 'string' || body.client_id === '') return 'client_id is required';
    // [Reference] timestamp_micros: up to 72 hours back (strict: not ahead).
    const micros = body.timestamp_micros;
    if (micros !== undefined) {
      if (
        typeof micros !== 'number' ||
        micros > (Date.now() + 60_000) * 1000 ||
        micros < (Date.now() - 72 * 3_600_000) * 1000
      )
        return 'timestamp_micros out of range';
    }
    // [Reference] events: at most 25 per request (strict: at least one).
    const events = body.events;
    if (!Array.isArray(events) || events.length === 0 || events.length > 25) return 'events must be 1-25';
    for (const event of events as Record<string, unknown>[]) {
      // [Reference] names: letters, digits and underscores, starting with a letter, at most 40; not reserved.
      if (typeof event.name !== 'string' || !/^[A-Za-z][A-Za-z0-9_]{0,39}$/.test(event.name))
        return 'bad event name';
      if (RESERVED.includes(event.name)) return `reserved event name ${event.name}`;
      const params = (event.params ?? {}) as Record<string, unknown>;
      if (event.name === 'purchase' || event.name === 'refund') {
        // [Events] purchase and refund: transaction_id required; currency required with value.
        if (typeof params.transaction_id !== 'string' || params.transaction_id === '')
          return 'transaction_id is required';
        if (params.value !== undefined && typeof params.value !== 'number') return 'value must be a number';
        if (params.value !== undefined && !/^[A-Z]{3}$/.test(String(params.currency)))
          return 'currency is required with value';
        // [Events] items: each with item_id or item_name.
        const items = params.items;
        if (items !== undefined) {
          if (!Array.isArray(items)) return 'items must be an array';
          for (const item of items as Record<string, unknown>[])
            if (typeof item.item_id !== 'string' && typeof item.item_name !== 'string')
              return 'item needs item_id or item_name';
        }
      }
    }
    this.hits.push({
      measurementId: this.measurementId,
      clientId: body.client_id,
      timestampMicros: typeof micros === 'number' ? micros : undefined,
      events: events as Ga4Event[],
    });
    return undefined;
  }
}
