/**
 * Joi → JSON Schema (2020-12, as OpenAPI 3.1 uses it), from `schema.describe()`. The request half of
 * the OpenAPI documents comes from here, so the documents say what the validators check.
 *
 * The one direction that matters is kept for every rule: whatever the JSON Schema allows, the Joi
 * schema accepts (a client that follows the document never gets a 400 the document could have
 * stated). Where Joi is more lenient than JSON Schema can say (it trims, converts "5" to 5), the
 * document states the strict form. A rule this file does not know fails loudly at start-up instead
 * of silently vanishing from the document; rules that JSON Schema cannot express (a CPF check digit,
 * a normaliser) are listed in NOT_EXPRESSIBLE and belong in the field's description.
 */
import type Joi from 'joi';
import type { JsonSchema } from '../openapi/types.js';

interface Rule {
  name: string;
  args?: { limit?: number; regex?: string; options?: { invert?: boolean; name?: string }; enabled?: boolean };
}

interface Description {
  type: string;
  flags?: {
    presence?: 'required' | 'optional' | 'forbidden';
    default?: unknown;
    description?: string;
    only?: boolean;
    unknown?: boolean;
    format?: string | string[];
  };
  rules?: Rule[];
  allow?: unknown[];
  invalid?: unknown[];
  examples?: unknown[];
  metas?: Array<Record<string, unknown>>;
  keys?: Record<string, Description>;
  patterns?: Array<{ schema?: Description; regex?: string; rule: Description }>;
  dependencies?: Array<{ rel: string; peers: string[] }>;
  whens?: Array<{ ref?: { path?: string[] }; is?: Description; then?: Description; otherwise?: Description }>;
  items?: Description[];
  matches?: Array<{ schema: Description }>;
  preferences?: unknown;
}

// Rules whose meaning the document carries in prose (descriptions), never in keywords.
const NOT_EXPRESSIBLE = new Set(['custom', 'precision', 'unique-keys']);

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** A JavaScript regex as Joi describes it ("/^a$/u") → the ECMA-262 pattern JSON Schema wants. */
function patternOf(described: string): string {
  const match = /^\/([\s\S]*)\/([a-z]*)$/.exec(described);
  if (!match) throw new Error(`json-schema: cannot read regex ${described}`);
  const [, source = '', flags = ''] = match;
  if (/[im]/.test(flags))
    throw new Error(`json-schema: regex flags "${flags}" have no JSON Schema form (${described})`);
  return source;
}

/** Adds a constraint, nesting under allOf when the keyword is already taken. */
function add(schema: JsonSchema, keyword: string, value: unknown): void {
  if (!(keyword in schema)) {
    schema[keyword] = value;
    return;
  }
  const allOf = (schema.allOf as JsonSchema[] | undefined) ?? [];
  allOf.push({ [keyword]: value });
  schema.allOf = allOf;
}

function stringSchema(d: Description): JsonSchema {
  const schema: JsonSchema = { type: 'string' };
  const allowsEmpty = (d.allow ?? []).includes('');
  let trimmed = false;
  for (const rule of d.rules ?? []) {
    const limit = rule.args?.limit;
    switch (rule.name) {
      case 'minChars':
        schema.minLength = limit;
        break;
      case 'maxChars':
        schema.maxLength = limit;
        break;
      case 'min':
      case 'max':
      case 'length':
        // Joi's own length rules count UTF-16 units, which JSON Schema cannot state.
        throw new Error(
          `json-schema: string rule "${rule.name}" counts UTF-16 units; build strings with v.string()`,
        );
      case 'pattern': {
        const pattern = patternOf(rule.args?.regex ?? '');
        // `type` inside: for a nullable string, null must not match the refused pattern's negation.
        if (rule.args?.options?.invert) add(schema, 'not', { type: 'string', pattern });
        else add(schema, 'pattern', pattern);
        break;
      }
      case 'trim':
        trimmed = rule.args?.enabled !== false;
        break;
      case 'email':
        schema.format = 'email';
        break;
      case 'guid':
        schema.format = 'uuid';
        break;
      case 'uri':
        schema.format = 'uri';
        break;
      case 'isoDate':
        schema.format = 'date-time';
        break;
      default:
        if (!NOT_EXPRESSIBLE.has(rule.name))
          throw new Error(`json-schema: string rule "${rule.name}" is not mapped`);
    }
  }
  // Joi refuses "" unless it is allowed explicitly.
  if (!allowsEmpty && !(typeof schema.minLength === 'number' && schema.minLength > 0)) schema.minLength = 1;
  // The server trims before checking lengths; the document asks for the trimmed form, which the
  // server takes as it is (so no document-valid value can shrink below a minimum once trimmed).
  if (trimmed) add(schema, 'pattern', allowsEmpty ? '^(\\S([\\s\\S]*\\S)?)?$' : '^\\S([\\s\\S]*\\S)?$');
  return schema;
}

function numberSchema(d: Description): JsonSchema {
  const schema: JsonSchema = { type: 'number' };
  for (const rule of d.rules ?? []) {
    const limit = rule.args?.limit;
    switch (rule.name) {
      case 'integer':
        schema.type = 'integer';
        break;
      case 'min':
        schema.minimum = limit;
        break;
      case 'max':
        schema.maximum = limit;
        break;
      case 'greater':
        schema.exclusiveMinimum = limit;
        break;
      case 'less':
        schema.exclusiveMaximum = limit;
        break;
      default:
        if (!NOT_EXPRESSIBLE.has(rule.name))
          throw new Error(`json-schema: number rule "${rule.name}" is not mapped`);
    }
  }
  // Joi refuses numbers outside the safe integer range (number.unsafe).
  if (!('minimum' in schema) && !('exclusiveMinimum' in schema)) schema.minimum = -MAX_SAFE;
  if (!('maximum' in schema) && !('exclusiveMaximum' in schema)) schema.maximum = MAX_SAFE;
  return schema;
}

function objectSchema(d: Description): JsonSchema {
  const schema: JsonSchema = { type: 'object' };
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, child] of Object.entries(d.keys ?? {})) {
    if (child.flags?.presence === 'forbidden') continue;
    const when = child.whens?.[0];
    if (when) {
      // `key: Joi.when('sibling', {is: valid(...), then, otherwise})`: the key's schema depends on a
      // sibling's value, which JSON Schema says with if/then/else on the object.
      properties[key] = annotations(child);
      add(schema, 'allOf', conditional(key, when, child.whens?.length ?? 0));
    } else {
      properties[key] = convert(child);
    }
    if (child.flags?.presence === 'required') required.push(key);
  }
  if (d.keys !== undefined) schema.properties = properties;
  if (required.length > 0) schema.required = required;
  const [pattern, ...more] = d.patterns ?? [];
  if (more.length > 0) throw new Error('json-schema: more than one object pattern is not mapped');
  if (pattern) {
    schema.propertyNames = pattern.schema
      ? convert(pattern.schema)
      : { pattern: patternOf(pattern.regex ?? '') };
    schema.additionalProperties = convert(pattern.rule);
  } else if (!d.flags?.unknown) {
    schema.additionalProperties = false;
  }
  for (const rule of d.rules ?? []) {
    const limit = rule.args?.limit;
    if (rule.name === 'min') schema.minProperties = limit;
    else if (rule.name === 'max') schema.maxProperties = limit;
    else if (rule.name === 'length') {
      schema.minProperties = limit;
      schema.maxProperties = limit;
    } else if (!NOT_EXPRESSIBLE.has(rule.name))
      throw new Error(`json-schema: object rule "${rule.name}" is not mapped`);
  }
  for (const dependency of d.dependencies ?? []) {
    const requires = (peer: string): JsonSchema => ({ required: [peer] });
    switch (dependency.rel) {
      case 'xor': // exactly one
        add(schema, 'oneOf', dependency.peers.map(requires));
        break;
      case 'or': // at least one
        add(schema, 'anyOf', dependency.peers.map(requires));
        break;
      case 'oxor': // at most one
        add(schema, 'not', { anyOf: pairs(dependency.peers).map((pair) => ({ required: pair })) });
        break;
      case 'and': // all or none
        add(schema, 'anyOf', [
          { required: dependency.peers },
          { not: { anyOf: dependency.peers.map(requires) } },
        ]);
        break;
      default:
        throw new Error(`json-schema: object dependency "${dependency.rel}" is not mapped`);
    }
  }
  return schema;
}

/** One side of a conditional key: absent when forbidden, listed as required when required. */
function branch(key: string, d: Description): JsonSchema {
  if (d.flags?.presence === 'forbidden') return { properties: { [key]: { not: {} } } };
  return {
    properties: { [key]: convert(d) },
    ...(d.flags?.presence === 'required' ? { required: [key] } : {}),
  };
}

function conditional(
  key: string,
  when: NonNullable<Description['whens']>[number],
  count: number,
): JsonSchema[] {
  const sibling = when.ref?.path;
  const values = when.is?.allow;
  if (
    count !== 1 ||
    sibling?.length !== 1 ||
    !when.is?.flags?.only ||
    !values ||
    !when.then ||
    !when.otherwise
  ) {
    throw new Error(
      `json-schema: only Joi.when('sibling', {is: valid(...), then, otherwise}) is mapped (key ${key})`,
    );
  }
  const [name = ''] = sibling;
  // An `otherwise` that is itself a `when` (three kinds of config or more) chains another if/then/else.
  const next = when.otherwise.whens?.[0];
  return [
    {
      if: { properties: { [name]: { enum: values } }, required: [name] },
      then: branch(key, when.then),
      else: next
        ? { allOf: conditional(key, next, when.otherwise.whens?.length ?? 0) }
        : branch(key, when.otherwise),
    },
  ];
}

const pairs = (peers: string[]): string[][] => peers.flatMap((a, i) => peers.slice(i + 1).map((b) => [a, b]));

function arraySchema(d: Description): JsonSchema {
  const schema: JsonSchema = { type: 'array' };
  const [item, ...more] = d.items ?? [];
  if (more.length > 0) throw new Error('json-schema: arrays of several item schemas are not mapped');
  if (item) schema.items = convert(item);
  for (const rule of d.rules ?? []) {
    const limit = rule.args?.limit;
    if (rule.name === 'min') schema.minItems = limit;
    else if (rule.name === 'max') schema.maxItems = limit;
    else if (rule.name === 'length') {
      schema.minItems = limit;
      schema.maxItems = limit;
    } else if (rule.name === 'unique') schema.uniqueItems = true;
    else if (!NOT_EXPRESSIBLE.has(rule.name))
      throw new Error(`json-schema: array rule "${rule.name}" is not mapped`);
  }
  return schema;
}

function byType(d: Description): JsonSchema {
  switch (d.type) {
    case 'string':
      return stringSchema(d);
    case 'number':
      return numberSchema(d);
    case 'boolean':
      return { type: 'boolean' };
    case 'object':
      return objectSchema(d);
    case 'array':
      return arraySchema(d);
    case 'date':
      return { type: 'string', format: 'date-time' };
    case 'alternatives':
      return { anyOf: (d.matches ?? []).map((m) => convert(m.schema)) };
    case 'any':
      return {};
    default:
      throw new Error(`json-schema: Joi type "${d.type}" is not mapped`);
  }
}

function convert(d: Description): JsonSchema {
  const schema = byType(d);
  const allowed = (d.allow ?? []).filter((value) => value !== '' || d.type !== 'string');
  if (d.flags?.only) {
    schema.enum = allowed;
    if (allowed.includes(null) && typeof schema.type === 'string') schema.type = [schema.type, 'null'];
  } else if (allowed.includes(null)) {
    if (typeof schema.type === 'string') schema.type = [schema.type, 'null'];
    else return { anyOf: [schema, { type: 'null' }], ...annotations(d) };
  }
  if ((d.invalid ?? []).length > 0) add(schema, 'not', { enum: d.invalid });
  return { ...schema, ...annotations(d) };
}

function annotations(d: Description): JsonSchema {
  const out: JsonSchema = {};
  if (d.flags?.description) out.description = d.flags.description;
  if (d.flags?.default !== undefined && typeof d.flags.default !== 'function') out.default = d.flags.default;
  if (d.examples && d.examples.length > 0) out.examples = d.examples;
  for (const meta of d.metas ?? []) Object.assign(out, meta);
  return out;
}

/** The JSON Schema of a Joi schema, as the OpenAPI documents state it. */
export function toJsonSchema(schema: Joi.Schema): JsonSchema {
  return convert(schema.describe() as Description);
}

/** Whether a schema is marked `.required()`. */
export const isRequired = (schema: Joi.Schema): boolean =>
  (schema.describe() as Description).flags?.presence === 'required';

/** Each key of an object schema, for OpenAPI parameters (path, query, header). */
export function objectKeys(
  schema: Joi.Schema,
): Array<{ name: string; required: boolean; schema: JsonSchema }> {
  const described = schema.describe() as Description;
  if (described.type !== 'object') throw new Error('json-schema: parameters come from an object schema');
  return Object.entries(described.keys ?? {})
    .filter(([, child]) => child.flags?.presence !== 'forbidden')
    .map(([name, child]) => ({
      name,
      required: child.flags?.presence === 'required',
      schema: convert(child),
    }));
}
