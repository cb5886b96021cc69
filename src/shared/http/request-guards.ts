import type { NextFunction, Request, Response } from 'express';
import { NotFoundError, ValidationError, noFields, type FieldErrors } from '../errors.js';

const MESSAGE = 'must not contain the NUL character (U+0000)';

/** PostgreSQL text and jsonb cannot hold U+0000; a string holding it must never reach a query. */
export const stripNul = (value: string): string => value.replace(/\u0000/g, '\uFFFD');

/** Deeper JSON than this is refused: nothing the APIs accept nests more than a few levels. */
export const MAX_JSON_DEPTH = 64;

/** Names every string (and key) holding U+0000; walks without recursion, so depth costs no stack. */
function collect(root: unknown, fields: FieldErrors, nul = true): void {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: root, path: '', depth: 0 }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const { value, path, depth } = item;
    if (typeof value === 'string') {
      if (nul && value.includes('\u0000')) (fields[path || 'body'] ??= []).push(MESSAGE);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) {
      throw new ValidationError(`Request body nests deeper than ${MAX_JSON_DEPTH} levels`, {
        [path || 'body']: [`must not nest deeper than ${MAX_JSON_DEPTH} levels`],
      });
    }
    for (const [key, child] of Object.entries(value)) {
      const name = path ? `${path}.${key}` : key;
      if (nul && key.includes('\u0000')) (fields[name] ??= []).push(MESSAGE);
      // JSON.parse makes "__proto__" an own key that validators skip and object spreads turn into a
      // prototype: never a field of ours, so refused wherever it appears.
      if (key === '__proto__') (fields[name] ??= []).push('is a reserved name');
      stack.push({ value: child, path: name, depth: depth + 1 });
    }
  }
}

const refuse = (fields: FieldErrors): void => {
  const names = Object.keys(fields);
  if (names.length > 0) throw new ValidationError(`Invalid request: ${names.join(', ')}`, fields);
};

const decodes = (part: string): boolean => {
  try {
    decodeURIComponent(part.replace(/\+/g, ' '));
    return true;
  } catch {
    return false;
  }
};

/**
 * Percent-encoding the query parser would silently keep as it is: each such parameter is a 400
 * naming it (or `query` when its name itself cannot be decoded).
 */
function undecodable(rawQuery: string, fields: FieldErrors): void {
  if (rawQuery === '') return;
  for (const part of rawQuery.split('&')) {
    const [name = '', value = ''] = part.split(/=(.*)/s);
    if (!decodes(name)) (fields.query ??= []).push('has a parameter name with bad percent-encoding');
    else if (!decodes(value))
      (fields[decodeURIComponent(name.replace(/\+/g, ' '))] ??= []).push('has bad percent-encoding');
  }
}

/**
 * Refuses U+0000 in the path (no resource can be named with it, so 404), and bad percent-encoding or
 * U+0000 in the query (400 naming the parameter), before any route sees them: no handler can turn
 * them into a 500 from PostgreSQL, or read a value other than the one the client meant.
 */
export function queryGuard(req: Request, _res: Response, next: NextFunction): void {
  const url = req.originalUrl ?? req.url;
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  if (/%00/i.test(path)) throw new NotFoundError('Not found');
  // Express parses req.query anew on every read: a request without a query has nothing to check.
  if (queryAt >= 0) {
    const fields = noFields();
    undecodable(url.slice(queryAt + 1), fields);
    collect(req.query, fields);
    refuse(fields);
  }
  next();
}

/**
 * The same for a parsed body, naming each field, and a refusal of JSON nested deeper than
 * MAX_JSON_DEPTH (a 400, before any validator recurses into it). `nul: false` leaves U+0000 to the
 * schemas, for an API whose schemas refuse it with their own field names (the payments API).
 */
export function bodyGuard(options: { nul: boolean }) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const fields = noFields();
    collect(req.body, fields, options.nul);
    refuse(fields);
    next();
  };
}
