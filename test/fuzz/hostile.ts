import { brotliCompressSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { Operation, ParamLocation, Schema } from './documents.js';
import { isSchema } from './documents.js';
import { OMIT, type GeneratedRequest, type RequestValidator } from './generate.js';
import type { RawRequest } from './raw-http.js';
import { buildPath, buildQuery, paramText, toRawRequest, type ResolvedRequest } from './request.js';
import type { Credentials } from './references.js';

/**
 * Hostile mode: a valid request with one thing made hostile. Each mutation says what the request
 * rules (docs/api.md, "Requests and errors") or the document itself expect back.
 */
export type Expectation =
  /** The document forbids the value: 400 naming `field` (a path parameter may also be 404). */
  | { kind: 'invalid'; field: string; location: ParamLocation | 'body' }
  /** One of these statuses; `bareStatuses` may come from Node's HTTP parser, before any app code. */
  | { kind: 'statuses'; statuses: number[]; why: string; bareStatuses?: number[] }
  /** Anything documented, as long as it is not a 5xx and leaves no row behind. */
  | { kind: 'any' };

export interface Mutation {
  category: 'field' | 'injection' | 'body' | 'url' | 'auth';
  /** What was done, e.g. `string over maxLength`; with the target it names the problem in reports. */
  kind: string;
  target: string;
  expect: Expectation;
  apply(req: ResolvedRequest, credentials: Credentials): RawRequest;
}

/** A body over 100 kB is 413 (docs/api.md, "Requests and errors"); BODY_LIMIT_BYTES is not overridden by the suite. */
export const BODY_LIMIT_BYTES = Number(process.env.BODY_LIMIT_BYTES ?? 102_400);

type Location = ParamLocation | 'body';

interface Field {
  location: Location;
  /** Property path for the body, `[name]` for a parameter. */
  path: string[];
  schema: Schema;
  required: boolean;
}

const label = (f: Field): string => (f.location === 'body' ? f.path.join('.') : (f.path[0] ?? ''));
const targetOf = (f: Field): string => `${f.location}.${label(f)}`;

/** Own property even for `__proto__`: a hostile body carries it as a key, not as a prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

const clone = <T>(value: T): T =>
  value === undefined || value === OMIT ? value : (JSON.parse(JSON.stringify(value)) as T);

const DELETE = Symbol('delete');

/** Sets (or deletes) the value at `path` in the body, creating the objects on the way. */
function withBodyValue(body: unknown, path: string[], value: unknown): unknown {
  const root: Record<string, unknown> =
    body !== OMIT && body !== null && typeof body === 'object' && !Array.isArray(body)
      ? clone(body as Record<string, unknown>)
      : {};
  let node: Record<string, unknown> = root;
  for (const segment of path.slice(0, -1)) {
    const next = node[segment];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) {
      const created: Record<string, unknown> = {};
      setOwn(node, segment, created);
      node = created;
    } else node = next as Record<string, unknown>;
  }
  const last = path[path.length - 1] ?? '';
  if (value === DELETE) delete node[last];
  else setOwn(node, last, value);
  return root;
}

function withValue(req: ResolvedRequest, field: Field, value: unknown): ResolvedRequest {
  const values: GeneratedRequest = {
    ...req.values,
    path: { ...req.values.path },
    query: { ...req.values.query },
    headers: { ...req.values.headers },
  };
  if (field.location === 'body') values.body = withBodyValue(req.values.body, field.path, value);
  else {
    const bag =
      field.location === 'path' ? values.path : field.location === 'query' ? values.query : values.headers;
    const name = field.path[0] ?? '';
    if (value === DELETE) delete bag[name];
    else bag[name] = value;
  }
  return { ...req, values };
}

function nonNullObjectBranch(schema: Schema): Schema {
  for (const keyword of ['anyOf', 'oneOf']) {
    const branches = schema[keyword];
    if (!Array.isArray(branches)) continue;
    const objects = branches.filter((b) => isSchema(b) && (b.type === 'object' || isSchema(b.properties)));
    // Several object shapes (a config that is one or another): a value wrong for one branch may be
    // right for the other, so no property of either can be judged on its own.
    if (objects.length > 1) return {};
    const [object] = objects;
    if (isSchema(object)) return object;
  }
  return schema;
}

/** Every field a request of `op` can carry: parameters, and body properties down the tree. */
export function fieldsOf(op: Operation): Field[] {
  const out: Field[] = op.parameters.map((p) => ({
    location: p.in,
    path: [p.name],
    schema: p.schema,
    required: p.required,
  }));
  const walk = (schema: Schema, path: string[], depth: number): void => {
    if (depth > 4) return;
    const object = nonNullObjectBranch(schema);
    const properties = isSchema(object.properties) ? object.properties : {};
    const required = new Set(Array.isArray(object.required) ? object.required.map(String) : []);
    for (const [name, sub] of Object.entries(properties)) {
      if (!isSchema(sub)) continue;
      out.push({ location: 'body', path: [...path, name], schema: sub, required: required.has(name) });
      walk(sub, [...path, name], depth + 1);
    }
    // A free-form map (metadata, config): one key stands for all of them.
    if (isSchema(object.additionalProperties)) {
      out.push({
        location: 'body',
        path: [...path, 'fuzz_key'],
        schema: object.additionalProperties,
        required: false,
      });
    }
    if (isSchema(object.items))
      out.push({ location: 'body', path: [...path, '0'], schema: object.items, required: false });
  };
  if (op.body) walk(op.body.schema, [], 0);
  return out;
}

const typeList = (schema: Schema): string[] => {
  const collect = (s: Schema): string[] => {
    if (typeof s.type === 'string') return [s.type];
    if (Array.isArray(s.type)) return s.type.map(String);
    const branches = [
      ...(Array.isArray(s.anyOf) ? s.anyOf : []),
      ...(Array.isArray(s.oneOf) ? s.oneOf : []),
    ].filter(isSchema);
    return branches.flatMap(collect);
  };
  return [...new Set(collect(schema))];
};

/** Finds the first schema (itself or a branch) with `keyword`. */
function keywordOf(schema: Schema, keyword: string): unknown {
  if (schema[keyword] !== undefined) return schema[keyword];
  for (const k of ['anyOf', 'oneOf', 'allOf']) {
    const branches = schema[k];
    if (!Array.isArray(branches)) continue;
    for (const b of branches) {
      const found = isSchema(b) ? keywordOf(b, keyword) : undefined;
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Values to try in a JSON body that the document may forbid; ajv decides which it does. */
function bodyCandidates(schema: Schema): Array<{ kind: string; value: unknown }> {
  const types = typeList(schema);
  const out: Array<{ kind: string; value: unknown }> = [];
  const wrongTypes: Array<[string, unknown]> = [
    ['string', 'text'],
    ['string "true"', 'true'],
    ['string "12"', '12'],
    ['number', 12],
    ['fraction', 1.5],
    ['negative', -1],
    ['boolean', true],
    ['null', null],
    ['array', ['x']],
    ['empty object', {}],
    ['NoSQL operator object', { $gt: '' }],
    ['huge number', 1e300],
  ];
  for (const [kind, value] of wrongTypes) out.push({ kind: `wrong type (${kind})`, value });
  const maxLength = keywordOf(schema, 'maxLength');
  if (typeof maxLength === 'number') {
    out.push({ kind: 'string over maxLength', value: 'a'.repeat(maxLength + 1) });
    out.push({ kind: 'string far over maxLength', value: 'é'.repeat(maxLength * 4 + 10) });
  }
  const minLength = keywordOf(schema, 'minLength');
  if (typeof minLength === 'number' && minLength > 0)
    out.push({ kind: 'string under minLength', value: 'a'.repeat(minLength - 1) });
  const enumValues = keywordOf(schema, 'enum');
  if (Array.isArray(enumValues) && typeof enumValues[0] === 'string') {
    out.push({ kind: 'value outside enum', value: 'not-in-enum' });
    out.push({ kind: 'enum value in another case', value: enumValues[0].toUpperCase() });
    out.push({ kind: 'enum value with spaces', value: ` ${enumValues[0]} ` });
  }
  if (keywordOf(schema, 'pattern') !== undefined) {
    for (const value of ['', ' ', '!!', '1.234', '-1', '٣', '1e3'])
      out.push({ kind: 'string outside pattern', value });
  }
  const format = keywordOf(schema, 'format');
  if (format === 'email')
    for (const value of ['not-an-email', 'a@', '@b.c', 'a b@c.d']) out.push({ kind: 'not an email', value });
  if (format === 'date-time') {
    for (const value of [
      'tomorrow',
      '2030-13-45T25:61:00Z',
      '2030-01-01T10:00:00',
      '2030-01-01',
      '1700000000',
    ])
      out.push({ kind: 'not a date-time', value });
  }
  const minimum = keywordOf(schema, 'minimum');
  const maximum = keywordOf(schema, 'maximum');
  if (typeof minimum === 'number')
    out.push(
      { kind: 'number under minimum', value: minimum - 1 },
      { kind: 'number just under minimum', value: minimum - 0.01 },
    );
  if (typeof maximum === 'number') out.push({ kind: 'number over maximum', value: maximum + 1 });
  if (types.includes('integer'))
    out.push({ kind: 'integer with a fraction', value: 2.5 }, { kind: 'unsafe integer', value: 2 ** 63 });
  const maxItems = keywordOf(schema, 'maxItems');
  const items = keywordOf(schema, 'items');
  if (types.includes('array') && isSchema(items)) {
    const enumItems = keywordOf(items, 'enum');
    const sample = Array.isArray(enumItems) ? enumItems[0] : 'x';
    out.push({ kind: 'array item outside its schema', value: [42] });
    if (keywordOf(schema, 'uniqueItems') === true)
      out.push({ kind: 'duplicate array items', value: [sample, sample] });
    if (typeof maxItems === 'number')
      out.push({ kind: 'array over maxItems', value: Array.from({ length: maxItems + 1 }, () => sample) });
    out.push({ kind: 'very long array', value: Array.from({ length: 5000 }, () => sample) });
  }
  const maxProperties = keywordOf(schema, 'maxProperties');
  if (typeof maxProperties === 'number') {
    out.push({
      kind: 'object over maxProperties',
      value: Object.fromEntries(Array.from({ length: maxProperties + 1 }, (_v, i) => [`k${i}`, 'v'])),
    });
  }
  if (types.includes('object') || isSchema(schema.additionalProperties)) {
    const polluting: Record<string, unknown> = {};
    setOwn(polluting, '__proto__', { polluted: 'yes' });
    out.push({ kind: 'object with a __proto__ object', value: polluting });
    out.push({
      kind: 'object with constructor.prototype',
      value: { constructor: { prototype: { polluted: 'yes' } } },
    });
    out.push({ kind: 'object nested 2,000 deep', value: nested(2000, 'object') });
  }
  return out;
}

/** Parameter values as they travel (text), to try where the document may forbid them. */
function paramCandidates(schema: Schema): Array<{ kind: string; text: string }> {
  const types = typeList(schema);
  const out: Array<{ kind: string; text: string }> = [];
  if (types.includes('integer') || types.includes('number')) {
    for (const text of ['abc', '1.5', '', ' ', '0x10', '1_000', '9'.repeat(40), '-1', '0', '１２'])
      out.push({ kind: 'not an integer', text });
    const minimum = keywordOf(schema, 'minimum');
    const maximum = keywordOf(schema, 'maximum');
    if (typeof minimum === 'number') out.push({ kind: 'under minimum', text: String(minimum - 1) });
    if (typeof maximum === 'number') out.push({ kind: 'over maximum', text: String(maximum + 1) });
  }
  if (types.includes('boolean')) out.push({ kind: 'not a boolean', text: 'yes' });
  const enumValues = keywordOf(schema, 'enum');
  if (Array.isArray(enumValues) && typeof enumValues[0] === 'string') {
    out.push(
      { kind: 'value outside enum', text: 'not-in-enum' },
      { kind: 'enum value in another case', text: enumValues[0].toUpperCase() },
    );
  }
  const maxLength = keywordOf(schema, 'maxLength');
  if (typeof maxLength === 'number') out.push({ kind: 'over maxLength', text: 'a'.repeat(maxLength + 1) });
  const minLength = keywordOf(schema, 'minLength');
  if (typeof minLength === 'number' && minLength > 0)
    out.push({ kind: 'under minLength', text: 'a'.repeat(minLength - 1) });
  return out;
}

/** What a parameter's text means in the document's terms (null when it cannot be read as its type). */
function parseParam(text: string, schema: Schema): { value: unknown } | null {
  const types = typeList(schema);
  if (types.includes('integer') && /^-?\d+$/.test(text)) return { value: Number(text) };
  if (types.includes('number') && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text)) return { value: Number(text) };
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return { value: text === 'true' };
  if (types.length === 0 || types.includes('string')) return { value: text };
  return null;
}

/** Strings attackers send; each goes into every string field the suite can reach. */
export const INJECTIONS: string[] = [
  "' OR '1'='1' --",
  "'; DROP TABLE payment_links; --",
  '1); SELECT pg_sleep(3); --',
  '\\',
  '{"$gt": ""}',
  '$where',
  '__proto__',
  'constructor',
  'prototype',
  '<script>alert(1)</script>',
  '${jndi:ldap://127.0.0.1/a}',
  '{{7*7}}',
  '../../../../etc/passwd',
  '%E0%A4%A',
  'line\r\nX-Injected: 1',
  '\u0000',
  'a\u0000b',
  '\u202e\u0000\ufeff',
  '\uffff\ufffe',
  'é'.repeat(5_000),
  '😀'.repeat(12_000),
  'ß'.repeat(60_000),
];

const HEADER_SAFE_INJECTIONS = [
  "' OR '1'='1' --",
  '{"$gt": ""}',
  '__proto__',
  '${jndi:ldap://127.0.0.1/a}',
  'é',
  'a'.repeat(8_000),
];

/** `String.prototype.isWellFormed` is Node 20 but not in this project's ES2023 lib. */
export const isWellFormed = (text: string): boolean =>
  !/\p{Surrogate}/u.test(text.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ''));

const BAD_ESCAPES = ['%E0%A4%A', '%', '%zz', '%C0%AF', 'a%2', '%ED%A0%80'];

export function nested(depth: number, kind: 'array' | 'object'): unknown {
  let value: unknown = 'x';
  for (let i = 0; i < depth; i += 1) value = kind === 'array' ? [value] : { a: value };
  return value;
}

const nestedText = (depth: number, kind: 'array' | 'object'): string =>
  kind === 'array'
    ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

function bodyRaw(
  req: ResolvedRequest,
  credentials: Credentials,
  body: Buffer | string,
  headers: Record<string, string> = {},
): RawRequest {
  const base = toRawRequest({ ...req, values: { ...req.values, body: OMIT } }, credentials);
  return { ...base, headers: { ...base.headers, 'content-type': 'application/json', ...headers }, body };
}

const validBodyText = (req: ResolvedRequest): string =>
  JSON.stringify(req.values.body === OMIT ? {} : req.values.body);

/** Every hostile change that applies to `op`, grouped by category for weighting. */
export function mutationsOf(op: Operation, validator: RequestValidator): Mutation[] {
  const out: Mutation[] = [];
  const fields = fieldsOf(op);

  for (const field of fields) {
    const target = targetOf(field);
    if (field.location === 'body') {
      for (const candidate of bodyCandidates(field.schema)) {
        if (validator.refusal(field.schema, candidate.value) === undefined) continue;
        out.push({
          category: 'field',
          kind: candidate.kind,
          target,
          expect: { kind: 'invalid', field: label(field), location: 'body' },
          apply: (req, credentials) => toRawRequest(withValue(req, field, candidate.value), credentials),
        });
      }
      if (field.required) {
        out.push({
          category: 'field',
          kind: 'required property missing',
          target,
          expect: { kind: 'invalid', field: label(field), location: 'body' },
          apply: (req, credentials) => toRawRequest(withValue(req, field, DELETE), credentials),
        });
      }
      if (typeList(field.schema).includes('string') || typeList(field.schema).length === 0) {
        for (const text of INJECTIONS) {
          const refused = validator.refusal(field.schema, text) !== undefined;
          out.push({
            category: 'injection',
            kind: `injection ${JSON.stringify(text.slice(0, 24))}${text.length > 24 ? `… (${text.length} chars)` : ''}`,
            target,
            expect:
              refused || text.includes('\u0000')
                ? { kind: 'invalid', field: label(field), location: 'body' }
                : { kind: 'any' },
            apply: (req, credentials) => toRawRequest(withValue(req, field, text), credentials),
          });
        }
      }
    } else {
      const name = field.path[0] ?? '';
      for (const candidate of paramCandidates(field.schema)) {
        // An empty path segment is another route, not a bad value of this one.
        if (field.location === 'path' && candidate.text === '') continue;
        const parsed = parseParam(candidate.text, field.schema);
        if (parsed && validator.refusal(field.schema, parsed.value) === undefined) continue;
        out.push({
          category: 'field',
          kind: candidate.kind,
          target,
          expect: { kind: 'invalid', field: name, location: field.location },
          apply: (req, credentials) => toRawRequest(withValue(req, field, candidate.text), credentials),
        });
      }
      const injections =
        field.location === 'header'
          ? HEADER_SAFE_INJECTIONS
          : INJECTIONS.filter((t) => isWellFormed(t) && t.length < 3_000);
      for (const text of injections) {
        const parsed = parseParam(text, field.schema);
        const refused = !parsed || validator.refusal(field.schema, parsed.value) !== undefined;
        const nul = text.includes('\u0000');
        const expect: Expectation =
          nul && field.location === 'path'
            ? { kind: 'statuses', statuses: [404], why: 'U+0000 in a path names nothing' }
            : refused || nul
              ? { kind: 'invalid', field: name, location: field.location }
              : { kind: 'any' };
        out.push({
          category: 'injection',
          kind: `injection ${JSON.stringify(text.slice(0, 24))}${text.length > 24 ? `… (${text.length} chars)` : ''}`,
          target,
          expect,
          apply: (req, credentials) => toRawRequest(withValue(req, field, text), credentials),
        });
      }
      if (field.required && field.location !== 'path') {
        out.push({
          category: 'field',
          kind: 'required parameter missing',
          target,
          expect: { kind: 'invalid', field: name, location: field.location },
          apply: (req, credentials) => toRawRequest(withValue(req, field, DELETE), credentials),
        });
      }
      if (field.location === 'query' && !typeList(field.schema).includes('array')) {
        out.push({
          category: 'url',
          kind: 'parameter repeated',
          target,
          expect: { kind: 'invalid', field: name, location: 'query' },
          apply: (req, credentials) => {
            const raw = toRawRequest(req, credentials);
            const value = req.values.query[name] ?? 'x';
            const sep = raw.path.includes('?') ? '&' : '?';
            return {
              ...raw,
              path: `${raw.path}${sep}${encodeURIComponent(name)}=${encodeURIComponent(paramText(value))}&${encodeURIComponent(name)}=${encodeURIComponent(paramText(value))}`,
            };
          },
        });
      }
      for (const escape of BAD_ESCAPES) {
        if (field.location === 'header') continue;
        out.push({
          category: 'url',
          // One label for every escape: they are one rule, and the request shows which was sent.
          kind: 'bad percent-encoding',
          target,
          expect: {
            kind: 'statuses',
            statuses: [400],
            why: 'bad percent-encoding is 400 validation_error',
          },
          apply: (req, credentials) => {
            const raw = toRawRequest(req, credentials);
            if (field.location === 'path') {
              const path = buildPath(op, req.values.path, (text) =>
                text === paramText(req.values.path[name]) ? escape : encodeURIComponent(text),
              );
              return { ...raw, path: path + buildQuery(req.values.query) };
            }
            const rest = { ...req.values.query };
            delete rest[name];
            const query = buildQuery(rest);
            return {
              ...raw,
              path: `${buildPath(op, req.values.path)}${query ? `${query}&` : '?'}${encodeURIComponent(name)}=${escape}`,
            };
          },
        });
      }
    }
  }

  // Query strings on every operation, documented parameters or not.
  const queryExtras: Array<[string, string, Expectation]> = [
    [
      'bad percent-encoding in an unknown parameter',
      'fuzz=%E0%A4%A',
      { kind: 'statuses', statuses: [400], why: 'bad percent-encoding is 400' },
    ],
    [
      'bad percent-encoding in a parameter name',
      '%E0%A4%A=1',
      { kind: 'statuses', statuses: [400], why: 'bad percent-encoding is 400' },
    ],
    ['__proto__ in a query parameter', '__proto__[polluted]=yes&__proto__.polluted=yes', { kind: 'any' }],
    ['constructor.prototype in a query parameter', 'constructor[prototype][polluted]=yes', { kind: 'any' }],
    ['NoSQL operator in a query parameter', 'status[$ne]=x&limit[$gt]=0', { kind: 'any' }],
    ['U+0000 in an unknown parameter', 'fuzz=%00', { kind: 'any' }],
    [
      'thousands of query parameters',
      Array.from({ length: 2_000 }, (_v, i) => `p${i}=1`).join('&'),
      { kind: 'any' },
    ],
  ];
  for (const [kind, query, expect] of queryExtras) {
    out.push({
      category: 'url',
      kind,
      target: 'query',
      expect,
      apply: (req, credentials) => {
        const raw = toRawRequest(req, credentials);
        return { ...raw, path: `${raw.path}${raw.path.includes('?') ? '&' : '?'}${query}` };
      },
    });
  }
  out.push({
    category: 'url',
    kind: 'URL over 20 kB',
    target: 'url',
    expect: {
      kind: 'statuses',
      statuses: [400, 404, 414, 431],
      why: 'too long to be a request',
      bareStatuses: [414, 431],
    },
    apply: (req, credentials) => {
      const raw = toRawRequest(req, credentials);
      return { ...raw, path: `${raw.path}${raw.path.includes('?') ? '&' : '?'}fuzz=${'a'.repeat(20_000)}` };
    },
  });

  if (op.body) {
    const invalidBody: Expectation = {
      kind: 'statuses',
      statuses: [400],
      why: 'not a body the document allows',
    };
    const bodies: Array<[string, () => string | Buffer, Expectation, Record<string, string>?]> = [
      [
        'JSON array nested 2,000 deep',
        () => nestedText(2_000, 'array'),
        { kind: 'statuses', statuses: [400], why: 'JSON nested deeper than 64 is 400' },
      ],
      [
        'JSON object nested 2,000 deep',
        () => nestedText(2_000, 'object'),
        { kind: 'statuses', statuses: [400], why: 'JSON nested deeper than 64 is 400' },
      ],
      [
        'JSON object nested 65 deep',
        () => nestedText(65, 'object'),
        { kind: 'statuses', statuses: [400], why: 'JSON nested deeper than 64 is 400' },
      ],
      [
        'JSON array nested 30,000 deep',
        () => nestedText(30_000, 'array'),
        { kind: 'statuses', statuses: [400], why: 'JSON nested deeper than 64 is 400' },
      ],
      [
        'body of 1 MB',
        () => JSON.stringify({ padding: 'x'.repeat(1_000_000) }),
        { kind: 'statuses', statuses: [413], why: 'a body over the limit is 413' },
      ],
      [
        'body one byte over the limit',
        () => JSON.stringify({ p: 'x'.repeat(BODY_LIMIT_BYTES - 7) }),
        { kind: 'statuses', statuses: [413], why: 'a body over the limit is 413' },
      ],
      ['malformed JSON', () => '{"a": ', invalidBody],
      ['JSON array body', () => '[]', invalidBody],
      ['JSON string body', () => '"text"', invalidBody],
      ['JSON number body', () => '42', invalidBody],
      ['JSON null body', () => 'null', invalidBody],
      ['empty body declared as JSON', () => '', op.body.required ? invalidBody : { kind: 'any' }],
      ['JSON with a BOM', () => `\ufeff{}`, { kind: 'any' }],
      ['number literal out of range', () => '{"a": 1e400}', { kind: 'any' }],
    ];
    for (const [kind, make, expect, headers] of bodies) {
      out.push({
        category: 'body',
        kind,
        target: 'body',
        expect,
        apply: (req, credentials) => bodyRaw(req, credentials, make(), headers),
      });
    }
    const notJson = [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
      'application/json; charset=iso-8859-1',
      'application/json; charset=utf-16',
    ];
    for (const type of notJson) {
      out.push({
        category: 'body',
        kind: `Content-Type ${type}`,
        target: 'body',
        expect: {
          kind: 'statuses',
          statuses: [415],
          why: 'a body that is not application/json is 415',
        },
        apply: (req, credentials) => bodyRaw(req, credentials, validBodyText(req), { 'content-type': type }),
      });
    }
    out.push({
      category: 'body',
      kind: 'body without Content-Type',
      target: 'body',
      expect: { kind: 'statuses', statuses: [400, 415], why: 'a body that is not declared JSON' },
      apply: (req, credentials) => {
        const raw = bodyRaw(req, credentials, validBodyText(req));
        const headers = { ...raw.headers };
        delete headers['content-type'];
        return { ...raw, headers };
      },
    });
    const garbage = Buffer.from('this is not compressed data at all, not even close');
    const encodings: Array<[string, string, (req: ResolvedRequest) => Buffer, Expectation]> = [
      [
        'corrupt gzip body',
        'gzip',
        () => garbage,
        { kind: 'statuses', statuses: [400], why: 'corrupt Content-Encoding data is 400' },
      ],
      [
        'truncated gzip body',
        'gzip',
        (req) => gzipSync(validBodyText(req)).subarray(0, 12),
        { kind: 'statuses', statuses: [400], why: 'corrupt Content-Encoding data is 400' },
      ],
      [
        'corrupt br body',
        'br',
        () => garbage,
        { kind: 'statuses', statuses: [400], why: 'corrupt Content-Encoding data is 400' },
      ],
      [
        'corrupt deflate body',
        'deflate',
        () => garbage,
        { kind: 'statuses', statuses: [400], why: 'corrupt Content-Encoding data is 400' },
      ],
      [
        'gzip bomb (10 MB of zeros)',
        'gzip',
        () => gzipSync(Buffer.alloc(10_000_000, 0x20)),
        { kind: 'statuses', statuses: [400, 413], why: 'inflated past the body limit' },
      ],
      [
        'unknown Content-Encoding',
        'x-fuzz',
        (req) => Buffer.from(validBodyText(req)),
        { kind: 'statuses', statuses: [415], why: 'an unknown Content-Encoding is 415' },
      ],
      [
        'Content-Encoding compress',
        'compress',
        (req) => Buffer.from(validBodyText(req)),
        { kind: 'statuses', statuses: [415], why: 'an unknown Content-Encoding is 415' },
      ],
      ['valid gzip body', 'gzip', (req) => gzipSync(validBodyText(req)), { kind: 'any' }],
      ['valid br body', 'br', (req) => brotliCompressSync(validBodyText(req)), { kind: 'any' }],
    ];
    for (const [kind, encoding, make, expect] of encodings) {
      out.push({
        category: 'body',
        kind,
        target: 'body',
        expect,
        apply: (req, credentials) => bodyRaw(req, credentials, make(req), { 'content-encoding': encoding }),
      });
    }
    out.push({
      category: 'body',
      kind: 'invalid UTF-8 bytes in a string',
      target: 'body',
      expect: { kind: 'any' },
      apply: (req, credentials) => {
        const text = validBodyText(req);
        const at = text.indexOf('":"');
        const bytes = [0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80];
        const body =
          at < 0
            ? Buffer.concat([Buffer.from('{"x":"'), Buffer.from(bytes), Buffer.from('"}')])
            : Buffer.concat([
                Buffer.from(text.slice(0, at + 3)),
                Buffer.from(bytes),
                Buffer.from(text.slice(at + 3)),
              ]);
        return bodyRaw(req, credentials, body);
      },
    });
    out.push({
      category: 'body',
      kind: 'duplicate JSON keys',
      target: 'body',
      expect: { kind: 'any' },
      apply: (req, credentials) => {
        const text = validBodyText(req);
        const first = fields.find((f) => f.location === 'body' && f.path.length === 1);
        const key = JSON.stringify(first?.path[0] ?? 'x');
        const inner = text === '{}' ? '' : `,${text.slice(1, -1)}`;
        return bodyRaw(req, credentials, `{${key}:{"$gt":""},${key}:"${'z'.repeat(300)}"${inner}}`);
      },
    });
  }

  if (!op.isPublic) {
    const auth: Array<[string, (c: Credentials) => Record<string, string>, number[]]> = [
      ['no credential', () => ({}), [401]],
      ['garbage bearer token', () => ({ authorization: 'Bearer vk_test_\u00e9\u00e9' }), [401]],
      ['Basic credentials', () => ({ authorization: 'Basic dXNlcjpwYXNz' }), [401]],
      [
        'credential of the other API',
        (c) => ({ authorization: `Bearer ${op.api === 'payments' ? c.panel : c.payments}` }),
        [401, 403],
      ],
      ['bearer with an injection', () => ({ authorization: "Bearer ' OR '1'='1" }), [401]],
    ];
    for (const [kind, headers, statuses] of auth) {
      out.push({
        category: 'auth',
        kind,
        target: 'Authorization',
        expect: {
          kind: 'statuses',
          statuses,
          why: 'missing, malformed or unknown credentials are 401 (a payments key on the panel is 403)',
        },
        apply: (req, credentials) => {
          const raw = toRawRequest(req, credentials);
          const rest = Object.fromEntries(
            Object.entries(raw.headers ?? {}).filter(([k]) => k.toLowerCase() !== 'authorization'),
          );
          return { ...raw, headers: { ...rest, ...headers(credentials) } };
        },
      });
    }
  }
  return out;
}

/** One mutation, chosen category first so that the rare categories are not drowned by injections. */
export function mutationArbitrary(mutations: Mutation[]): fc.Arbitrary<Mutation> {
  const weights: Record<Mutation['category'], number> = { field: 4, injection: 3, body: 3, url: 2, auth: 1 };
  const groups = (Object.keys(weights) as Array<Mutation['category']>)
    .map((category) => ({ category, list: mutations.filter((m) => m.category === category) }))
    .filter((g) => g.list.length > 0);
  return fc.oneof(
    ...groups.map((g) => ({ weight: weights[g.category], arbitrary: fc.constantFrom(...g.list) })),
  );
}
