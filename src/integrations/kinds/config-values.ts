import type Joi from 'joi';
import { ValidationError } from '../../shared/errors.js';
import { fieldErrors } from '../../shared/validation/fields.js';
import { v, type Output, type Typed } from '../../shared/validation/typed.js';
import type { StoredConfig } from './kind.js';

/** A string value of a stored config, or undefined when it has none (or another type). */
export const stringOf = (config: StoredConfig, key: string): string | undefined => {
  const value = config[key];
  return typeof value === 'string' ? value : undefined;
};

/** Config of a kind that takes free-form string values (possibly none): the managed types without more. */
export const freeFormConfig = v.map(v.string().max(100), v.string().allow('').max(2000)).max(50);

/**
 * The value of `config` checked against a kind's schema, or a 400 naming each field under `config`
 * (`config.url`, `config.headers`).
 */
export function checkedAgainst<S extends Typed<unknown>>(
  schema: S,
  type: string,
  config: Record<string, unknown>,
): Output<S> {
  const { value, error } = (schema as Joi.Schema).validate(config, { abortEarly: false });
  if (error)
    throw new ValidationError(`config does not fit type ${type}`, fieldErrors(error, { prefix: 'config' }));
  return value as Output<S>;
}
