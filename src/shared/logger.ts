import { AsyncLocalStorage } from 'node:async_hooks';
import { pino, type Logger } from 'pino';

export interface RequestContext {
  requestId: string;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

export const currentRequestId = (): string | undefined => requestContext.getStore()?.requestId;

/** Paths whose values never reach a log line: credentials, webhook secrets, full keys. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'secret',
  '*.secret',
  'config.secret',
  '*.config.secret',
  'key',
  '*.key',
  'token',
  '*.token',
  'panel_token',
  '*.panel_token',
  'password',
  '*.password',
];

export function createLogger(level: string, name = 'payment-links', fd: 1 | 2 = 1): Logger {
  return pino(
    {
      name,
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      mixin() {
        const requestId = currentRequestId();
        return requestId ? { requestId } : {};
      },
      serializers: { err: pino.stdSerializers.err },
    },
    pino.destination({ fd, sync: fd === 2 }),
  );
}

export type { Logger };
