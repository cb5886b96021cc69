import type { RequestHandler, Response } from 'express';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { MicroBatcher } from '../shared/batcher.js';
import type { AppContext } from '../shared/context.js';
import { RateLimitedError } from '../shared/errors.js';
import { routeMatcher, type Route } from '../shared/http/operation.js';
import { paymentsPrincipal } from '../shared/http/principal.js';

const WINDOW_SECONDS = 60;

/** One fixed window of one key: how many requests it allows, how many it has seen, until when. */
interface WindowCount {
  limit: number;
  count: number;
  resetInMs: number;
}

/**
 * A fixed 60 s window per API key, counted in Redis by rate-limiter-flexible (every web process
 * shares it; a cluster's keys each carry their API key's hash tag), or in this process alone while
 * Redis is unreachable (its insurance limiter) rather than failing requests.
 */
function windowLimiter(ctx: AppContext, name: string, points: number): RateLimiterAbstract {
  const keyPrefix = `${ctx.config.queuePrefix.replace(/^\{(.*)\}$/, '$1')}:rl:${name}`;
  return new RateLimiterRedis({
    storeClient: ctx.redis,
    keyPrefix,
    points,
    duration: WINDOW_SECONDS,
    // A fail-fast connection that is down answers nothing: count here at once instead of waiting.
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration: WINDOW_SECONDS }),
  });
}

/** The window's state once `points` more were counted in it (refused or not: both count). */
async function consume(limiter: RateLimiterAbstract, key: string, points: number): Promise<RateLimiterRes> {
  try {
    return await limiter.consume(key, points);
  } catch (refused) {
    if (refused instanceof RateLimiterRes) return refused;
    throw refused;
  }
}

/** The windows one request counts toward, by API key. */
interface CountRequest {
  key: string;
  write: boolean;
}

/**
 * Counts the requests of one turn of the event loop together: each window of each API key is
 * consumed once by the number of those requests it counts, and each request gets the count it
 * would have got had they been counted one by one, in the order they arrived. One Redis round trip
 * per window and key per turn instead of one per request; the limit holds across processes exactly
 * as before, since every increment still happens in Redis. (rate-limiter-flexible counts one
 * consume at a time; sharing a turn's round trip is ours.)
 */
async function countBatch(
  windows: { all: RateLimiterAbstract; writes: RateLimiterAbstract },
  requests: CountRequest[],
): Promise<Array<Array<[number, number]>>> {
  const increments = new Map<string, { limiter: RateLimiterAbstract; key: string; by: number }>();
  const countIn = (limiter: 'all' | 'writes', key: string): string => {
    const id = `${limiter} ${key}`;
    const entry = increments.get(id) ?? { limiter: windows[limiter], key, by: 0 };
    entry.by += 1;
    increments.set(id, entry);
    return id;
  };
  const asked = requests.map((r) => [countIn('all', r.key), ...(r.write ? [countIn('writes', r.key)] : [])]);
  const totals = new Map<string, [number, number]>();
  await Promise.all(
    [...increments].map(async ([id, { limiter, key, by }]) => {
      const res = await consume(limiter, key, by);
      totals.set(id, [res.consumedPoints, res.msBeforeNext]);
    }),
  );
  // Each window's count after this batch; its requests take the counts leading up to it, in order.
  const seen = new Map<string, number>();
  return asked.map((ids) =>
    ids.map((id): [number, number] => {
      const [total, ttl] = totals.get(id) ?? [0, WINDOW_SECONDS * 1000];
      const position = (seen.get(id) ?? 0) + 1;
      seen.set(id, position);
      return [total - (increments.get(id)?.by ?? 0) + position, ttl];
    }),
  );
}

const secondsUntil = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/**
 * IETF draft RateLimit-* fields of the window closer to running out, so a client pacing itself on
 * the headers never hits the tighter limit unawares.
 */
function setHeaders(res: Response, windows: WindowCount[]): void {
  const remaining = (w: WindowCount): number => Math.max(0, w.limit - w.count);
  const shown = windows.reduce((a, b) => (remaining(b) < remaining(a) ? b : a));
  res.setHeader('RateLimit-Limit', String(shown.limit));
  res.setHeader('RateLimit-Remaining', String(remaining(shown)));
  res.setHeader('RateLimit-Reset', String(secondsUntil(shown.resetInMs)));
}

/**
 * Per-key limits shared by every web process through Redis (every payments request counts
 * toward `requestsPerMinute`; link create and cancel, the routes marked `rateLimit: 'writes'`, also
 * toward `writesPerMinute`). Fixed 60 s windows; the requests of one turn of the event loop are
 * counted in one round trip. While Redis is unreachable each process counts on its own rather than
 * failing requests.
 */
export function paymentsRateLimit(ctx: AppContext, routes: Route[]): RequestHandler {
  const { requestsPerMinute, writesPerMinute } = ctx.config.limits;
  const isWrite = routeMatcher(routes.filter((r) => r.rateLimit === 'writes'));
  const windows = {
    all: windowLimiter(ctx, 'all', requestsPerMinute),
    writes: windowLimiter(ctx, 'writes', writesPerMinute),
  };
  const batcher = new MicroBatcher((requests: CountRequest[]) => countBatch(windows, requests));

  return async (req, res, next) => {
    const { keyId } = paymentsPrincipal(res);
    // One hash tag per API key: a Redis Cluster keeps a key's windows in one slot.
    const write = isWrite(req);
    const counts = await batcher.push({ key: `{${String(keyId)}}`, write });
    const limits = write ? [requestsPerMinute, writesPerMinute] : [requestsPerMinute];
    const windowCounts: WindowCount[] = limits.map((limit, i) => {
      const [countSoFar, resetInMs] = counts[i] ?? [0, WINDOW_SECONDS * 1000];
      return { limit, count: countSoFar, resetInMs };
    });
    setHeaders(res, windowCounts);
    const exceeded = windowCounts
      .filter((w) => w.count > w.limit)
      .sort((a, b) => b.resetInMs - a.resetInMs)[0];
    if (exceeded) {
      const wait = secondsUntil(exceeded.resetInMs);
      throw new RateLimitedError(
        `Rate limit of ${exceeded.limit} requests per minute reached; retry in ${wait} s`,
        wait,
      );
    }
    next();
  };
}
