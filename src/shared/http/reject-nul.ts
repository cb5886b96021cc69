import type { NextFunction, Request, Response } from 'express';
import { NotFoundError, ValidationError, type FieldErrors } from '../errors.js';

const MESSAGE = 'must not contain the NUL character (U+0000)';

/** PostgreSQL text and jsonb cannot hold U+0000; a string holding it must never reach a query. */
export const stripNul = (value: string): string => value.replace(/\u0000/g, '\uFFFD');

function collect(value: unknown, path: string, fields: FieldErrors): void {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) (fields[path || 'body'] ??= []).push(MESSAGE);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => collect(item, path ? `${path}.${index}` : String(index), fields));
    return;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const name = path ? `${path}.${key}` : key;
      if (key.includes('\u0000')) (fields[name] ??= []).push(MESSAGE);
      collect(item, name, fields);
    }
  }
}

const refuse = (fields: FieldErrors): void => {
  const names = Object.keys(fields);
  if (names.length > 0) throw new ValidationError(`Invalid request: ${names.join(', ')}`, fields);
};

/**
 * Refuses U+0000 in the path (no resource can be named with it, so 404) and in the query (400 naming
 * the parameter) before any route sees it, so no handler can turn it into a 500 from PostgreSQL.
 */
export function rejectNul(req: Request, _res: Response, next: NextFunction): void {
  const path = (req.originalUrl ?? req.url).split('?')[0] ?? '';
  if (/%00/i.test(path)) throw new NotFoundError('Not found');
  const fields: FieldErrors = {};
  collect(req.query, '', fields);
  refuse(fields);
  next();
}

/**
 * The same for a parsed body, naming each field. For apps whose schemas do not refuse U+0000
 * themselves (the payment-links schemas do, with their own field names).
 */
export function rejectNulInBody(req: Request, _res: Response, next: NextFunction): void {
  const fields: FieldErrors = {};
  collect(req.body, '', fields);
  refuse(fields);
  next();
}
