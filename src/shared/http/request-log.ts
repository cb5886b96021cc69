import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';

// OAuth codes and states travel in query strings; they are credentials and stay out of the logs.
const SENSITIVE_QUERY = /([?&](?:code|state|token|key|secret)=)[^&]*/gi;
export const redactQuery = (url: string): string => url.replace(SENSITIVE_QUERY, '$1[redacted]');

const QUIET = new Set(['/healthz', '/readyz', '/metrics']);

/** What else is recorded of a request answered in full: its time in seconds (the HTTP metrics). */
export type AnsweredHook = (req: Request, res: Response, seconds: number) => void;

/**
 * One line per request when it ends: id, method, URL (credentials in the query redacted), status and
 * time; `warn` for a 4xx, `error` for a 5xx or a response cut short. Never headers or bodies. Nothing
 * is built per request unless its level is enabled (pino-http made a child logger for every request,
 * a measurable share of the hot path). `answered` runs for every request answered in full, quiet
 * paths included, from the same one listener: a response always emits `close`, after `finish` when it
 * was sent whole.
 */
export function requestLog(logger: Logger, answered?: AnsweredHook): RequestHandler {
  return (req: Request, res: Response, next) => {
    const quiet = QUIET.has(req.url);
    const started = performance.now();
    res.once('close', () => {
      const aborted = !res.writableFinished;
      const ms = performance.now() - started;
      if (!aborted) answered?.(req, res, ms / 1000);
      if (quiet) return;
      const status = res.statusCode;
      const level = aborted || status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          requestId: res.locals.requestId,
          req: { method: req.method, url: redactQuery(req.originalUrl) },
          res: { statusCode: status },
          responseTime: Math.round(ms),
        },
        aborted ? 'request aborted' : 'request completed',
      );
    });
    next();
  };
}
