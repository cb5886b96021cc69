/**
 * The dashboard's addresses, queries and forms, checked with the same schema tool as the APIs (Joi,
 * through the typed builders of `src/shared/validation/typed.ts`). An address part that does not
 * fit names nothing (404); a query or form value that does not fit is a 400 naming its field, which
 * `problems.ts` words in the page's language.
 */
import type { Request } from 'express';
import type Joi from 'joi';
import { fromBrazilLocal } from '../shared/brazil-time.js';
import { NotFoundError, ValidationError } from '../shared/errors.js';
import { UUID_PATTERN } from '../shared/ids.js';
import { fieldErrors } from '../shared/validation/fields.js';
import { v, type Output, type Typed } from '../shared/validation/typed.js';
import type { DoneKey } from './messages.js';

const MAX_INT4 = 2_147_483_647;

/**
 * An id written plainly, as the pages write it (no sign, no leading zero, no exponent), of at most
 * `digits` digits and at most `max`.
 */
const plainId = (digits: number, max = Number.MAX_SAFE_INTEGER) =>
  v.produces<number>()(
    v
      .string()
      .pattern(new RegExp(`^[1-9][0-9]{0,${digits - 1}}$`))
      .custom((text: string, helpers) => (Number(text) <= max ? Number(text) : helpers.error('any.invalid'))),
  );

/** Integrations are `integer` (int4) rows. */
export const integrationId = () => plainId(10, MAX_INT4);
/** Deliveries, subscriptions and keys are `bigint` rows (within what a JavaScript number holds exactly). */
export const bigId = () => plainId(16);
export const orderCode = () => v.string().pattern(UUID_PATTERN, 'uuid');
export const mode = () => v.enum(['live', 'test'] as const);
/** `true` or `false` as a form or query writes it. */
export const flagText = () => v.enum(['true', 'false'] as const);

const DATETIME_LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;

/**
 * A `datetime-local` value read as Brasília time (the zone's offset of that moment, from
 * `shared/brazil-time`), as its UTC ISO string; `brasiliaTime()` has checked it names a moment.
 */
export const brasiliaInstant = (text: string): string => fromBrazilLocal(text).toISOString();

/** A `datetime-local` value that names a moment, kept as written (a form shows it back so). */
export const brasiliaTime = () =>
  v
    .string()
    .pattern(DATETIME_LOCAL)
    .custom((text: string, helpers) =>
      Number.isNaN(fromBrazilLocal(text).getTime()) ? helpers.error('any.invalid') : text,
    );

/**
 * A query of a page: its keys one value each (a parameter given twice is a problem), each written
 * `.empty('')` (a filter left at "any" is absent); other parameters (`lang`, another part's) pass.
 */
export const pageQuery = <M extends Record<string, Typed<unknown>>>(keys: M) => v.object(keys).unknown(true);

const DONE_KEYS: readonly DoneKey[] = [
  'enabled',
  'url_saved',
  'resent',
  'recovered',
  'signed_out',
  'refunded',
  'canceled',
  'cancel_scheduled',
  'revoked',
  'created',
  'saved',
  'deleted',
  'gateway_connected',
  'link_created',
  'link_canceled',
  'catalog_created',
];

/** A text value a page does not know: dropped, as if absent (a list of values is still refused). */
const ignored = () => v.produces<never>()(v.string().strip());

/**
 * What a page says after an action redirected to it (`done`), and how many (`n`). A value of neither
 * that the page does not know is left unsaid, not refused: it is the page's own link.
 */
export const doneQuery = pageQuery({
  done: v.oneOf(v.enum(DONE_KEYS), ignored()).empty(''),
  n: v
    .oneOf(
      v.produces<number>()(
        v
          .string()
          .pattern(/^[0-9]{1,9}$/)
          .custom((text: string) => Number(text)),
      ),
      ignored(),
    )
    .empty(''),
});

/** The value `schema` makes of `value`, or undefined when it does not fit. */
export function fitting<S extends Typed<unknown>>(schema: S, value: unknown): Output<S> | undefined {
  const { error, value: checked } = schema.validate(value, { convert: true });
  if (error) return undefined;
  const made: Output<S> = checked;
  return made;
}

/** A part of the address: one that does not fit names nothing, whatever is wrong with it. */
export function pathPart<S extends Typed<unknown>>(schema: S, value: unknown): Output<S> {
  const part = fitting(schema, value);
  if (part === undefined) throw new NotFoundError('Not found');
  return part;
}

/**
 * A query or a form by its schema. The first problem is reported, in the order of the schema's
 * keys (the pages name one field at a time); the API's own schemas, which the integration forms
 * use, report every problem at once.
 */
function checked<S extends Typed<object, Joi.ObjectSchema>>(
  schema: S,
  input: unknown,
  what: string,
): Output<S> {
  const { error, value } = schema.validate(input ?? {}, { abortEarly: true, convert: true });
  if (error) throw new ValidationError(`The ${what} does not fit`, fieldErrors(error));
  const fitting: Output<S> = value;
  return fitting;
}

export const queryOf = <S extends Typed<object, Joi.ObjectSchema>>(req: Request, schema: S): Output<S> =>
  checked(schema, req.query, 'query');

export const formOf = <S extends Typed<object, Joi.ObjectSchema>>(req: Request, schema: S): Output<S> =>
  checked(schema, req.body, 'form');

/** A field as sent: once, several times (checkboxes) or not at all, as a list. */
export const sentList = () => v.defaulted(v.array(v.string().allow('')).single(), []);

/** A field the form sends once, as its last value, trimmed ('' when absent). */
export const sentText = () =>
  v.defaulted(
    v.produces<string>()(
      v
        .array(v.string().allow(''))
        .single()
        .custom((sent: string[]) => (sent.at(-1) ?? '').trim()),
    ),
    '',
  );

/**
 * A form's values checked by the API's own schema for the same request, so the dashboard accepts
 * exactly what the API accepts and reports the same fields with the same messages (all at once).
 */
export function byApiSchema<S extends Typed<object, Joi.ObjectSchema>>(
  schema: S,
  input: Record<string, unknown>,
): Output<S> {
  const { value, error } = schema.validate(input, { abortEarly: false, convert: true });
  if (error) throw new ValidationError('The form does not fit', fieldErrors(error));
  const fitting: Output<S> = value;
  return fitting;
}
