import type Joi from 'joi';
import { noFields, type FieldErrors } from '../errors.js';

export interface FieldNaming {
  /** Prepended to every path (a nested value validated on its own, e.g. `config`). */
  prefix?: string;
  /** The name of an error about the value as a whole (no path). */
  root?: string;
  /** Renames a dotted path (headers are reported the way clients write them). */
  rename?: (path: string) => string;
  /** How a detail reads; by default Joi's message without its quoted label (buyer pages use their own words). */
  describe?: (detail: Joi.ValidationErrorItem) => string;
}

/**
 * The one mapping from Joi's error details to the envelope's `fields`: each field's messages, without
 * Joi's quoted label (the field name is already the key).
 */
export function fieldErrors(error: Joi.ValidationError, naming: FieldNaming = {}): FieldErrors {
  const fields = noFields();
  const add = (key: string, message: string): void => {
    // Own-property check: a field named like an Object.prototype member ("constructor") is still a field.
    if (Object.hasOwn(fields, key)) fields[key]?.push(message);
    else fields[key] = [message];
  };
  for (const detail of error.details) {
    const path = detail.path.map(String).join('.');
    const message = naming.describe ? naming.describe(detail) : detail.message.replace(/^"[^"]*" /, '');
    // "Exactly one of a, b" and its kin name each field involved, not the object holding them.
    const context = detail.context ?? {};
    const peers: unknown = context.peers ?? context.missing ?? (context.peer === undefined ? undefined : [context.peer]);
    if (Array.isArray(peers) && detail.type.startsWith('object.')) {
      for (const peer of peers) {
        const dotted = [naming.prefix, path, String(peer)]
          .filter((part) => part !== undefined && part !== '')
          .join('.');
        add(naming.rename ? naming.rename(dotted) : dotted, message);
      }
      continue;
    }
    const dotted = [naming.prefix, path].filter((part) => part !== undefined && part !== '').join('.');
    const raw = dotted || naming.root || String(detail.context?.key ?? 'body');
    add(naming.rename ? naming.rename(raw) : raw, message);
  }
  return fields;
}
