import fc from 'fast-check';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Operation, ParamLocation, Schema } from './documents.js';
import { isSchema } from './documents.js';
import type { FieldReference } from './references.js';

// ajv-formats is CommonJS with a default export; under NodeNext its default is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** A data-dependent field's value, chosen from the service's own data just before sending. */
export class RefValue {
  constructor(
    readonly ref: FieldReference,
    readonly pick: number,
    /** Sent when the service lists no valid value (then a 400/404 naming the field is fine). */
    readonly fallback: unknown,
  ) {}
}

export const OMIT: unique symbol = Symbol('omit');

export interface GeneratedRequest {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  /** `OMIT`: no body at all. */
  body: unknown;
}

type Location = ParamLocation | 'body';

interface Context {
  location: Location;
  refs: FieldReference[];
  depth: number;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** Longest string generated for a field the document leaves unbounded (well under the body limit). */
const UNBOUNDED_LONG = 2_000;
/**
 * The same in a URL: percent-encoded astral characters take 12 bytes each, and a request line over
 * Node's 16 kB header limit is refused by HTTP itself (431) before the service sees it. Over-long
 * URLs belong to hostile mode.
 */
const UNBOUNDED_LONG_IN_URL = 256;

const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

function typesOf(schema: Schema): string[] {
  const type = schema.type;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string');
  if (isSchema(schema.properties) || schema.additionalProperties !== undefined) return ['object'];
  if (schema.items !== undefined) return ['array'];
  if (schema.pattern !== undefined || schema.format !== undefined || schema.minLength !== undefined)
    return ['string'];
  if (schema.minimum !== undefined || schema.maximum !== undefined) return ['number'];
  return [];
}

/** Merges two schemas that must both hold (allOf, if/then): enough for generation; ajv has the last word. */
export function mergeSchemas(a: Schema, b: Schema): Schema {
  const out: Schema = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const mine = out[key];
    if (key === 'properties' && isSchema(mine) && isSchema(value)) {
      const merged: Schema = { ...mine };
      for (const [name, sub] of Object.entries(value)) {
        const existing = merged[name];
        merged[name] = isSchema(existing) && isSchema(sub) ? mergeSchemas(existing, sub) : sub;
      }
      out.properties = merged;
    } else if (key === 'required' && Array.isArray(mine) && Array.isArray(value)) {
      out.required = [...new Set([...mine, ...value])];
    } else if (key === 'enum' && Array.isArray(mine) && Array.isArray(value)) {
      out.enum = mine.filter((v) => value.some((w) => JSON.stringify(w) === JSON.stringify(v)));
    } else {
      out[key] = value;
    }
  }
  return out;
}

const without = (schema: Schema, ...keys: string[]): Schema =>
  Object.fromEntries(Object.entries(schema).filter(([k]) => !keys.includes(k)));

/** Visible ASCII with inner spaces only: what an HTTP header value carries unchanged. */
function headerString(min: number, max: number): fc.Arbitrary<string> {
  const visible = fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c));
  const inner = fc.oneof({ weight: 8, arbitrary: visible }, { weight: 1, arbitrary: fc.constant(' ') });
  const lo = Math.max(min, 1);
  const hi = Math.max(lo, Math.min(max, 80));
  return fc
    .string({ unit: inner, minLength: lo, maxLength: hi })
    .map((s) => s.trim())
    .filter((s) => s.length >= lo);
}

const NUL = /\u0000/g;
const ASTRAL = ['😀', '𝒜', '🇧🇷', '𠜎'];

/**
 * Strings the document allows, biased toward what servers get wrong: empty and blank strings,
 * surrounding whitespace, non-ASCII and astral characters (JSON Schema counts code points, JavaScript
 * counts UTF-16 units), and lengths at the documented maximum. U+0000 is left to hostile mode.
 */
function plainString(min: number, max: number | undefined): fc.Arbitrary<string> {
  const shortMax = Math.max(min, Math.min(max ?? 24, 24));
  const arbs: Array<fc.WeightedArbitrary<string>> = [
    { weight: 5, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: min, maxLength: shortMax }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: min, maxLength: shortMax }) },
    {
      weight: 2,
      arbitrary: fc
        .string({ unit: 'binary', minLength: min, maxLength: shortMax })
        .map((s) => s.replace(NUL, ' ')),
    },
  ];
  if (min <= 4 && (max === undefined || max >= 8)) {
    arbs.push({
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom('', ' ', '  ', '\t', '\n', ' \u00a0'),
          fc.string({ unit: 'grapheme-ascii', minLength: min, maxLength: 2 }),
        )
        .map(([space, core]) => `${space}${core}${space}`),
    });
  }
  const longMin = max !== undefined ? Math.max(min, max - 2) : Math.max(min, 200);
  const longMax = max ?? UNBOUNDED_LONG;
  if (longMax >= longMin) {
    arbs.push({
      weight: 2,
      arbitrary: fc
        .tuple(fc.integer({ min: longMin, max: longMax }), fc.constantFrom('a', 'é', ...ASTRAL))
        // The length is in code points, as the document counts.
        .map(([length, char]) => char.repeat(length)),
    });
  }
  return fc.oneof(...arbs);
}

/** RFC 3339 date-times; instants in the window the payment-link rules give in prose (see README of the suite). */
function dateTime(): fc.Arbitrary<string> {
  const minute = 60_000;
  return fc
    .record({
      ahead: fc.integer({ min: 5 * minute, max: 89 * 24 * 60 * minute }),
      offsetMinutes: fc.constantFrom(0, 0, 60, -180, 330, 845, -720, 840),
      zulu: fc.boolean(),
      fraction: fc.integer({ min: 0, max: 12 }),
      lowerCase: fc.boolean(),
    })
    .map(({ ahead, offsetMinutes, zulu, fraction, lowerCase }) => {
      const useZulu = zulu && offsetMinutes === 0;
      const instant = new Date(Date.now() + ahead);
      const local = new Date(instant.getTime() + offsetMinutes * minute);
      const base = local.toISOString().slice(0, 19);
      const digits =
        fraction > 0
          ? `.${String(local.getUTCMilliseconds()).padStart(3, '0').padEnd(fraction, '0').slice(0, fraction)}`
          : '';
      const sign = offsetMinutes < 0 ? '-' : '+';
      const abs = Math.abs(offsetMinutes);
      const offset = useZulu
        ? 'Z'
        : `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
      const text = `${base}${digits}${offset}`;
      return lowerCase ? text.replace('T', 't').replace('Z', 'z') : text;
    });
}

/** `x-recent-days`: a date-time at most that many days ago and not in the future (e.g. a recovery's `since`). */
function recentDateTime(days: number): fc.Arbitrary<string> {
  const minute = 60_000;
  return fc
    .integer({ min: 1, max: days * 24 * 60 - 5 })
    .map((ago) => new Date(Date.now() - ago * minute).toISOString());
}

function formatString(format: string): fc.Arbitrary<string> | undefined {
  switch (format) {
    case 'email':
      return fc.oneof(
        fc.emailAddress(),
        fc.emailAddress().map((e) => e.replace(/@(.*)$/, (_m, domain: string) => `@${domain.toUpperCase()}`)),
        fc.constantFrom('buyer@example.com', 'first.last+tag@sub.example.com.br'),
      );
    case 'date-time':
      return dateTime();
    case 'date':
      return fc
        .date({ min: new Date('1970-01-01'), max: new Date('2999-12-31'), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10));
    case 'uri':
    case 'url':
      return fc.webUrl();
    case 'uuid':
      return fc.uuid();
    default:
      return undefined;
  }
}

function stringArbitrary(schema: Schema, ctx: Context): fc.Arbitrary<unknown> {
  // An empty path segment names another route; a path parameter is at least one character.
  const min = Math.max(num(schema.minLength) ?? 0, ctx.location === 'path' ? 1 : 0);
  const max = num(schema.maxLength);
  if (ctx.location === 'header') return headerString(min, max ?? 80);
  // A format says more than a pattern written for it (a date-time's pattern alone makes no dates).
  if (typeof schema.format === 'string') {
    const recentDays = num(schema['x-recent-days']);
    if (schema.format === 'date-time' && recentDays !== undefined) return recentDateTime(recentDays);
    const formatted = formatString(schema.format);
    if (formatted) return formatted;
  }
  if (typeof schema.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(schema.pattern));
    } catch {
      // A pattern fast-check cannot parse: plain strings, and ajv drops those that do not match.
    }
  }
  const inUrl = ctx.location === 'path' || ctx.location === 'query';
  const plain = plainString(min, max ?? (inUrl ? UNBOUNDED_LONG_IN_URL : undefined));
  // "." and ".." are dot segments: every URL parser removes them, so no path parameter can be one.
  return ctx.location === 'path' ? plain.filter((s) => s !== '.' && s !== '..') : plain;
}

function numberArbitrary(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const exclusiveMin = num(schema.exclusiveMinimum);
  const exclusiveMax = num(schema.exclusiveMaximum);
  let min =
    num(schema.minimum) ??
    (exclusiveMin !== undefined ? exclusiveMin + (integer ? 1 : Number.EPSILON) : undefined);
  let max =
    num(schema.maximum) ??
    (exclusiveMax !== undefined ? exclusiveMax - (integer ? 1 : Number.EPSILON) : undefined);
  if (integer) {
    min = min === undefined ? -MAX_SAFE : Math.ceil(Math.max(min, -MAX_SAFE));
    max = max === undefined ? MAX_SAFE : Math.floor(Math.min(max, MAX_SAFE));
    const arbs: Array<fc.Arbitrary<number>> = [fc.integer({ min, max }), fc.constantFrom(min, max)];
    if (min <= 0 && max >= 0) arbs.push(fc.constant(0));
    // JSON Schema integers are numbers without a fraction, however large.
    if (schema.maximum === undefined && schema.exclusiveMaximum === undefined) arbs.push(fc.constant(1e20));
    return fc.oneof(...arbs);
  }
  const lo = min ?? -1e12;
  const hi = max ?? Number.MAX_VALUE;
  const arbs: Array<fc.Arbitrary<number>> = [
    fc.integer({ min: Math.ceil(Math.max(lo, -1e9)), max: Math.floor(Math.min(hi, 1e9)) }),
    fc
      .integer({ min: Math.ceil(Math.max(lo, -1e9) * 100), max: Math.floor(Math.min(hi, 1e9) * 100) })
      .map((n) => n / 100),
    fc.double({ min: lo, max: hi, noNaN: true, noDefaultInfinity: true }),
  ];
  return fc.oneof(...arbs).filter((n) => n >= lo && n <= hi);
}

function anyJson(depth: number): fc.Arbitrary<unknown> {
  const leaf = fc.oneof(
    fc.string({ maxLength: 12 }).map((s) => s.replace(NUL, ' ')),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
  );
  if (depth > 2) return leaf;
  return fc.oneof(
    { weight: 4, arbitrary: leaf },
    { weight: 1, arbitrary: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), leaf, { maxKeys: 3 }) },
  );
}

function objectArbitrary(schema: Schema, ctx: Context, path: string): fc.Arbitrary<unknown> {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const names = Object.keys(properties);
  const declared: Array<fc.Arbitrary<[string, unknown]>> = names.map((name) => {
    const sub = properties[name];
    const value = arbitraryAt(isSchema(sub) ? sub : {}, ctx, path ? `${path}.${name}` : name);
    const entry = value.map((v): [string, unknown] => [name, v]);
    // Optional properties are left out two times in three, so most requests vary few fields
    // and a server that stops at its first error still says which field it refused.
    return required.has(name)
      ? entry
      : fc.oneof(
          { weight: 2, arbitrary: fc.constant<[string, unknown]>([name, OMIT]) },
          { weight: 1, arbitrary: entry },
        );
  });
  const additional = schema.additionalProperties;
  const maxProps = num(schema.maxProperties);
  const minProps = num(schema.minProperties) ?? 0;
  const none: Array<[string, unknown]> = [];
  let extra: fc.Arbitrary<Array<[string, unknown]>> = fc.constant(none);
  if (additional !== false) {
    const keySchema = isSchema(schema.propertyNames) ? schema.propertyNames : {};
    const keyArb = plainString(num(keySchema.minLength) ?? 0, num(keySchema.maxLength)).filter(
      (k) => !names.includes(k),
    );
    const valueArb = isSchema(additional)
      ? arbitraryAt(additional, { ...ctx, refs: [] }, `${path}.*`)
      : anyJson(ctx.depth);
    const room = maxProps !== undefined ? Math.max(0, maxProps - names.length) : 4;
    const typical = fc.uniqueArray(fc.tuple(keyArb, valueArb), {
      selector: ([k]) => k,
      maxLength: Math.min(room, 4),
    });
    const full = fc.uniqueArray(fc.tuple(keyArb, valueArb), {
      selector: ([k]) => k,
      minLength: Math.min(room, Math.max(minProps, room - 1)),
      maxLength: room,
    });
    // A free-form map is the whole content of objects like `metadata`: fill it, sometimes to the brim.
    extra =
      names.length === 0
        ? fc.oneof({ weight: 3, arbitrary: typical }, { weight: 1, arbitrary: full })
        : fc.oneof({ weight: 3, arbitrary: fc.constant(none) }, { weight: 1, arbitrary: typical });
  }
  return fc.tuple(fc.tuple(...declared), extra).map(([entries, more]) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of [...entries, ...more]) if (v !== OMIT) out[k] = v;
    return out;
  });
}

function arrayArbitrary(schema: Schema, ctx: Context, path: string): fc.Arbitrary<unknown[]> {
  const items = isSchema(schema.items) ? schema.items : {};
  const itemArb = arbitraryAt(items, ctx, `${path}.*`);
  const minLength = num(schema.minItems) ?? 0;
  const maxLength = Math.max(minLength, Math.min(num(schema.maxItems) ?? 6, 12));
  return schema.uniqueItems === true
    ? fc.uniqueArray(itemArb, { selector: (v) => JSON.stringify(v), minLength, maxLength })
    : fc.array(itemArb, { minLength, maxLength });
}

function referenceFor(ctx: Context, path: string): FieldReference | undefined {
  return ctx.refs.find((r) => r.location === ctx.location && r.field === path);
}

/** Values the schema at `path` allows; a data-dependent field becomes a `RefValue`. */
function arbitraryAt(schema: Schema, ctx: Context, path: string): fc.Arbitrary<unknown> {
  const ref = referenceFor(ctx, path);
  const inner = arbitraryFor(schema, { ...ctx, depth: ctx.depth + 1 }, path);
  if (!ref) return inner;
  return fc.tuple(fc.nat(), inner).map(([pick, fallback]) => new RefValue(ref, pick, fallback));
}

export function arbitraryFor(schema: Schema, ctx: Context, path: string): fc.Arbitrary<unknown> {
  if (ctx.depth > 12) return fc.constant(null);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    return fc.constantFrom(...(schema.enum as unknown[]));
  for (const keyword of ['anyOf', 'oneOf']) {
    const branches = schema[keyword];
    if (Array.isArray(branches) && branches.length > 0) {
      const base = without(schema, keyword);
      return fc.oneof(
        ...branches.filter(isSchema).map((b) => arbitraryFor(mergeSchemas(base, b), ctx, path)),
      );
    }
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    const merged = schema.allOf
      .filter(isSchema)
      .reduce((acc, b) => mergeSchemas(acc, b), without(schema, 'allOf'));
    return arbitraryFor(merged, ctx, path);
  }
  if (isSchema(schema.if)) {
    const base = without(schema, 'if', 'then', 'else');
    const thenSchema = mergeSchemas(mergeSchemas(base, schema.if), isSchema(schema.then) ? schema.then : {});
    const elseSchema = mergeSchemas(base, isSchema(schema.else) ? schema.else : {});
    return fc.oneof(arbitraryFor(thenSchema, ctx, path), arbitraryFor(elseSchema, ctx, path));
  }
  const types = typesOf(schema);
  if (types.length === 0) return anyJson(ctx.depth);
  return fc.oneof(
    ...types.map((type): fc.Arbitrary<unknown> => {
      switch (type) {
        case 'string':
          return stringArbitrary(schema, ctx);
        case 'integer':
          return numberArbitrary(schema, true);
        case 'number':
          return numberArbitrary(schema, false);
        case 'boolean':
          return fc.boolean();
        case 'null':
          return fc.constant(null);
        case 'array':
          return arrayArbitrary(schema, ctx, path);
        case 'object':
          return objectArbitrary(schema, ctx, path);
        default:
          return anyJson(ctx.depth);
      }
    }),
  );
}

/** Requests the document allows for `op`, data-dependent fields left as `RefValue`s. */
export function requestArbitrary(op: Operation, refs: FieldReference[]): fc.Arbitrary<GeneratedRequest> {
  const group = (location: ParamLocation): fc.Arbitrary<Record<string, unknown>> => {
    const params = op.parameters.filter((p) => p.in === location);
    const entries = params.map((p) => {
      const value = arbitraryAt(p.schema, { location, refs, depth: 0 }, p.name).map(
        (v): [string, unknown] => [p.name, v],
      );
      return p.required ? value : fc.oneof(fc.constant<[string, unknown]>([p.name, OMIT]), value);
    });
    return fc.tuple(...entries).map((list) => Object.fromEntries(list.filter(([, v]) => v !== OMIT)));
  };
  let body: fc.Arbitrary<unknown> = fc.constant(OMIT);
  if (op.body) {
    const schemaArb = arbitraryFor(op.body.schema, { location: 'body', refs, depth: 0 }, '');
    body = op.body.required
      ? schemaArb
      : fc.oneof({ weight: 1, arbitrary: fc.constant(OMIT) }, { weight: 6, arbitrary: schemaArb });
  }
  return fc.record({ path: group('path'), query: group('query'), headers: group('header'), body });
}

/** Request-side validation against the document: ajv decides what "the document allows" means. */
export class RequestValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  private readonly cache = new WeakMap<Schema, ValidateFunction>();

  constructor() {
    addFormats(this.ajv);
  }

  private compiled(schema: Schema): ValidateFunction {
    let fn = this.cache.get(schema);
    if (!fn) {
      fn = this.ajv.compile(schema);
      this.cache.set(schema, fn);
    }
    return fn;
  }

  /** The first reason the document refuses `value`, or undefined when it allows it. */
  refusal(schema: Schema, value: unknown): string | undefined {
    const fn = this.compiled(schema);
    if (fn(value)) return undefined;
    return this.ajv.errorsText(fn.errors);
  }

  /** Why the document refuses a fully resolved request, or undefined. */
  requestRefusal(op: Operation, req: GeneratedRequest): string | undefined {
    for (const p of op.parameters) {
      const bag = p.in === 'path' ? req.path : p.in === 'query' ? req.query : req.headers;
      if (!(p.name in bag)) {
        if (p.required) return `${p.in} parameter ${p.name} is missing`;
        continue;
      }
      const why = this.refusal(p.schema, bag[p.name]);
      if (why) return `${p.in} parameter ${p.name}: ${why}`;
    }
    if (req.body === OMIT) return op.body?.required ? 'body is required' : undefined;
    if (!op.body) return undefined;
    const why = this.refusal(op.body.schema, req.body);
    return why ? `body: ${why}` : undefined;
  }
}
