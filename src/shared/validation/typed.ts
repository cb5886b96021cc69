/**
 * Joi schemas that also carry, for TypeScript only, the type of the value they produce. A request
 * shape is declared once with these builders: celebrate validates with it, handlers get its type
 * (`Output<S>`), and the OpenAPI documents are generated from it (`toJsonSchema`).
 *
 * Every Joi method that returns `this` keeps the carried type (`v.string().trim().max(40)`), so the
 * rules read as plain Joi. What changes the produced type has a builder of its own: `v.required`
 * and `v.defaulted` make an object key always present, `v.nullable` adds `null`.
 */
import Joi from 'joi';
import { toJsonSchema } from './json-schema.js';

declare const OUTPUT: unique symbol;
declare const PRESENT: unique symbol;

/** A Joi schema producing values of type `T`. */
export type Typed<T, S extends Joi.Schema = Joi.Schema> = S & { readonly [OUTPUT]: T };

/** A key that is always there after validation (required, or with a default). */
export type Present<T, S extends Joi.Schema = Joi.Schema> = Typed<T, S> & { readonly [PRESENT]: true };

/** The type a typed schema produces. */
export type Output<S> = S extends { readonly [OUTPUT]: infer T } ? T : never;

type AnyTyped = Typed<unknown>;
type Simplify<T> = { [K in keyof T]: T[K] } & {};
type PresentKeys<M> = {
  [K in keyof M]: M[K] extends { readonly [PRESENT]: true } ? K : never;
}[keyof M];

/** An object schema's output: present keys as they are, every other key optional. */
export type ObjectOutput<M> = Simplify<
  { [K in PresentKeys<M>]: Output<M[K]> } & { [K in Exclude<keyof M, PresentKeys<M>>]?: Output<M[K]> }
>;

const bare = (error: Joi.ValidationError): string =>
  error.details[0]?.message.replace(/^"[^"]*" /, '') ?? error.message;

/**
 * Strings count characters (code points), as JSON Schema's minLength/maxLength do, not UTF-16 units:
 * an emoji is one character, and the documents' limits are the server's.
 */
const characters = (value: string): number => [...value].length;
const limitArg = {
  name: 'limit',
  assert: (value: unknown) => Number.isSafeInteger(value) && Number(value) >= 0,
  message: 'must be a non-negative integer',
};
const J: Joi.Root = Joi.extend((joi: Joi.Root) => ({
  type: 'string',
  base: joi.string(),
  messages: {
    'string.maxChars': '{{#label}} must be at most {{#limit}} characters long',
    'string.minChars': '{{#label}} must be at least {{#limit}} characters long',
  },
  rules: {
    maxChars: {
      method(limit: number) {
        return (this as Joi.StringSchema).$_addRule({ name: 'maxChars', args: { limit } });
      },
      args: [limitArg],
      validate: (value: string, helpers: Joi.CustomHelpers, args: Record<string, unknown>) =>
        characters(value) <= Number(args.limit)
          ? value
          : helpers.error('string.maxChars', { limit: args.limit }),
    },
    minChars: {
      method(limit: number) {
        return (this as Joi.StringSchema).$_addRule({ name: 'minChars', args: { limit } });
      },
      args: [limitArg],
      validate: (value: string, helpers: Joi.CustomHelpers, args: Record<string, unknown>) =>
        characters(value) >= Number(args.limit)
          ? value
          : helpers.error('string.minChars', { limit: args.limit }),
    },
  },
  overrides: {
    max(this: Joi.StringSchema, limit: number) {
      return this.$_addRule({ name: 'maxChars', args: { limit } });
    },
    min(this: Joi.StringSchema, limit: number) {
      return this.$_addRule({ name: 'minChars', args: { limit } });
    },
  },
}));

// ISO 8601 date-time with an explicit offset: a time without one would depend on the server's zone.
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})$/;

function isoDateTime(value: string, helpers: Joi.CustomHelpers): string | Joi.ErrorReport {
  const time = Date.parse(value);
  if (Number.isNaN(time)) return helpers.message({ custom: 'is not a valid date-time' });
  return new Date(time).toISOString();
}

// The one place a plain Joi schema is given its produced type: every builder goes through here.
const typed = <T, S extends Joi.Schema>(schema: S): Typed<T, S> => schema as Typed<T, S>;

export const v = {
  string: () => typed<string, Joi.StringSchema>(J.string()),
  /** An ISO 8601 date-time with an offset, produced as its UTC ISO string. */
  dateTime: () =>
    typed<string, Joi.StringSchema>(
      J.string()
        .trim()
        .max(64)
        .pattern(ISO_WITH_OFFSET)
        .custom(isoDateTime)
        .messages({
          'string.pattern.base': 'must be an ISO 8601 date-time with an offset, e.g. 2030-01-31T23:59:00Z',
        })
        .meta({ format: 'date-time' }),
    ),
  integer: () => typed<number, Joi.NumberSchema>(Joi.number().integer()),
  /** In a JSON body a number is a number: "12" is refused (query and path values are converted). */
  strictInteger: () => typed<number, Joi.NumberSchema>(Joi.number().integer().strict()),
  number: () => typed<number, Joi.NumberSchema>(Joi.number()),
  /** Query strings carry booleans as text, so conversion is on; bodies use `v.strictBoolean`. */
  boolean: () => typed<boolean, Joi.BooleanSchema>(Joi.boolean()),
  strictBoolean: () => typed<boolean, Joi.BooleanSchema>(Joi.boolean().strict()),
  /** One of fixed strings. */
  enum: <const V extends readonly string[]>(values: V) =>
    typed<V[number], Joi.StringSchema>(Joi.string().valid(...values)),
  /** A JSON object with exactly these keys (unknown keys are refused). */
  object: <M extends Record<string, AnyTyped>>(keys: M) =>
    typed<ObjectOutput<M>, Joi.ObjectSchema>(Joi.object(keys).unknown(false)),
  /** Request headers: the named ones are checked, every other header is let through. */
  headers: <M extends Record<string, AnyTyped>>(keys: M) =>
    typed<ObjectOutput<M>, Joi.ObjectSchema>(Joi.object(keys).unknown(true)),
  /**
   * An object used as a map of caller data (metadata): keys and values each follow a schema, at most
   * `maxPairs` of them. Errors are reported under the map's own name: a key is the caller's data,
   * never a field name of ours.
   */
  record: <V>(key: Typed<string, Joi.StringSchema>, value: Typed<V>, maxPairs: number) =>
    typed<Record<string, V>, Joi.ObjectSchema>(
      Joi.object()
        .unknown(true)
        .custom((map: Record<string, unknown>, helpers) => {
          const entries = Object.entries(map);
          if (entries.length > maxPairs)
            return helpers.message({ custom: `must have at most ${maxPairs} key/value pairs` });
          const out: Record<string, unknown> = {};
          for (const [k, item] of entries) {
            const shown = JSON.stringify(k.slice(0, 50));
            const keyCheck = key.validate(k);
            if (keyCheck.error) return helpers.message({ custom: `key ${shown} ${bare(keyCheck.error)}` });
            const valueCheck = value.validate(item);
            if (valueCheck.error)
              return helpers.message({ custom: `value of ${shown} ${bare(valueCheck.error)}` });
            out[k] = valueCheck.value;
          }
          return out;
        })
        .meta({
          propertyNames: toJsonSchema(key),
          additionalProperties: toJsonSchema(value),
          maxProperties: maxPairs,
        }),
    ),
  /** An object used as a map whose keys are field names of ours: errors name the key (`config.url`). */
  map: <V>(key: Typed<string, Joi.StringSchema>, value: Typed<V>) =>
    typed<Record<string, V>, Joi.ObjectSchema>(Joi.object().pattern(key, value)),
  array: <T>(item: Typed<T>) => typed<T[], Joi.ArraySchema>(Joi.array().items(item)),
  /** A value matching the first schema that accepts it. */
  oneOf: <A, B>(a: Typed<A>, b: Typed<B>) =>
    typed<A | B, Joi.AlternativesSchema>(Joi.alternatives().try(a, b)),

  /** The schema of a key follows a sibling's value: `then` when it is one of `values`, else `otherwise`. */
  when: <A, B>(sibling: string, values: readonly string[], then: Typed<A>, otherwise: Typed<B>) =>
    typed<A | B, Joi.AlternativesSchema>(Joi.when(sibling, { is: Joi.valid(...values), then, otherwise })),
  required: <T, S extends Joi.Schema>(schema: Typed<T, S>): Present<T, S> =>
    schema.required() as Present<T, S>,
  defaulted: <T, S extends Joi.Schema>(schema: Typed<T, S>, value: T): Present<T, S> =>
    schema.default(value as Joi.BasicType) as Present<T, S>,
  nullable: <T, S extends Joi.Schema>(schema: Typed<T, S>): Typed<T | null, S> =>
    schema.allow(null) as Typed<T | null, S>,
  /** Narrows what a normalising `.custom()` rule produces (e.g. a date-time string to a Date). */
  produces:
    <T>() =>
    <S extends Joi.Schema>(schema: Typed<unknown, S>): Typed<T, S> =>
      schema as Typed<T, S>,
};
