import type { ErrorRequestHandler, RequestHandler } from 'express';
import { isCelebrateError, type CelebrateError } from 'celebrate';
import type { Logger } from 'pino';
import { AppError, NotFoundError, type ErrorType, type FieldErrors } from '../errors.js';
import { fieldErrors } from '../validation/fields.js';

export interface ErrorEnvelope {
  error: { type: ErrorType; message: string; fields?: FieldErrors; retry_after_seconds?: number };
}

/** Header names are reported the way clients write them (`Idempotency-Key`, not `idempotency-key`). */
const headerName = (name: string): string =>
  name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());

/** celebrate's Joi errors as `fields`: body and query keys by path, headers by their name. */
function celebrateFields(err: CelebrateError): FieldErrors {
  const fields: FieldErrors = {};
  for (const [segment, joiError] of err.details) {
    const naming = segment === 'headers' ? { rename: headerName } : { root: segment };
    for (const [key, messages] of Object.entries(fieldErrors(joiError, naming))) {
      if (Object.hasOwn(fields, key)) fields[key]?.push(...messages);
      else fields[key] = messages;
    }
  }
  return fields;
}

interface BodyParserError {
  type?: string;
  status?: number;
}

const isBodyParserError = (err: unknown): err is BodyParserError =>
  typeof err === 'object' &&
  err !== null &&
  'type' in err &&
  typeof (err as BodyParserError).type === 'string';

export function notFoundHandler(): RequestHandler {
  return (req, _res, next) => next(new NotFoundError(`No route for ${req.method} ${req.path}`));
}

/**
 * The one error middleware: maps the AppError family, celebrate errors and body-parser errors to
 * the envelope; anything else is a 500 `api_error` naming the request id and nothing internal.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const send = (status: number, error: ErrorEnvelope['error']): void => {
      res.status(status).json({ error } satisfies ErrorEnvelope);
    };
    if (err instanceof AppError) {
      const body: ErrorEnvelope['error'] = { type: err.type, message: err.message };
      if ('fields' in err && err.fields) body.fields = err.fields as FieldErrors;
      if ('retryAfterSeconds' in err && typeof err.retryAfterSeconds === 'number') {
        body.retry_after_seconds = err.retryAfterSeconds;
        res.setHeader('Retry-After', String(err.retryAfterSeconds));
      }
      send(err.status, body);
      return;
    }
    if (isCelebrateError(err)) {
      const fields = celebrateFields(err);
      const names = Object.keys(fields);
      send(400, { type: 'validation_error', message: `Invalid request: ${names.join(', ')}`, fields });
      return;
    }
    if (isBodyParserError(err)) {
      if (err.type === 'entity.parse.failed') {
        send(400, { type: 'validation_error', message: 'Request body is not valid JSON' });
        return;
      }
      if (err.type === 'entity.too.large') {
        send(413, { type: 'validation_error', message: 'Request body is too large (limit 100 kB)' });
        return;
      }
      if (err.type === 'encoding.unsupported' || err.type === 'charset.unsupported') {
        send(415, { type: 'validation_error', message: 'Unsupported request body encoding' });
        return;
      }
    }
    const requestId = res.locals.requestId;
    logger.error({ err, requestId }, 'unhandled error');
    send(500, {
      type: 'api_error',
      message: `Internal error; quote request id ${requestId} when asking for help`,
    });
  };
}
