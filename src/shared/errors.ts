/** The error types of the envelope (spec section 2.7). */
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

/** Base of the one error family; the error middleware maps every AppError to the envelope. */
export abstract class AppError extends Error {
  abstract readonly status: number;
  abstract readonly type: ErrorType;
}

export class ValidationError extends AppError {
  readonly status = 400;
  readonly type = 'validation_error';
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

export class AuthenticationError extends AppError {
  readonly status = 401;
  readonly type = 'authentication_error';
}

export class PermissionError extends AppError {
  readonly status = 403;
  readonly type = 'permission_error';
}

/** Panel API: the company is not active (spec 4.2 "otherwise HTTP 402"). */
export class InactiveCompanyError extends AppError {
  readonly status = 402;
  readonly type = 'permission_error';
  constructor(message = 'The company is not active') {
    super(message);
  }
}

export class NotFoundError extends AppError {
  readonly status = 404;
  readonly type = 'not_found';
}

/** The path exists, the method does not (the route sets `Allow`). */
export class MethodNotAllowedError extends AppError {
  readonly status = 405;
  readonly type = 'validation_error';
}

export class ConflictError extends AppError {
  readonly status = 409;
  readonly type = 'conflict';
}

export class RateLimitedError extends AppError {
  readonly status = 429;
  readonly type = 'rate_limited';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

export class ServiceUnavailableError extends AppError {
  readonly status = 503;
  readonly type = 'api_error';
}
