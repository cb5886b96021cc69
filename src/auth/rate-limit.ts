import { createHash } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { isCluster, type RedisClient } from '../../queues/index.js';
import { MicroBatcher } from '../shared/batcher.js';
import type { AppContext } from '../shared/context.js';
import { RateLimitedError } from '../shared/errors.js';
import { routeMatcher, type Route } from '../shared/http/operation.js';
import { paymentsPrincipal } from '../shared/http/principal.js';

const WINDOW_MS = 60_000;

/** One fixed window of one key: how many requests it allows, how many it has seen, until when. */
interface WindowCount {
  limit: number;
  count: number;
  resetInMs: number;
}

/**
 * Counts requests in windows, all in one round trip: INCRBY each window by the number of requests
 * counted in it, and set its expiry on its first request. Returns count and remaining milliseconds
 * for each key, in order.
 */
const COUNT_SCRIPT = `
local out = {}
for i, key in ipairs(KEYS) do
  local count = redis.call('INCRBY', key, ARGV[i + 1])
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

/** Adds `by[i]` to window `keys[i]`; returns each window's count after it and its remaining ms. */
async function countInRedis(
  redis: RedisClient,
  keys: string[],
  by: number[],
): Promise<Array<[number, number]>> {
  const args = [keys.length, ...keys, WINDOW_MS, ...by] as const;
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

/** The windows one request counts toward; `tag` is the Redis Cluster hash tag they all share. */
interface CountRequest {
  tag: string;
  keys: string[];
}

/**
 * Counts the requests of one turn of the event loop together: each window gets one INCRBY of the
 * number of those requests it counts, and each request gets the count it would have got had they
 * been counted one by one, in the order they arrived. One round trip per turn (per hash tag on a
 * cluster, where a script's keys must share a slot) instead of one per request; the limit holds
 * across processes exactly as before, since every increment still happens in Redis.
 */
async function countBatch(
  redis: RedisClient,
  requests: CountRequest[],
): Promise<Array<Array<[number, number]>>> {
  const groups = new Map<string, CountRequest[]>();
  // A single node runs any keys in one script; a cluster needs one script per slot.
  const cluster = isCluster(redis);
  for (const r of requests) {
    const group = cluster ? r.tag : '';
    groups.set(group, [...(groups.get(group) ?? []), r]);
  }
  const counted = new Map<CountRequest, Array<[number, number]>>();
  await Promise.all(
    [...groups.values()].map(async (group) => {
      const increments = new Map<string, number>();
      for (const r of group) for (const key of r.keys) increments.set(key, (increments.get(key) ?? 0) + 1);
      const keys = [...increments.keys()];
      const after = await countInRedis(
        redis,
        keys,
        keys.map((k) => increments.get(k) ?? 0),
      );
      // Each window's count after this batch; its requests take the counts leading up to it, in order.
      const totals = new Map<string, [number, number]>(keys.map((k, i) => [k, after[i] ?? [0, WINDOW_MS]]));
      const seen = new Map<string, number>();
      for (const r of group) {
        counted.set(
          r,
          r.keys.map((key): [number, number] => {
            const [total, ttl] = totals.get(key) ?? [0, WINDOW_MS];
            const position = (seen.get(key) ?? 0) + 1;
            seen.set(key, position);
            return [total - (increments.get(key) ?? 0) + position, ttl];
          }),
        );
      }
    }),
  );
  return requests.map((r) => counted.get(r) ?? []);
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
  const base = ctx.config.queuePrefix.replace(/^\{(.*)\}$/, '$1');
  const isWrite = routeMatcher(routes.filter((r) => r.rateLimit === 'writes'));
  const local = new LocalWindows();
  const localBatch = (requests: CountRequest[]): Array<Array<[number, number]>> =>
    requests.map((r) => local.count(r.keys));

  const batcher = new MicroBatcher(async (requests: CountRequest[]) => {
    if (ctx.redis.status !== 'ready') return localBatch(requests);
    try {
      return await countBatch(ctx.redis, requests);
    } catch (err) {
      ctx.logger.warn({ err }, 'rate limit counted in this process: Redis did not answer');
      return localBatch(requests);
    }
  });

  return async (req, res, next) => {
    const { keyId } = paymentsPrincipal(res);
    // One hash tag per key: both windows of a request live in one Redis Cluster slot.
    const tag = `{${String(keyId)}}`;
    const all = `${base}:rl:${tag}:all`;
    const write = isWrite(req);
    const counts = await batcher.push({ tag, keys: write ? [all, `${base}:rl:${tag}:writes`] : [all] });
    const limits = write ? [requestsPerMinute, writesPerMinute] : [requestsPerMinute];
    const windows: WindowCount[] = limits.map((limit, i) => {
      const [countSoFar, resetInMs] = counts[i] ?? [0, WINDOW_MS];
      return { limit, count: countSoFar, resetInMs };
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
