import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Request, type RequestHandler, type Response } from 'express';
import { QUEUE, QUEUE_KEYS } from '../../queues/index.js';
import type { AppContext } from '../shared/context.js';
import {
  httpRequestDuration,
  httpRequests,
  outboxLag,
  pgPoolConnections,
  queueDepth,
  redisUp,
  registry,
  scrapeErrors,
} from '../shared/metrics.js';
import { oldestUnrelayedAgeSeconds } from '../webhooks/repository/fan-out.js';

export const METRICS_PATH = '/metrics';
/** A scrape never waits longer than this on a store that is down; the gauges keep their last value. */
const SCRAPE_READ_TIMEOUT_MS = 2000;

/** The apps of the web process, as the `app` label names them; `web` is the top level (probes, /metrics). */
export type HttpAppName = 'web' | 'payments' | 'panel' | 'pay' | 'admin' | 'docs' | 'dashboard';

const appOfResponse = new WeakMap<Response, HttpAppName>();

/**
 * Marks the requests that enter an app's mount. Mounts can share a path (the panel may sit at `/v1`
 * on its own host), so the route template alone does not say which app answered; the last app a
 * request entered did.
 */
export const metricsApp =
  (name: HttpAppName): RequestHandler =>
  (_req, res, next) => {
    appOfResponse.set(res, name);
    next();
  };

/**
 * Times every request by app and route template (`/v1/payment-links/:id`, never the path itself,
 * whose ids would make a series per link); a request no route matched is `unmatched`. Called by the
 * request log's listener once a response is sent whole (one listener per request for both).
 */
export function recordHttpMetrics(req: Request, res: Response, seconds: number): void {
  const path: unknown = req.route?.path;
  const route = typeof path === 'string' ? `${req.baseUrl}${path}` : 'unmatched';
  const app = appOfResponse.get(res) ?? 'web';
  const labels = { app, method: req.method, route, status: String(res.statusCode) };
  httpRequestDuration.observe(labels, seconds);
  httpRequests.inc(labels);
}

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

function withTimeout<T>(work: Promise<T>, source: string): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), SCRAPE_READ_TIMEOUT_MS);
  });
  return Promise.race([work, timeout])
    .then((value) => {
      if (value === undefined) scrapeErrors.inc({ source });
      return value;
    })
    .catch(() => {
      scrapeErrors.inc({ source });
      return undefined;
    })
    .finally(() => clearTimeout(timer));
}

/** Reads what only exists at scrape time: queue depths, outbox lag, pool and connection state. */
async function collect(ctx: AppContext): Promise<void> {
  pgPoolConnections.set({ state: 'total' }, ctx.pool.totalCount);
  pgPoolConnections.set({ state: 'idle' }, ctx.pool.idleCount);
  pgPoolConnections.set({ state: 'waiting' }, ctx.pool.waitingCount);
  redisUp.set(ctx.redis.status === 'ready' ? 1 : 0);
  const queues = QUEUE_KEYS.map(async (key) => {
    const counts = await withTimeout(
      ctx.producers.queue(key).getJobCounts('waiting', 'delayed', 'active', 'failed'),
      'queues',
    );
    for (const [state, count] of Object.entries(counts ?? {})) {
      queueDepth.set({ queue: QUEUE[key], state }, count);
    }
  });
  const lag = withTimeout(oldestUnrelayedAgeSeconds(ctx.db), 'postgres').then((age) => {
    if (age !== undefined) outboxLag.set(age);
  });
  await Promise.all([...queues, lag]);
}

/**
 * Prometheus text behind METRICS_TOKEN (docs/operations.md, "Metrics"): 404 when no token is configured, 401
 * when the bearer token is missing or wrong (compared in constant time).
 */
export function metricsHandler(ctx: AppContext): RequestHandler {
  const token = ctx.config.metrics.token;
  return async (req, res) => {
    if (!token) {
      res.status(404).json({ error: { type: 'not_found', message: 'Not found' } });
      return;
    }
    const given = /^Bearer (.+)$/i.exec(req.get('authorization') ?? '')?.[1] ?? '';
    if (!timingSafeEqual(digest(given), digest(token))) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      res
        .status(401)
        .json({ error: { type: 'authentication_error', message: 'A valid metrics token is required' } });
      return;
    }
    await collect(ctx);
    res.setHeader('Cache-Control', 'no-store');
    res.type(registry.contentType).send(await registry.metrics());
  };
}

/**
 * The worker's metrics endpoint on METRICS_PORT (the worker serves no other HTTP). Resolves with a
 * close function once listening.
 */
export async function startMetricsServer(
  ctx: AppContext,
  port: number,
  host = ctx.config.host,
): Promise<{ port: number; close(): Promise<void> }> {
  const app = express();
  app.disable('x-powered-by');
  app.get(METRICS_PATH, metricsHandler(ctx));
  app.use((_req, res) => {
    res.status(404).json({ error: { type: 'not_found', message: 'Not found' } });
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
