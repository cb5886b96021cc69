import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { RedisClient } from '../../queues/index.js';
import type { AppContext } from '../shared/context.js';
import { RateLimitedError } from '../shared/errors.js';
import type { Route } from '../shared/http/operation.js';
import { paymentsPrincipal } from '../shared/http/principal.js';

const WINDOW_MS = 60_000;

/** One fixed window of one key: how many requests it allows, how many it has seen, until when. */
interface WindowCount {
  limit: number;
  count: number;
  resetInMs: number;
}

/**
 * Counts one request in each of its windows, all in one round trip: INCR, and the window's expiry
 * set by its first request. Returns count and remaining milliseconds for each key, in order.
 */
const COUNT_SCRIPT = `
local out = {}
for i, key in ipairs(KEYS) do
  local count = redis.call('INCR', key)
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then
    redis.call('PEXPIRE', key, ARGV[1])
    ttl = tonumber(ARGV[1])
  end
  out[#out + 1] = count
  out[#out + 1] = ttl
end
return out`;
const COUNT_SHA = createHash('sha1').update(COUNT_SCRIPT).digest('hex');

async function countInRedis(redis: RedisClient, keys: string[]): Promise<Array<[number, number]>> {
  const args = [keys.length, ...keys, WINDOW_MS] as const;
  const reply: unknown = await redis
    .evalsha(COUNT_SHA, ...args)
    .catch((err: unknown) =>
      err instanceof Error && err.message.startsWith('NOSCRIPT')
        ? redis.eval(COUNT_SCRIPT, ...args)
        : Promise.reject(err),
    );
  if (!Array.isArray(reply) || reply.length !== keys.length * 2 || !reply.every(Number.isSafeInteger)) {
    throw new Error('unexpected reply from the rate-limit script');
  }
  const numbers = reply as number[];
  return keys.map((_, i) => [numbers[2 * i] ?? 0, numbers[2 * i + 1] ?? 0]);
}

/** The same windows in this process alone: what each web process counts while Redis is unreachable. */
class LocalWindows {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private sweptAt = Date.now();

  count(keys: string[], now = Date.now()): Array<[number, number]> {
    if (now - this.sweptAt > WINDOW_MS) {
      for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
      this.sweptAt = now;
    }
    return keys.map((key) => {
      let w = this.windows.get(key);
      if (!w || w.resetAt <= now) {
        w = { count: 0, resetAt: now + WINDOW_MS };
        this.windows.set(key, w);
      }
      w.count += 1;
      return [w.count, w.resetAt - now];
    });
  }
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

/** `/v1/payment-links/{id}/cancel` → a matcher of the request paths it names. */
const pathMatcher = (template: string): RegExp =>
  new RegExp(
    `^${template
      .split(/\{[^}]+\}/)
      .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
      .join('[^/]+')}$`,
  );

/**
 * Per-key limits shared by every web process through Redis (every payments request counts
 * toward `requestsPerMinute`; link create and cancel, the routes marked `rateLimit: 'writes'`, also
 * toward `writesPerMinute`). Fixed 60 s windows, both of a request counted in one round trip. While
 * Redis is unreachable each process counts on its own rather than failing requests.
 */
export function paymentsRateLimit(ctx: AppContext, routes: Route[]): RequestHandler {
  const { requestsPerMinute, writesPerMinute } = ctx.config.limits;
  const base = ctx.config.queuePrefix.replace(/^\{(.*)\}$/, '$1');
  const writes = routes
    .filter((r) => r.rateLimit === 'writes')
    .map((r) => ({ method: r.operation.method.toUpperCase(), path: pathMatcher(r.operation.path) }));
  const isWrite = (req: Request): boolean => {
    const path = `${req.baseUrl}${req.path}`;
    return writes.some((w) => w.method === req.method && w.path.test(path));
  };
  const local = new LocalWindows();

  const count = async (keys: string[]): Promise<Array<[number, number]>> => {
    if (ctx.redis.status !== 'ready') return local.count(keys);
    try {
      return await countInRedis(ctx.redis, keys);
    } catch (err) {
      ctx.logger.warn({ err }, 'rate limit counted in this process: Redis did not answer');
      return local.count(keys);
    }
  };

  return async (req, res, next) => {
    const { keyId } = paymentsPrincipal(res);
    // One hash tag per key: both windows of a request live in one Redis Cluster slot.
    const key = (window: string): string => `${base}:rl:{${keyId}}:${window}`;
    const limits = isWrite(req)
      ? [
          { name: 'all', limit: requestsPerMinute },
          { name: 'writes', limit: writesPerMinute },
        ]
      : [{ name: 'all', limit: requestsPerMinute }];
    const counts = await count(limits.map((l) => key(l.name)));
    const windows: WindowCount[] = limits.map((l, i) => {
      const [countSoFar, resetInMs] = counts[i] ?? [0, WINDOW_MS];
      return { limit: l.limit, count: countSoFar, resetInMs };
    });
    setHeaders(res, windows);
    const exceeded = windows.filter((w) => w.count > w.limit).sort((a, b) => b.resetInMs - a.resetInMs)[0];
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
