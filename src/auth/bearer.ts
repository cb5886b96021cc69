import type { Request } from 'express';
import { AuthenticationError } from '../shared/errors.js';

/** The bearer credential of a request, or a 401 naming what is wrong with the header. */
export function bearerToken(req: Request): string {
  const header = req.get('authorization');
  if (!header)
    throw new AuthenticationError('Missing Authorization header; send "Authorization: Bearer <key>"');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw new AuthenticationError('Authorization header must use the Bearer scheme');
  return match[1];
}
