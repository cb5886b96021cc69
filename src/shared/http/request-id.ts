import type { NextFunction, Request, Response } from 'express';
import { randomBase62 } from '../ids.js';
import { carried } from '../carried.js';

const INCOMING_ID = /^[A-Za-z0-9_.:-]{8,128}$/;

/**
 * Gives every request an id (or keeps a well-formed incoming `Request-Id`), returns it in the
 * `Request-Id` header and carries it through AsyncLocalStorage so every log line can name it.
 */
export function requestId(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.get('request-id');
  const id = incoming && INCOMING_ID.test(incoming) ? incoming : `req_${randomBase62(20)}`;
  res.locals.requestId = id;
  res.setHeader('Request-Id', id);
  carried.run({ requestId: id }, next);
}
