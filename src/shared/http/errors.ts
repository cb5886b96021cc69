import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { isCelebrateError, type CelebrateError } from 'celebrate';
import type { Logger } from 'pino';
import { isStoreUnavailable } from '../availability.js';
import {
  AppError,
  HttpStatusError,
  InternalError,
  NotFoundError,
  ServiceUnavailableError,
  ValidationError,
  type ErrorType,
  noFields,
  type FieldErrors,
} from '../errors.js';
import { safeError } from '../logger.js';
import { fieldErrors } from '../validation/fields.js';

export interface ErrorEnvelope {
  error: { type: ErrorType; message: string; fields?: FieldErrors; retry_after_seconds?: number };
}

/** Header names are reported the way clients write them (`Idempotency-Key`, not `idempotency-key`). */
const headerName = (name: string): string =>
  name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());

/** celebrate's Joi errors as `fields`: body and query keys by path, headers by their name. */
function celebrateFields(err: CelebrateError): FieldErrors {
  const fields = noFields();
  for (const [segment, joiError] of err.details) {
    const naming = segment === 'headers' ? { rename: headerName } : { root: segment };
    for (const [key, messages] of Object.entries(fieldErrors(joiError, naming))) {
      if (Object.hasOwn(fields, key)) fields[key]?.push(...messages);
      else fields[key] = messages;
    }
  }
  return fields;
}

/** What third-party errors carry: http-errors (body-parser, the router) set `status` and `type`. */
interface HttpLikeError {
  status?: unknown;
  statusCode?: unknown;
  type?: unknown;
  code?: unknown;
}

const BODY_MESSAGES: Record<string, string> = {
  'entity.parse.failed': 'Request body is not valid JSON',
  'entity.too.large': 'Request body is too large',
  'parameters.too.many': 'Too many form fields',
  'encoding.unsupported': 'Unsupported Content-Encoding; send identity, gzip, deflate or br',
  'charset.unsupported': 'Unsupported charset; send UTF-8',
  'request.aborted': 'The request was aborted',
  'request.size.invalid': 'Request body size does not match Content-Length',
};

/** A client error some library raised (with its own status): the envelope's type and a safe message. */
function clientError(err: unknown): AppError | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as HttpLikeError;
  // zlib errors: the body said gzip/deflate/br but was not.
  if (typeof e.code === 'string' && e.code.startsWith('Z_')) {
    return new ValidationError('Request body could not be decoded with its Content-Encoding');
  }
  const status =
    typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : undefined;
  if (status === undefined || status < 400 || status > 499) return undefined;
  const message = (typeof e.type === 'string' ? BODY_MESSAGES[e.type] : undefined) ?? defaultMessage(status);
  return new HttpStatusError(
    status,
    status === 401 ? 'authentication_error' : status === 404 ? 'not_found' : 'validation_error',
    message,
  );
}

const defaultMessage = (status: number): string =>
  status === 400
    ? 'The request could not be decoded (bad percent-encoding or malformed syntax)'
    : `Request refused (${status})`;

/**
 * Every error, ours or a library's, as a member of the one error family; undefined only for a truly
 * unexpected error (a 500). A store that cannot be reached is a 503, never a 500.
 */
export function toAppError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  if (isCelebrateError(err)) {
    const fields = celebrateFields(err);
    return new ValidationError(`Invalid request: ${Object.keys(fields).join(', ')}`, fields);
  }
  if (isStoreUnavailable(err)) {
    return new ServiceUnavailableError('A data store is unavailable right now; retry in a few seconds');
  }
  return clientError(err);
}

export function notFoundHandler(): RequestHandler {
  return (req, _res, next) => next(new NotFoundError(`No route for ${req.method} ${req.path}`));
}

/** How a surface answers an error of the family (the JSON envelope, or a buyer page). */
export type ErrorRenderer = (res: Response, err: AppError) => void;

/** The JSON APIs' answer: the envelope, with `retry_after_seconds` where the error has one. */
export const sendEnvelope: ErrorRenderer = (res, err) => {
  const body: ErrorEnvelope['error'] = { type: err.type, message: err.message };
  if ('fields' in err && err.fields) body.fields = err.fields as FieldErrors;
  if ('retryAfterSeconds' in err && typeof err.retryAfterSeconds === 'number') {
    body.retry_after_seconds = err.retryAfterSeconds;
  }
  res.status(err.status).json({ error: body } satisfies ErrorEnvelope);
};

/**
 * The one error middleware: every error becomes a member of the family (see `toAppError`) and is
 * answered by the surface's renderer; anything else is a 500 `api_error` naming the request id and
 * nothing internal. Logs carry the error, never the request body. `Retry-After` is set here for
 * every surface.
 */
export function errorHandler(logger: Logger, render: ErrorRenderer = sendEnvelope): ErrorRequestHandler {
  return (err: unknown, _req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    let known = toAppError(err);
    if (known instanceof ServiceUnavailableError) logger.warn({ err: safeError(err) }, 'store unavailable');
    if (!known) {
      const requestId = String(res.locals.requestId ?? '');
      logger.error({ err: safeError(err), requestId }, 'unhandled error');
      known = new InternalError(`Internal error; quote request id ${requestId} when asking for help`);
    }
    if ('retryAfterSeconds' in known && typeof known.retryAfterSeconds === 'number') {
      res.setHeader('Retry-After', String(known.retryAfterSeconds));
    }
    res.locals.errorType = known.type;
    render(res, known);
  };
}
