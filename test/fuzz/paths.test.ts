import fc from 'fast-check';
import { fuzzConfig } from './config.js';
import { templateMatcher, type ApiDocument } from './documents.js';
import { errorOf, GROUP, missingSecurityHeaders, prototypeChanges } from './oracle.js';
import { NoAnswerError, sendRaw, type RawRequest, type RawResponse } from './raw-http.js';
import { referencesOf } from './references.js';
import { describeRequest, describeResponse, ProblemLog, remember } from './report.js';
import { TenantRows } from './rows.js';
import { runProperty } from './runner.js';
import { fuzzWorld, newTenant, type FuzzTenant, type FuzzWorld } from './world.js';

/**
 * Every method on every documented path, and paths no document has (docs/api.md, "Requests and errors": an
 * unsupported method is 405 with `Allow`, an unknown path is 404, both in the error envelope).
 */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'];

/** A concrete path for a template: real values where the service has them, else a plain one. */
async function concretePath(doc: ApiDocument, template: string, tenant: FuzzTenant): Promise<string> {
  const ops = doc.operations.filter((o) => o.fullTemplate === template);
  const values: Record<string, unknown> = {};
  for (const name of [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '')) {
    for (const op of ops) {
      const ref = referencesOf(op).find((r) => r.location === 'path' && r.field === name);
      if (!ref) continue;
      const options = await tenant.pools.values(ref.spec, values);
      if (options.length > 0) {
        values[name] = options[0];
        break;
      }
    }
    if (values[name] === undefined) {
      const param = ops.flatMap((o) => o.parameters).find((p) => p.in === 'path' && p.name === name);
      values[name] = param?.schema.type === 'integer' ? 1 : 'x';
    }
  }
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(String(values[name])));
}

const allowOf = (res: RawResponse): string[] =>
  String(res.headers.allow ?? '')
    .split(',')
    .map((m) => m.trim().toUpperCase())
    .filter((m) => m.length > 0);

/** `Allow` must name what the document gives the path (HEAD and OPTIONS may be added). */
function allowMismatch(res: RawResponse, documented: string[]): string | undefined {
  const allow = allowOf(res).filter((m) => m !== 'HEAD' && m !== 'OPTIONS');
  const expected = documented.filter((m) => m !== 'HEAD' && m !== 'OPTIONS');
  const same = allow.length === expected.length && expected.every((m) => allow.includes(m));
  return same
    ? undefined
    : `Allow is "${String(res.headers.allow ?? '')}", the document gives ${expected.join(', ')}`;
}

async function send(
  w: FuzzWorld,
  raw: RawRequest,
  log: ProblemLog,
  where: string,
  secrets: string[],
): Promise<RawResponse | undefined> {
  log.requests += 1;
  try {
    return await sendRaw(w.baseUrl, raw);
  } catch (err) {
    if (!(err instanceof NoAnswerError)) throw err;
    log.add({
      group: GROUP.noAnswer,
      where,
      reason: err.message,
      request: describeRequest(raw, secrets),
      response: '-',
    });
    return undefined;
  }
}

async function everyMethod(w: FuzzWorld, tenant: FuzzTenant, doc: ApiDocument): Promise<ProblemLog> {
  const log = new ProblemLog();
  // Credentials even on public paths, so "no credential" is never the reason for the answer.
  const auth = { authorization: `Bearer ${tenant.credentials[doc.api]}` };
  for (const [template, documented] of doc.methodsByTemplate) {
    const path = await concretePath(doc, template, tenant);
    const get = documented.includes('GET')
      ? await send(w, { method: 'GET', path, headers: auth }, log, `GET ${template}`, tenant.secrets)
      : undefined;
    // One problem per path and kind, listing the methods, so 8 methods × 40 paths stay readable.
    const wrong = new Map<string, { methods: string[]; raw: RawRequest; res: RawResponse; group: string }>();
    const note = (group: string, reason: string, method: string, raw: RawRequest, res: RawResponse): void => {
      const entry = wrong.get(`${group}\u0000${reason}`) ?? { methods: [], raw, res, group };
      entry.methods.push(method);
      wrong.set(`${group}\u0000${reason}`, entry);
    };
    for (const method of METHODS) {
      if (documented.includes(method)) continue;
      const raw: RawRequest = { method, path, headers: { ...auth } };
      if (!['GET', 'HEAD', 'OPTIONS', 'TRACE'].includes(method)) {
        raw.headers = { ...raw.headers, 'content-type': 'application/json' };
        raw.body = '{}';
      }
      const before = await w.rows.snapshot([tenant.companyId]);
      const res = await send(w, raw, log, `${method} ${template}`, tenant.secrets);
      if (!res) continue;
      if (res.status >= 500)
        note(GROUP.serverError, `${res.status} for a method the path does not support`, method, raw, res);
      if (method === 'HEAD' && get) {
        if (res.status !== get.status)
          note(GROUP.methods, `HEAD → ${res.status} where GET → ${get.status}`, method, raw, res);
      } else if (method === 'OPTIONS') {
        if (![200, 204, 405].includes(res.status))
          note(GROUP.methods, `OPTIONS → ${res.status}, expected 204 or 405 with Allow`, method, raw, res);
        const mismatch = allowMismatch(res, documented);
        if (mismatch) note(GROUP.methods, mismatch, method, raw, res);
      } else if (res.status !== 405) {
        note(
          GROUP.methods,
          `unsupported method → ${res.status}, expected 405 with Allow: ${documented.join(', ')} (docs/api.md, "Requests and errors")`,
          method,
          raw,
          res,
        );
      } else {
        const mismatch = allowMismatch(res, documented);
        if (mismatch) note(GROUP.methods, `405, but ${mismatch}`, method, raw, res);
      }
      if (res.status >= 400 && method !== 'HEAD' && !errorOf(res))
        note(
          GROUP.noEnvelope,
          `${res.status} answered with ${res.contentType || 'no content type'}`,
          method,
          raw,
          res,
        );
      const changed = TenantRows.diff(before, await w.rows.snapshot([tenant.companyId]));
      if (changed.length > 0)
        note(
          GROUP.rowsLeft,
          `a method the path does not support changed ${changed.join(', ')}`,
          method,
          raw,
          res,
        );
      const polluted = prototypeChanges();
      if (polluted) note(GROUP.prototype, polluted, method, raw, res);
    }
    for (const [key, { methods, raw, res, group }] of wrong) {
      log.add({
        group,
        where: template,
        reason: `${methods.join(', ')}: ${key.split('\u0000')[1] ?? ''}`,
        request: describeRequest(raw, tenant.secrets),
        response: describeResponse(res),
      });
    }
  }
  return log;
}

/** Segments that do not spell a documented path; some look like one (`..`, encoded slashes, case). */
const segment = fc.oneof(
  fc.webSegment().filter((s) => s.length > 0),
  fc.constantFrom(
    '..',
    '.',
    '%2e%2e',
    'v2',
    'OPENAPI.JSON',
    '%2F',
    'payment-links%2Fx',
    'INTEGRATIONS',
    'integrations;x',
    'x%20y',
  ),
);

async function unknownPaths(w: FuzzWorld, tenant: FuzzTenant): Promise<ProblemLog> {
  const log = new ProblemLog();
  const docs = [w.docs.payments, w.docs.panel];
  const known = docs.flatMap((d) => [...d.methodsByTemplate.keys()].map((t) => templateMatcher(t)));
  const arb = fc.record({
    api: fc.constantFrom(...docs),
    segments: fc.array(segment, { minLength: 1, maxLength: 4 }),
    method: fc.constantFrom('GET', 'POST', 'DELETE'),
  });
  await runProperty('unknown paths', arb, fuzzConfig.unknownPaths, log, async ({ api, segments, method }) => {
    // The payments API lives under /v1 (its document's paths all start there); the panel under its server path.
    const root = api.prefix || `/${[...api.methodsByTemplate.keys()][0]?.split('/')[1] ?? 'v1'}`;
    const path = `${root}/${segments.join('/')}`;
    if (
      known.some((re) => re.test(path)) ||
      known.some((re) => re.test(decodeURIComponent(path.replace(/%(?![0-9a-fA-F]{2})/g, '%25'))))
    ) {
      fc.pre(false);
    }
    const raw: RawRequest = {
      method,
      path,
      headers: { authorization: `Bearer ${tenant.credentials[api.api]}` },
    };
    const res = await send(w, raw, log, `${method} ${root}/…`, tenant.secrets);
    if (!res) return;
    const report = (group: string, reason: string): void =>
      log.add({
        group,
        where: `unknown path under ${root}`,
        reason,
        request: describeRequest(raw, tenant.secrets),
        response: describeResponse(res),
      });
    const otherCase = known.some((re) => new RegExp(re.source, 'i').test(path));
    if (res.status >= 500) report(GROUP.serverError, `${res.status} for an unknown path`);
    else if (res.status !== 404 && res.status !== 400) {
      report(
        GROUP.methods,
        otherCase
          ? `a documented path in other letter case → ${res.status} (routing is case-insensitive), expected 404`
          : `unknown path → ${res.status}, expected 404`,
      );
    }
    if (res.status >= 400 && !errorOf(res))
      report(GROUP.noEnvelope, `${res.status} answered with ${res.contentType || 'no content type'}`);
  });
  return log;
}

async function securityHeaders(w: FuzzWorld, tenant: FuzzTenant): Promise<ProblemLog> {
  const log = new ProblemLog();
  for (const doc of [w.docs.payments, w.docs.panel]) {
    const list = doc.operations.find(
      (o) => o.method === 'GET' && !o.isPublic && o.parameters.every((p) => !p.required),
    );
    const probes: RawRequest[] = [
      ...(list
        ? [
            {
              method: 'GET',
              path: list.fullTemplate,
              headers: { authorization: `Bearer ${tenant.credentials[doc.api]}` },
            },
          ]
        : []),
      {
        method: 'GET',
        path: `${doc.prefix || '/v1'}/no-such-path`,
        headers: { authorization: `Bearer ${tenant.credentials[doc.api]}` },
      },
      { method: 'GET', path: doc.url },
    ];
    for (const raw of probes) {
      const res = await send(w, raw, log, `${doc.api} API`, tenant.secrets);
      if (!res) continue;
      const missing = missingSecurityHeaders(res);
      if (missing.length > 0) {
        log.add({
          group: GROUP.headers,
          where: `${doc.api} API`,
          reason: `${res.status} response lacks ${missing.join(' and ')}`,
          request: describeRequest(raw, tenant.secrets),
          response: describeResponse(res),
        });
      }
    }
  }
  return log;
}

describe('OpenAPI fuzz: methods and paths', function () {
  this.timeout(120_000);
  let w: FuzzWorld;
  let tenant: FuzzTenant;

  before(async () => {
    w = await fuzzWorld();
    tenant = await newTenant(w);
  });

  const check = async (title: string, run: () => Promise<ProblemLog>): Promise<void> => {
    const log = await run();
    remember(title, log);
    if (log.size > 0) throw new Error(log.format(title));
  };

  it('answers every method a documented path does not support with 405 and Allow (payments API)', () =>
    check('methods, payments API', () => everyMethod(w, tenant, w.docs.payments)));
  it('answers every method a documented path does not support with 405 and Allow (panel API)', () =>
    check('methods, panel API', () => everyMethod(w, tenant, w.docs.panel)));
  it('answers paths no document has with 404 in the error envelope', () =>
    check('unknown paths', () => unknownPaths(w, tenant)));
  it('sends Cache-Control: no-store and X-Content-Type-Options: nosniff on JSON API responses', () =>
    check('security headers', () => securityHeaders(w, tenant)));
});
