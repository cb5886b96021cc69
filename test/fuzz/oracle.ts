import { referencesOf, type FieldReference } from './references.js';
import type { ApiDocument, Operation, Schema } from './documents.js';
import type { Expectation } from './hostile.js';
import { isSchema } from './documents.js';
import type { RawRequest, RawResponse } from './raw-http.js';
import type { UsedReference } from './request.js';
import type { ReferencePools } from './references.js';

/** Records one problem about the request being judged. */
export type Report = (group: string, reason: string) => void;

export const GROUP = {
  serverError: '5xx',
  noAnswer: 'no answer / connection dropped',
  undocumentedStatus: 'status not listed for the operation',
  responseMismatch: 'response body does not match the document',
  noEnvelope: 'error without the JSON error envelope',
  docAllowsServerRefuses: 'document allows, server refuses (400 for a reason the document could state)',
  refusedValid: 'valid request refused for another reason',
  docForbidsServerAccepts: 'document forbids, server accepts',
  wrongStatus: 'hostile input answered with the wrong status (docs/api.md, "Requests and errors")',
  methods: 'unsupported method or unknown path answered wrongly (docs/api.md, "Requests and errors")',
  wrongField: 'invalid field refused without naming any field',
  rowsLeft: "rejected request changed the tenant's rows",
  prototype: 'prototype pollution',
  headers: 'missing security headers on JSON API responses (docs/api.md, "Requests and errors")',
} as const;

export interface ErrorBody {
  type: string;
  message: string;
  fields: Record<string, string[]>;
}

export function errorOf(res: RawResponse): ErrorBody | undefined {
  const body = res.json;
  if (!isSchema(body) || !isSchema(body.error)) return undefined;
  const { type, message, fields } = body.error;
  if (typeof type !== 'string' || typeof message !== 'string') return undefined;
  const named: Record<string, string[]> = {};
  if (isSchema(fields)) {
    for (const [k, v] of Object.entries(fields)) named[k] = Array.isArray(v) ? v.map(String) : [String(v)];
  }
  return { type, message, fields: named };
}

/** Error messages without the values that vary from request to request, so equal problems collapse. */
export const normalizeMessage = (message: string): string =>
  message
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\b(plink|req|of|pl)_[0-9A-Za-z]+/g, '$1_…')
    .replace(/: [^:]*$/, (tail) => (tail.length > 40 ? ': …' : tail))
    .slice(0, 160);

const PROTOTYPE_BASELINE = {
  object: Object.getOwnPropertyNames(Object.prototype).sort().join(','),
  array: Object.getOwnPropertyNames(Array.prototype).sort().join(','),
};

/** The app runs in this process: a polluted prototype would show up right here. */
export function prototypeChanges(): string | undefined {
  const object = Object.getOwnPropertyNames(Object.prototype).sort().join(',');
  const array = Object.getOwnPropertyNames(Array.prototype).sort().join(',');
  if (object !== PROTOTYPE_BASELINE.object) return `Object.prototype now has: ${object}`;
  if (array !== PROTOTYPE_BASELINE.array) return `Array.prototype now has: ${array}`;
  return undefined;
}

/** The schema the document gives a field (`customer.name`, a parameter), for the report. */
export function fieldSchema(op: Operation, field: string): Schema | undefined {
  // Errors about the body as a whole (minProperties, exactly-one-of rules) are reported under `body`.
  if (field === 'body' || field === '') {
    const whole = op.body?.schema;
    return whole ? Object.fromEntries(Object.entries(whole).filter(([k]) => k !== 'properties')) : undefined;
  }
  const param = op.parameters.find((p) => p.name.toLowerCase() === field.toLowerCase());
  if (param) return param.schema;
  let schema: Schema | undefined = op.body?.schema;
  for (const segment of field.split('.')) {
    if (!schema) return undefined;
    schema = propertySchema(schema, segment);
  }
  return schema;
}

function propertySchema(schema: Schema, name: string): Schema | undefined {
  if (isSchema(schema.properties) && isSchema(schema.properties[name])) return schema.properties[name];
  for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
    const branches = schema[keyword];
    if (!Array.isArray(branches)) continue;
    for (const b of branches) {
      const found = isSchema(b) ? propertySchema(b, name) : undefined;
      if (found) return found;
    }
  }
  if (isSchema(schema.additionalProperties)) return schema.additionalProperties;
  if (/^\d+$/.test(name) && isSchema(schema.items)) return schema.items;
  return undefined;
}

/**
 * A field name with the keys of free-form maps (`config`, `metadata`) replaced by `*`, so that one
 * rule about any key is one problem, not one per random key.
 */
export function canonicalField(op: Operation, field: string): string {
  if (!op.body || op.parameters.some((p) => p.name.toLowerCase() === field.toLowerCase())) return field;
  let schema: Schema | undefined = op.body.schema;
  const out: string[] = [];
  for (const segment of field.split('.')) {
    const declared = schema ? declaredProperty(schema, segment) : undefined;
    out.push(
      declared || !schema || (!isSchema(schema.additionalProperties) && schema.additionalProperties !== true)
        ? segment
        : '*',
    );
    schema = schema ? propertySchema(schema, segment) : undefined;
  }
  return out.join('.');
}

function declaredProperty(schema: Schema, name: string): boolean {
  if (isSchema(schema.properties) && name in schema.properties) return true;
  return ['anyOf', 'oneOf', 'allOf'].some((k) => {
    const branches = schema[k];
    return Array.isArray(branches) && branches.some((b) => isSchema(b) && declaredProperty(b, name));
  });
}

export function summarizeSchema(schema: Schema | undefined): string {
  if (!schema) return 'not described';
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (!isSchema(node)) return node;
    return Object.fromEntries(
      Object.entries(node)
        .filter(([k]) => !['description', 'examples', 'x-references', 'default'].includes(k))
        .map(([k, v]) => [k, strip(v)]),
    );
  };
  const text = JSON.stringify(strip(schema));
  return text.length > 220 ? `${text.slice(0, 220)}…` : text;
}

/**
 * What every answer of a JSON API must satisfy: never a 5xx, a status the operation lists, a body
 * the document describes, and the error envelope on errors. (The security headers are checked once
 * per API by the paths suite: here they would repeat on every request.)
 */
export function missingSecurityHeaders(res: RawResponse): string[] {
  const missing: string[] = [];
  if (!/no-store/.test(String(res.headers['cache-control'] ?? ''))) missing.push('Cache-Control: no-store');
  if (String(res.headers['x-content-type-options'] ?? '') !== 'nosniff')
    missing.push('X-Content-Type-Options: nosniff');
  return missing;
}

export function checkJsonApiResponse(
  doc: ApiDocument,
  op: Operation | undefined,
  req: RawRequest,
  res: RawResponse,
  report: Report,
): void {
  if (res.status >= 500) report(GROUP.serverError, `${res.status} ${errorOf(res)?.type ?? ''}`.trim());
  if (res.status >= 400 && req.method !== 'HEAD' && !errorOf(res)) {
    report(GROUP.noEnvelope, `${res.status} answered with ${res.contentType || 'no content type'}`);
  }
  if (!op) return;
  if (!op.statuses.has(String(res.status)) && !op.statuses.has('default')) {
    if (res.status < 500)
      report(GROUP.undocumentedStatus, `${res.status} is not among ${[...op.statuses].join(', ')}`);
    return;
  }
  if (req.method === 'HEAD') return;
  try {
    const body = res.json !== undefined ? res.json : res.text;
    doc.validator.check(req.method, req.path, res.status, res.contentType || null, body);
  } catch (err) {
    const message = err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
    report(GROUP.responseMismatch, message.replace(/^OpenAPI: /, '').slice(0, 300));
  }
}

const fieldMatches = (ref: FieldReference, field: string): boolean =>
  ref.location === 'body'
    ? field === ref.field || field.startsWith(`${ref.field}.`)
    : field.toLowerCase() === ref.field.toLowerCase();

/** Whether a referenced value sent is still one the service lists as valid. */
async function stillValid(
  used: UsedReference,
  pools: ReferencePools,
  pathParams: Record<string, unknown>,
): Promise<boolean> {
  if (!used.fromService) return false;
  const values = await pools.values(used.ref.spec, pathParams, true);
  return values.some((v) => JSON.stringify(v) === JSON.stringify(used.value));
}

/**
 * Valid mode: the request is one the document allows. A 400 or 404 is fine only when it names
 * data-dependent fields holding values that do not name existing data; any other refusal is a
 * place where the document and the server disagree.
 */
export async function judgeValid(
  op: Operation,
  used: UsedReference[],
  pathParams: Record<string, unknown>,
  res: RawResponse,
  pools: ReferencePools,
  report: Report,
): Promise<void> {
  const status = res.status;
  if (status < 400 || status >= 500) return;
  const error = errorOf(res);
  if (status === 400) {
    const fields = Object.entries(error?.fields ?? {});
    if (fields.length === 0) {
      report(
        GROUP.docAllowsServerRefuses,
        `400 without fields: "${normalizeMessage(error?.message ?? res.text)}"`,
      );
      return;
    }
    // A field marked `x-references` without a listing operation depends on stored data (an
    // integration's current type), whether or not this request sent a value for it.
    const stored = referencesOf(op).filter((r) => r.spec.operationId === undefined);
    for (const [field, messages] of fields) {
      const message = normalizeMessage(messages.join('; '));
      const ref = used.find((u) => fieldMatches(u.ref, field));
      if (!ref && stored.some((r) => fieldMatches(r, field))) continue;
      if (!ref) {
        report(
          GROUP.docAllowsServerRefuses,
          `400 naming ${canonicalField(op, field)}: "${message}"; the document allows ${summarizeSchema(fieldSchema(op, field))}`,
        );
      } else if (await stillValid(ref, pools, pathParams)) {
        report(
          GROUP.docAllowsServerRefuses,
          `400 naming ${field}: "${message}", yet its value is valid data (listed by ${ref.ref.spec.operationId ?? '?'}); the rule is not in the document`,
        );
      }
    }
    return;
  }
  if (status === 404 || status === 409) {
    if (status === 409 && op.statuses.has('409')) return;
    const stale: boolean[] = [];
    for (const u of used) stale.push(!(await stillValid(u, pools, pathParams)));
    if (stale.some(Boolean)) return;
    report(
      GROUP.refusedValid,
      `${status} ${error?.type ?? ''} "${normalizeMessage(error?.message ?? '')}" although every referenced value exists`,
    );
    return;
  }
  report(
    GROUP.refusedValid,
    `${status} ${error?.type ?? ''}: "${normalizeMessage(error?.message ?? res.text)}"`,
  );
}

/** Hostile mode: what the mutation's expectation says, on top of the checks every answer gets. */
export function judgeHostile(op: Operation, expect: Expectation, res: RawResponse, report: Report): void {
  const status = res.status;
  if (status >= 500) return;
  switch (expect.kind) {
    case 'any':
      return;
    case 'statuses':
      if (!expect.statuses.includes(status))
        report(GROUP.wrongStatus, `${status}, expected ${expect.statuses.join(' or ')} (${expect.why})`);
      return;
    case 'invalid': {
      const field = canonicalField(op, expect.field);
      if (status < 300) {
        report(
          GROUP.docForbidsServerAccepts,
          `accepted with ${status}; the document says ${field} is ${summarizeSchema(fieldSchema(op, expect.field))}`,
        );
        return;
      }
      if (status === 400) {
        // A server that stops at its first error may name another field of the request first;
        // only a refusal that names no field at all says nothing about this one.
        if (Object.keys(errorOf(res)?.fields ?? {}).length === 0)
          report(GROUP.wrongField, `400 without fields (expected ${field} named)`);
        return;
      }
      if (status === 404 && expect.location === 'path') return;
      report(GROUP.wrongStatus, `${status}, expected 400 naming ${field}`);
    }
  }
}
