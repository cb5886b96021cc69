/** The error types of the envelope (`error.type`); each error class below pairs one with its HTTP status. */
export const ERROR_TYPES = [
  'validation_error',
  'authentication_error',
  'permission_error',
  'not_found',
  'conflict',
  'rate_limited',
  'api_error',
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

export type FieldErrors = Record<string, string[]>;

/**
 * An empty `fields` map without a prototype: field names come from requests, and one named
 * "__proto__" must become a key, not replace the object's prototype.
 */
export const noFields = (): FieldErrors => Object.create(null) as FieldErrors;

/** Base of the one error family; the error middleware maps every AppError to the envelope. */
export abstract class AppError extends Error {
  abstract readonly status: number;
  abstract readonly type: ErrorType;
}

/** A member of the family: its HTTP status and envelope type, nothing more. */
const errorOf = (status: number, type: ErrorType) =>
  class extends AppError {
    readonly status = status;
    readonly type = type;
  };

export class ValidationError extends errorOf(400, 'validation_error') {
  constructor(
    message: string,
    readonly fields?: FieldErrors,
  ) {
    super(message);
  }

  /** One offending field with one message: the common case. */
  static field(field: string, message: string): ValidationError {
    return new ValidationError(`${field}: ${message}`, { [field]: [message] });
  }
}

export class AuthenticationError extends errorOf(401, 'authentication_error') {}
export class PermissionError extends errorOf(403, 'permission_error') {}

/** Panel API: the company is not active (402, type `permission_error`). */
export class InactiveCompanyError extends errorOf(402, 'permission_error') {
  constructor(message = 'The company is not active') {
    super(message);
  }
}

export class NotFoundError extends errorOf(404, 'not_found') {}
/** The path exists, the method does not (the route sets `Allow`). */
export class MethodNotAllowedError extends errorOf(405, 'validation_error') {}
export class ConflictError extends errorOf(409, 'conflict') {}

export class RateLimitedError extends errorOf(429, 'rate_limited') {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** A store (PostgreSQL, Redis) cannot be reached: the client should retry shortly. */
export class ServiceUnavailableError extends errorOf(503, 'api_error') {
  constructor(
    message: string,
    readonly retryAfterSeconds = 5,
  ) {
    super(message);
  }
}

/** A third party the request needed (a PSP) could not be reached or failed: nothing was changed. */
export class BadGatewayError extends errorOf(502, 'api_error') {}

/** A client error with the status a library chose (413, 415, 400 …), mapped into the family. */
export class HttpStatusError extends AppError {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    message: string,
  ) {
    super(message);
  }
}

/** The request body is not JSON (or not in a charset or encoding the service reads). */
export class UnsupportedMediaTypeError extends errorOf(415, 'validation_error') {}

/** An unexpected failure: the message names the request id and nothing internal. */
export class InternalError extends errorOf(500, 'api_error') {}
