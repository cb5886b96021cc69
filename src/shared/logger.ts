import { isatty } from 'node:tty';
import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import { carried } from './carried.js';
import { ConfigError } from './config.js';
import { activeTraceId } from './tracing.js';

export const currentRequestId = (): string | undefined => carried.getStore()?.requestId;

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

/**
 * An error as a log line may hold it: type, message, code and stack, never the extra properties
 * libraries attach (body-parser puts the raw request body on its errors, drizzle the query
 * parameters in its message, which may be buyer data or webhook secrets).
 */
export function safeError(err: unknown, depth = 0): Record<string, unknown> {
  if (!(err instanceof Error)) return { type: typeof err, message: 'non-Error value thrown' };
  const { code, status } = err as { code?: unknown; status?: unknown };
  // Drizzle's message is "Failed query: <sql> params: <values>": keep the SQL, drop the values.
  const message = err.message.replace(/\nparams:[\s\S]*$/, '\nparams: [redacted]');
  return {
    type: err.name,
    message,
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    ...(typeof status === 'number' ? { status } : {}),
    stack: err.stack?.replace(err.message, message),
    ...(err.cause !== undefined && depth < 3 ? { cause: safeError(err.cause, depth + 1) } : {}),
  };
}

export type LogFormat = 'json' | 'pretty';

/**
 * LOG_FORMAT `json` or `pretty`; unset (or `auto`), pretty when the destination is a terminal, so
 * pipes, files, containers and tests get one JSON object per line.
 */
export function logFormat(fd: number, env: NodeJS.ProcessEnv = process.env): LogFormat {
  const requested = env.LOG_FORMAT ?? '';
  if (requested === 'json' || requested === 'pretty') return requested;
  if (requested !== '' && requested !== 'auto')
    throw new ConfigError('LOG_FORMAT must be one of auto, json, pretty');
  return isatty(fd) ? 'pretty' : 'json';
}

const prettyLoggers = new WeakSet<Logger>();

/** Whether this logger writes for a person (so a multi-line banner reads well) rather than for a machine. */
export const writesForPeople = (logger: Logger): boolean => prettyLoggers.has(logger);

/**
 * The service's logger. `to` sends the JSON lines somewhere else than stdout/stderr (the test suite
 * captures every line to check that no secret or buyer data reaches a log).
 */
export function createLogger(
  level: string,
  name = 'payment-links',
  fd: 1 | 2 = 1,
  to?: DestinationStream,
): Logger {
  const format = to ? 'json' : logFormat(fd);
  const destination: DestinationStream =
    to ??
    (format === 'pretty'
      ? pretty({
          destination: fd,
          sync: true,
          colorize: isatty(fd),
          translateTime: 'SYS:HH:MM:ss.l',
          ignore: 'pid,hostname',
          singleLine: true,
        })
      : pino.destination({ fd, sync: fd === 2 }));
  const logger = pino(
    {
      name,
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      mixin() {
        const requestId = currentRequestId();
        // With tracing on, a line written inside a traced request or job names its trace.
        const traceId = activeTraceId();
        if (!traceId) return requestId ? { requestId } : {};
        return requestId ? { requestId, trace_id: traceId } : { trace_id: traceId };
      },
      serializers: { err: safeError },
    },
    destination,
  );
  if (format === 'pretty') prettyLoggers.add(logger);
  return logger;
}

export type { Logger };
