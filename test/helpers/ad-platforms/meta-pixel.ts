/**
 * A stand-in for Meta's browser pixel on loopback, written from Meta's public reference (not from our
 * code): it serves a small `fbevents.js` and records the pixel's hits on `/tr`. Each rule cites
 * where it comes from:
 * - [Get started]  https://developers.facebook.com/docs/meta-pixel/get-started (the base code: a
 *   queue named `fbq`, then `fbevents.js` from connect.facebook.net, then `fbq('init', pixelId)`)
 * - [Reference]    https://developers.facebook.com/docs/meta-pixel/reference (standard events;
 *   `fbq('track', 'Purchase', {value, currency})`; Purchase requires value and currency)
 * - [Image pixel]  https://developers.facebook.com/docs/meta-pixel/advanced ("Installing the pixel
 *   using an img tag": `GET https://www.facebook.com/tr?id=<pixel>&ev=<event>&cd[value]=…&cd[currency]=…`)
 * - [Dedup]        https://developers.facebook.com/docs/marketing-api/conversions-api/deduplicate-pixel-and-server-events
 *   (`fbq('track', 'Purchase', {…}, {eventID: 'purchase.123'})`; the image pixel carries it as `eid`)
 * The script sends each tracked event as the image pixel does (an <img> to `/tr`), so the page's CSP
 * must allow the stand-in in `img-src` as it must allow www.facebook.com. Where the reference is
 * silent, it is strict (noted "strict"): a track before any init, or without an eventID, is sent
 * without `id` or `eid` and refused here.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PixelHit {
  id: string;
  ev: string;
  eid: string;
  value: number | undefined;
  currency: string | undefined;
  /** The page the hit came from (`dl`). */
  page: string;
}

// [Reference] the standard events.
const STANDARD_EVENTS = [
  'AddPaymentInfo',
  'AddToCart',
  'AddToWishlist',
  'CompleteRegistration',
  'Contact',
  'CustomizeProduct',
  'Donate',
  'FindLocation',
  'InitiateCheckout',
  'Lead',
  'PageView',
  'Purchase',
  'Schedule',
  'Search',
  'StartTrial',
  'SubmitApplication',
  'Subscribe',
  'ViewContent',
];

/** A 1×1 transparent GIF: what the image pixel answers. */
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/**
 * The stand-in's fbevents.js. [Get started] the base code leaves `window.fbq` as a queue whose calls
 * go to `fbq.callMethod` once the script defines it; the script takes the queued calls first.
 * `window.__pixelStandIn.tracked` lists what this page load tracked (so a test can tell "nothing"
 * once the script has run).
 */
const script = (reportTo: string): string => `(function () {
  'use strict';
  var endpoint = ${JSON.stringify(`${reportTo}/tr`)};
  var fbq = window.fbq;
  var pixels = [];
  var state = (window.__pixelStandIn = { tracked: [] });
  function send(params) {
    var query = Object.keys(params)
      .filter(function (k) { return params[k] !== undefined; })
      .map(function (k) { return encodeURIComponent(k) + '=' + encodeURIComponent(String(params[k])); })
      .join('&');
    new Image().src = endpoint + '?' + query;
  }
  function call(command, a, b, c) {
    if (command === 'init') {
      if (pixels.indexOf(String(a)) < 0) pixels.push(String(a));
      return;
    }
    if (command === 'track') {
      var params = { ev: a, dl: location.href, eid: c && c.eventID };
      if (b) Object.keys(b).forEach(function (k) { params['cd[' + k + ']'] = b[k]; });
      state.tracked.push({ ev: a, eid: c && c.eventID });
      // strict: a track before any init goes without an id (refused by the stand-in).
      if (pixels.length === 0) send(params);
      pixels.forEach(function (id) { send(Object.assign({ id: id }, params)); });
      return;
    }
    send({ unknown_command: String(command) });
  }
  if (!fbq || !fbq.queue) {
    send({ unknown_command: 'fbevents.js without the base code' });
    return;
  }
  fbq.callMethod = call;
  var queued = fbq.queue;
  fbq.queue = [];
  queued.forEach(function (args) { call.apply(null, Array.prototype.slice.call(args)); });
})();
`;

export class MetaPixelStandIn {
  readonly hits: PixelHit[] = [];
  readonly refused: string[] = [];
  /** How many times a page loaded the script. */
  scriptLoads = 0;
  private server: http.Server | undefined;

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://standin');
      if (req.method === 'GET' && url.pathname === '/en_US/fbevents.js') {
        this.scriptLoads += 1;
        res.writeHead(200, { 'content-type': 'application/javascript; charset=utf-8' }).end(script(this.url));
        return;
      }
      if (req.method === 'GET' && (url.pathname === '/tr' || url.pathname === '/tr/')) {
        const problem = this.take(url.searchParams);
        if (problem) this.refused.push(problem);
        res.writeHead(problem ? 400 : 200, { 'content-type': 'image/gif' }).end(GIF);
        return;
      }
      this.refused.push(`unknown path ${req.method ?? ''} ${url.pathname}`);
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
  }

  /** The address to give META_PIXEL_SCRIPT_URL (Meta's is `https://connect.facebook.net/en_US/fbevents.js`). */
  get scriptUrl(): string {
    return `${this.url}/en_US/fbevents.js`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** Records a hit, or says why it is refused. */
  private take(query: URLSearchParams): string | undefined {
    const command = query.get('unknown_command');
    if (command !== null) return `unknown fbq command: ${command}`;
    // [Image pixel] id is the pixel's id (digits); strict: a track before init has none.
    const id = query.get('id');
    if (id === null || !/^\d+$/.test(id)) return 'a track without init (no pixel id)';
    // [Reference] ev: a standard event (custom events go through trackCustom, not used here).
    const ev = query.get('ev') ?? '';
    if (!STANDARD_EVENTS.includes(ev)) return `ev ${ev} is not a standard event`;
    // [Dedup] eventID, sent as eid; strict: required here (the whole point of the browser side).
    const eid = query.get('eid');
    if (eid === null || eid === '') return `${ev} without an eventID (eid)`;
    const rawValue = query.get('cd[value]');
    const value = rawValue === null ? undefined : Number(rawValue);
    const currency = query.get('cd[currency]') ?? undefined;
    // [Reference] value: a number; currency: an ISO 4217 code.
    if (value !== undefined && !Number.isFinite(value)) return 'cd[value] is not a number';
    if (currency !== undefined && !/^[A-Z]{3}$/.test(currency)) return 'cd[currency] is not ISO 4217';
    // [Reference] a Purchase requires value and currency.
    if (ev === 'Purchase' && (value === undefined || currency === undefined))
      return 'Purchase requires cd[value] and cd[currency]';
    this.hits.push({ id, ev, eid, value, currency, page: query.get('dl') ?? '' });
    return undefined;
  }
}
