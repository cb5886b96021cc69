import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';

// OAuth codes and states travel in query strings; they are credentials and stay out of the logs.
const SENSITIVE_QUERY = /([?&](?:code|state|token|key|secret)=)[^&]*/gi;
export const redactQuery = (url: string): string => url.replace(SENSITIVE_QUERY, '$1[redacted]');

const QUIET = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * One line per request when it ends: id, method, URL (credentials in the query redacted), status and
 * time; `warn` for a 4xx, `error` for a 5xx or a response cut short. Never headers or bodies. Nothing
 * is built per request unless its level is enabled (pino-http made a child logger for every request,
 * a measurable share of the hot path).
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req: Request, res: Response, next) => {
    if (QUIET.has(req.url)) {
      next();
      return;
    }
    const started = performance.now();
    const done = (): void => {
      res.off('finish', done);
      res.off('close', done);
      const aborted = !res.writableFinished;
      const status = res.statusCode;
      const level = aborted || status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          requestId: res.locals.requestId,
          req: { method: req.method, url: redactQuery(req.originalUrl) },
          res: { statusCode: status },
          responseTime: Math.round(performance.now() - started),
        },
        aborted ? 'request aborted' : 'request completed',
      );
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}
