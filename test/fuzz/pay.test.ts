import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { fuzzConfig } from './config.js';
import { errorOf, GROUP, prototypeChanges } from './oracle.js';
import { INJECTIONS, isWellFormed } from './hostile.js';
import { NoAnswerError, sendRaw, type RawRequest, type RawResponse } from './raw-http.js';
import { describeRequest, describeResponse, ProblemLog, remember } from './report.js';
import { TenantRows } from './rows.js';
import { runProperty } from './runner.js';
import { fuzzWorld, newTenant, type FuzzTenant, type FuzzWorld } from './world.js';

/**
 * The buyer pages under `{checkout_url}` have no OpenAPI document, so their routes are listed here
 * (docs/api.md, "Buyer pages" and "Gateway callback"). Keep in step with docs/api.md
 * until the pages get a machine-readable description.
 */
interface BuyerRoute {
  method: 'GET' | 'POST';
  template: string;
  /** How its body travels. */
  body?: 'form' | 'json';
}

const BUYER_ROUTES: BuyerRoute[] = [
  { method: 'GET', template: '/{code}' },
  { method: 'POST', template: '/{code}/pay', body: 'form' },
  { method: 'GET', template: '/r/{short_code}' },
  { method: 'GET', template: '/teste/{link_id}' },
  { method: 'POST', template: '/teste/{link_id}/simulate', body: 'form' },
  { method: 'POST', template: '/gateway/callback', body: 'json' },
  // Focus NFe's webhook notices (docs/api.md, "Focus NFe notices").
  { method: 'POST', template: '/invoices/focusnfe/notifications/{integration_id}', body: 'json' },
  { method: 'GET', template: '/orders/{order_code}' },
  { method: 'GET', template: '/orders/{order_code}/status' },
  { method: 'GET', template: '/orders/{order_code}/boleto' },
  { method: 'GET', template: '/assets/order.js' },
  // The buyer's page (docs/api.md, "The buyer's page").
  { method: 'GET', template: '/account' },
  { method: 'POST', template: '/account/link', body: 'form' },
  { method: 'GET', template: '/account/sign-in' },
  { method: 'POST', template: '/account/sign-in', body: 'form' },
  { method: 'POST', template: '/account/sign-out', body: 'form' },
  { method: 'POST', template: '/account/orders/{order_code}/refund', body: 'form' },
  { method: 'POST', template: '/account/subscriptions/{subscription_id}/cancel', body: 'form' },
  { method: 'GET', template: '/account/subscriptions/{subscription_id}/method' },
  { method: 'POST', template: '/account/subscriptions/{subscription_id}/method', body: 'form' },
];

/** Form fields the buyer pages read (docs/api.md, "Buyer pages": pay step, simulation page). */
const FORM_FIELDS = [
  'plink',
  'name',
  'email',
  'phone',
  'document',
  'payment_method',
  'installments',
  'outcome',
  '_csrf',
  'token',
  'reason',
  'when',
  'card_token',
  'card_payment_method_id',
  'card_issuer_id',
];

/**
 * Statuses a buyer page may answer a bad request with (docs/api.md, "Buyer pages"); never a 5xx. 303 is
 * the pay step leading to the order's page, and a paid order's page to the link's success_url.
 */
const PAGE_STATUSES = [200, 302, 303, 400, 404, 409, 413, 415];
/**
 * The buyer's page adds 403 (a form without its CSRF token, or no session) and 429 (too many
 * sign-in link requests from one address).
 */
const ACCOUNT_STATUSES = [...PAGE_STATUSES, 403, 429];

interface BuyerWorld {
  w: FuzzWorld;
  tenant: FuzzTenant;
  values: {
    code: string;
    link_id: string;
    short_code: string;
    plink: string;
    order_code: string;
    subscription_id: string;
    integration_id: string;
  };
}

interface Link {
  id: string;
  url: string;
  short_url: string;
}

const isLink = (value: unknown): value is Link =>
  typeof value === 'object' && value !== null && 'id' in value && 'url' in value && 'short_url' in value;

/** A live link (checkout) and a test link (simulation page) of the tenant, made through the payments API. */
async function buyerWorld(): Promise<BuyerWorld> {
  const w = await fuzzWorld();
  const tenant = await newTenant(w);
  const create =
    w.docs.payments.operations.find((o) => o.id === 'createPaymentLink')?.fullTemplate ?? '/v1/payment-links';
  const offer = tenant.seed.offers.find((o) => o.status === 'active')?.code ?? '';
  const links: Link[] = [];
  for (const key of [tenant.seed.keys.live, tenant.seed.keys.test]) {
    const res = await sendRaw(w.baseUrl, {
      method: 'POST',
      path: create,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ offer_code: offer, single_use: false }),
    });
    if (res.status !== 201 || !isLink(res.json))
      throw new Error(`fixture link not created: ${res.status} ${res.text.slice(0, 300)}`);
    links.push(res.json);
  }
  const [live, test] = links as [Link, Link];
  // A boleto order of the live link (its page, its status and its printable boleto all exist).
  const paid = await sendRaw(w.baseUrl, {
    method: 'POST',
    path: `${w.checkoutPath}/${encodeURIComponent(offer)}/pay`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      plink: live.id,
      name: 'Fuzz Buyer',
      email: 'fuzz-orders@example.com',
      payment_method: 'boleto',
    }).toString(),
  });
  const orderCode = /orders\/([0-9a-f-]{36})/.exec(paid.headers.location ?? '')?.[1];
  if (paid.status !== 303 || !orderCode) throw new Error(`fixture order not created: ${paid.status}`);
  return {
    w,
    tenant,
    values: {
      code: offer,
      link_id: test.id,
      plink: live.id,
      short_code: new URL(live.short_url).pathname.split('/').pop() ?? '',
      order_code: orderCode,
      subscription_id: '1',
      integration_id: '1',
    },
  };
}

const concrete = (b: BuyerWorld, route: BuyerRoute, override: Record<string, string> = {}): string =>
  b.w.checkoutPath +
  route.template.replace(
    /\{([^}]+)\}/g,
    (_m, name: string) => override[name] ?? encodeURIComponent(b.values[name as keyof BuyerWorld['values']]),
  );

const safe = (text: string): string => (isWellFormed(text) ? text : 'x');

const form = (fields: Array<[string, string]>): string =>
  fields.map(([k, v]) => `${encodeURIComponent(safe(k))}=${encodeURIComponent(safe(v))}`).join('&');

type Expect = { statuses: number[]; why: string };

interface Case {
  kind: string;
  route: BuyerRoute;
  build(b: BuyerWorld): RawRequest;
  expect: Expect;
}

const anyPage: Expect = { statuses: PAGE_STATUSES, why: 'a page for bad input, never a 5xx' };
const isAccount = (r: BuyerRoute): boolean => r.template.startsWith('/account');
/** A page for bad input; on the buyer's page also a refused form (403) or a limited request (429). */
const pageFor = (r: BuyerRoute): Expect =>
  isAccount(r)
    ? {
        statuses: ACCOUNT_STATUSES,
        why: "a page for bad input, never a 5xx (the buyer's page: 403, 429 too)",
      }
    : anyPage;
const badEncoding: Expect = { statuses: [400], why: 'bad percent-encoding is 400' };
const tooLarge: Expect = {
  statuses: [413],
  why: 'more than 1,000 form fields or a body over the limit is 413',
};

function cases(): fc.Arbitrary<Case> {
  const route = fc.constantFrom(...BUYER_ROUTES);
  const postRoute = fc.constantFrom(...BUYER_ROUTES.filter((r) => r.body === 'form'));
  const paramRoute = fc.constantFrom(...BUYER_ROUTES.filter((r) => r.template.includes('{')));
  const value = fc.oneof(
    fc.constantFrom(...INJECTIONS.filter((t) => t.length < 20_000)),
    fc.string({ maxLength: 40 }),
  );
  const fields = fc.array(
    fc.tuple(fc.oneof(fc.constantFrom(...FORM_FIELDS), fc.string({ maxLength: 12 })), value),
    { maxLength: 8 },
  );
  const formHeaders = { 'content-type': 'application/x-www-form-urlencoded' };
  const paramName = (r: BuyerRoute): string => /\{([^}]+)\}/.exec(r.template)?.[1] ?? '';

  return fc.oneof(
    fc.record({ route: postRoute, fields }).map(({ route: r, fields: f }): Case => ({
      kind: 'form with hostile values',
      route: r,
      build: (b) => ({
        method: 'POST',
        path: concrete(b, r),
        headers: formHeaders,
        body: form([['plink', b.values.plink], ...f]),
      }),
      expect: f.some(([, v]) => v.includes('\u0000'))
        ? { statuses: [400, 404, 413], why: 'U+0000 in a form field is 400' }
        : pageFor(r),
    })),
    postRoute.map((r): Case => ({
      kind: 'form with 1,001 fields',
      route: r,
      build: (b) => ({
        method: 'POST',
        path: concrete(b, r),
        headers: formHeaders,
        body: form(Array.from({ length: 1_001 }, (_v, i): [string, string] => [`f${i}`, 'x'])),
      }),
      expect: tooLarge,
    })),
    postRoute.map((r): Case => ({
      kind: 'form body over the limit',
      route: r,
      build: (b) => ({
        method: 'POST',
        path: concrete(b, r),
        headers: formHeaders,
        body: form([['name', 'x'.repeat(200_000)]]),
      }),
      expect: tooLarge,
    })),
    fc
      .record({ route: postRoute, encoding: fc.constantFrom('gzip', 'br', 'deflate', 'x-fuzz') })
      .map(({ route: r, encoding }): Case => ({
        kind: encoding === 'x-fuzz' ? 'unknown Content-Encoding' : `corrupt ${encoding} form`,
        route: r,
        build: (b) => ({
          method: 'POST',
          path: concrete(b, r),
          headers: { ...formHeaders, 'content-encoding': encoding },
          body: encoding === 'x-fuzz' ? 'name=x' : gzipSync('name=x').subarray(0, 8),
        }),
        expect:
          encoding === 'x-fuzz'
            ? { statuses: [415], why: 'an unknown Content-Encoding is 415' }
            : { statuses: [400], why: 'corrupt Content-Encoding data is 400' },
      })),
    fc
      .record({ route: paramRoute, escape: fc.constantFrom('%E0%A4%A', '%', '%zz', '%C0%AF') })
      .map(({ route: r, escape }): Case => ({
        kind: 'bad percent-encoding in the path',
        route: r,
        build: (b) => ({ method: r.method, path: concrete(b, r, { [paramName(r)]: escape }) }),
        expect: badEncoding,
      })),
    paramRoute.map((r): Case => ({
      kind: 'U+0000 in the path',
      route: r,
      build: (b) => ({ method: r.method, path: concrete(b, r, { [paramName(r)]: 'a%00b' }) }),
      expect: isAccount(r)
        ? {
            statuses: [403, 404],
            why: 'U+0000 in a path names nothing (a form of the buyer’s page: 403 first)',
          }
        : { statuses: [404], why: 'U+0000 in a path names nothing' },
    })),
    fc.record({ route: paramRoute, text: value }).map(({ route: r, text }): Case => ({
      kind: 'hostile path segment',
      route: r,
      build: (b) => ({
        method: r.method,
        path: concrete(b, r, {
          [paramName(r)]: encodeURIComponent(isWellFormed(text) ? text : 'x').slice(0, 6_000),
        }),
      }),
      expect: pageFor(r),
    })),
    fc
      .record({ query: fc.constantFrom('plink=%E0%A4%A', 'lang=%zz', '%E0%A4%A=1') })
      .map(({ query }): Case => ({
        kind: `bad percent-encoding in the query (${query})`,
        route: BUYER_ROUTES[0] as BuyerRoute,
        build: (b) => ({ method: 'GET', path: `${concrete(b, BUYER_ROUTES[0] as BuyerRoute)}?${query}` }),
        expect: badEncoding,
      })),
    fc.record({ text: value }).map(({ text }): Case => ({
      kind: 'hostile plink and lang',
      route: BUYER_ROUTES[0] as BuyerRoute,
      build: (b) => ({
        method: 'GET',
        path: `${concrete(b, BUYER_ROUTES[0] as BuyerRoute)}?plink=${encodeURIComponent(safe(text).slice(0, 2_000))}&lang=${encodeURIComponent(safe(text).slice(0, 50))}&plink=x`,
      }),
      expect: text.includes('\u0000') ? { statuses: [400, 404], why: 'U+0000 in a query is 400' } : anyPage,
    })),
    fc
      .record({
        body: fc.oneof(
          fc.constantFrom('{"order_code":', '[[[[[[[[', '{"__proto__":{"polluted":"yes"}}', ''),
          value,
        ),
        signature: fc.constantFrom(undefined, 'sha256=00', 't=1,v1=00', "' OR 1=1"),
        encoding: fc.constantFrom(undefined, undefined, 'gzip', 'x-fuzz'),
      })
      .map(({ body, signature, encoding }): Case => ({
        kind: `gateway callback with a hostile body, ${signature === undefined ? 'no' : 'a wrong'} signature${encoding ? `, Content-Encoding ${encoding}` : ''}`,
        route: BUYER_ROUTES[5] as BuyerRoute,
        build: (b) => ({
          method: 'POST',
          path: concrete(b, BUYER_ROUTES[5] as BuyerRoute),
          headers: {
            'content-type': 'application/json',
            ...(signature === undefined ? {} : { 'x-gateway-signature': signature }),
            ...(encoding === undefined ? {} : { 'content-encoding': encoding }),
          },
          body,
        }),
        expect: encoding
          ? {
              statuses: [400, 401, 415],
              why: 'corrupt encoding 400, unknown encoding 415 (or 401 for the signature)',
            }
          : { statuses: [401, 413], why: 'a missing or wrong signature is 401' },
      })),
    route.map((r): Case => ({
      kind: 'valid-looking request',
      route: r,
      build: (b) => ({
        method: r.method,
        path: concrete(b, r),
        ...(r.body === 'form'
          ? {
              headers: formHeaders,
              body: form([
                ['plink', b.values.plink],
                ['outcome', 'failed'],
              ]),
            }
          : {}),
      }),
      expect: isAccount(r)
        ? { statuses: ACCOUNT_STATUSES, why: 'any page (a form without its token: 403)' }
        : { statuses: [...PAGE_STATUSES, 401], why: 'any page' },
    })),
  );
}

async function send(
  b: BuyerWorld,
  raw: RawRequest,
  log: ProblemLog,
  where: string,
): Promise<RawResponse | undefined> {
  log.requests += 1;
  try {
    return await sendRaw(b.w.baseUrl, raw);
  } catch (err) {
    if (!(err instanceof NoAnswerError)) throw err;
    log.add({
      group: GROUP.noAnswer,
      where,
      reason: err.message,
      request: describeRequest(raw, b.tenant.secrets),
      response: '-',
    });
    return undefined;
  }
}

async function hostilePages(b: BuyerWorld): Promise<ProblemLog> {
  const log = new ProblemLog();
  await runProperty('buyer pages', cases(), fuzzConfig.buyerPages, log, async (c) => {
    const raw = c.build(b);
    const where = `${c.route.method} {checkout_url}${c.route.template}`;
    const before = raw.method === 'GET' ? undefined : await b.w.rows.snapshot([b.tenant.companyId]);
    const res = await send(b, raw, log, where);
    if (!res) return;
    const report = (group: string, reason: string): void =>
      log.add({
        group,
        where,
        reason: `${c.kind} → ${reason}`,
        request: describeRequest(raw, b.tenant.secrets),
        response: describeResponse(res),
      });
    if (res.status >= 500) report(GROUP.serverError, `${res.status}`);
    else if (!c.expect.statuses.includes(res.status))
      report(
        GROUP.wrongStatus,
        `${res.status}, expected ${c.expect.statuses.join(' or ')} (${c.expect.why})`,
      );
    if (c.route.body === 'json' && res.status >= 400 && !errorOf(res))
      report(GROUP.noEnvelope, `${res.status} answered with ${res.contentType || 'no content type'}`);
    if (before && res.status >= 400) {
      const changed = TenantRows.diff(before, await b.w.rows.snapshot([b.tenant.companyId]));
      if (changed.length > 0) report(GROUP.rowsLeft, `${res.status} yet ${changed.join(', ')}`);
    }
    const polluted = prototypeChanges();
    if (polluted) report(GROUP.prototype, polluted);
  });
  return log;
}

async function methodsAndUnknownPaths(b: BuyerWorld): Promise<ProblemLog> {
  const log = new ProblemLog();
  const byTemplate = new Map<string, string[]>();
  for (const r of BUYER_ROUTES) byTemplate.set(r.template, [...(byTemplate.get(r.template) ?? []), r.method]);
  for (const [template, methods] of byTemplate) {
    const route = BUYER_ROUTES.find((r) => r.template === template) as BuyerRoute;
    // One problem per path and answer, listing the methods that got it.
    const wrong = new Map<string, { methods: string[]; raw: RawRequest; res: RawResponse }>();
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE']) {
      if (methods.includes(method)) continue;
      const raw: RawRequest = { method, path: concrete(b, route) };
      const res = await send(b, raw, log, `${method} {checkout_url}${template}`);
      if (!res) continue;
      if (res.status !== 405 || !methods.every((m) => String(res.headers.allow ?? '').includes(m))) {
        const key = `${res.status}${res.headers.allow ? ` (Allow: ${String(res.headers.allow)})` : ''}`;
        const entry = wrong.get(key) ?? { methods: [], raw, res };
        entry.methods.push(method);
        wrong.set(key, entry);
      }
    }
    for (const [answer, { methods: got, raw, res }] of wrong) {
      log.add({
        group: GROUP.methods,
        where: `{checkout_url}${template}`,
        reason: `${got.join(', ')} → ${answer}, expected 405 with Allow: ${methods.join(', ')}`,
        request: describeRequest(raw, b.tenant.secrets),
        response: describeResponse(res),
      });
    }
  }
  const unknown = fc.array(
    fc.webSegment().filter((s) => s.length > 0),
    { minLength: 2, maxLength: 4 },
  );
  await runProperty('buyer pages, unknown paths', unknown, fuzzConfig.unknownPaths, log, async (segments) => {
    // Two or more segments other than the documented shapes are no page.
    if ((segments[0] === 'r' || segments[0] === 'teste') && segments.length === 2) fc.pre(false);
    if (segments[1] === 'pay' && segments.length === 2) fc.pre(false);
    if (segments[0] === 'teste' && segments[2] === 'simulate' && segments.length === 3) fc.pre(false);
    const raw: RawRequest = { method: 'GET', path: `${b.w.checkoutPath}/${segments.join('/')}` };
    const res = await send(b, raw, log, 'GET {checkout_url}/…');
    if (!res) return;
    if (res.status !== 404 || !res.contentType.includes('html')) {
      log.add({
        group: GROUP.methods,
        where: '{checkout_url}/…',
        reason: `unknown page → ${res.status} ${res.contentType}, expected an HTML 404`,
        request: describeRequest(raw, b.tenant.secrets),
        response: describeResponse(res),
      });
    }
  });
  return log;
}

describe('Buyer pages fuzz (docs/api.md, "Requests and errors")', function () {
  this.timeout(120_000);
  let b: BuyerWorld;

  before(async () => {
    b = await buyerWorld();
  });

  const check = async (title: string, run: () => Promise<ProblemLog>): Promise<void> => {
    const log = await run();
    remember(title, log);
    if (log.size > 0) throw new Error(log.format(title));
  };

  it('answers hostile forms, paths and callbacks with a 4xx page, never a 5xx, leaving no row behind', () =>
    check('buyer pages, hostile', () => hostilePages(b)));
  it('answers unsupported methods with 405 and Allow, and unknown pages with an HTML 404', () =>
    check('buyer pages, methods and paths', () => methodsAndUnknownPaths(b)));
});
