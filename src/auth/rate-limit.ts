import type { RequestHandler, Response } from 'express';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { AppContext } from '../shared/context.js';
import { RateLimitedError } from '../shared/errors.js';
import { paymentsPrincipal } from '../shared/http/principal.js';

const WINDOW_SECONDS = 60;

export interface PaymentsRateLimits {
  /** Every authenticated payments request (spec 8: 300 per minute per key by default). */
  all: RequestHandler;
  /** Link create and cancel, which also count toward `all` (spec 8: 60 per minute per key). */
  writes: RequestHandler;
}

const secondsUntil = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/**
 * IETF draft RateLimit-* fields. A request that passes two limiters reports the one closer to
 * running out, so a client pacing itself on the headers never hits the tighter limit unawares.
 */
function setHeaders(res: Response, limit: number, result: RateLimiterRes): void {
  const remaining = Math.max(0, result.remainingPoints);
  const shown = Number(res.getHeader('RateLimit-Remaining') ?? Number.POSITIVE_INFINITY);
  if (remaining > shown) return;
  res.setHeader('RateLimit-Limit', String(limit));
  res.setHeader('RateLimit-Remaining', String(remaining));
  res.setHeader('RateLimit-Reset', String(secondsUntil(result.msBeforeNext)));
}

function limiterMiddleware(ctx: AppContext, name: string, points: number): RequestHandler {
  const limiter = new RateLimiterRedis({
    storeClient: ctx.redis,
    keyPrefix: `${ctx.config.queuePrefix}:rl:payments:${name}`,
    points,
    duration: WINDOW_SECONDS,
    // While Redis is unreachable each process keeps counting on its own instead of failing requests.
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory({
      keyPrefix: `${ctx.config.queuePrefix}:rl:payments:${name}`,
      points,
      duration: WINDOW_SECONDS,
    }),
  });
  return async (_req, res, next) => {
    const { keyId } = paymentsPrincipal(res);
    let result: RateLimiterRes;
    try {
      result = await limiter.consume(String(keyId));
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      setHeaders(res, points, rejection);
      const wait = secondsUntil(rejection.msBeforeNext);
      throw new RateLimitedError(
        `Rate limit of ${points} requests per minute reached; retry in ${wait} s`,
        wait,
      );
    }
    setHeaders(res, points, result);
    next();
  };
}

/** Per-key limits shared by every web process through Redis; the numbers come from config. */
export function paymentsRateLimits(ctx: AppContext): PaymentsRateLimits {
  return {
    all: limiterMiddleware(ctx, 'all', ctx.config.limits.requestsPerMinute),
    writes: limiterMiddleware(ctx, 'writes', ctx.config.limits.writesPerMinute),
  };
}
