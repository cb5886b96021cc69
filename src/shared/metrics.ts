import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics (docs/operations.md, "Metrics"). One registry per process: web and worker
 * each expose theirs; `npm start` (both in one process) exposes one with everything. Labels are
 * bounded on purpose: route templates, queue names, outcomes and status classes, never ids, URLs or
 * anything a tenant controls (but for `webhook_events_filtered_total`, per integration by design).
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP requests by app, route template, method and status',
  labelNames: ['app', 'method', 'route', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

/** The same requests counted: a counter survives every Prometheus client's parser and rate() alike. */
export const httpRequests = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests by app, route template, method and status',
  labelNames: ['app', 'method', 'route', 'status'] as const,
  registers: [registry],
});

export const jobsTotal = new Counter({
  name: 'queue_jobs_total',
  help: 'Jobs finished by the workers of this process, by queue and outcome (completed, failed)',
  labelNames: ['queue', 'outcome'] as const,
  registers: [registry],
});

export const queueDepth = new Gauge({
  name: 'queue_jobs',
  help: 'Jobs in each queue by state (waiting, delayed, active, failed), read at scrape time',
  labelNames: ['queue', 'state'] as const,
  registers: [registry],
});

export const webhookAttempts = new Counter({
  name: 'webhook_attempts_total',
  help: 'Webhook delivery attempts by outcome (succeeded, failed) and response status class (2xx…5xx, none)',
  labelNames: ['outcome', 'status_class'] as const,
  registers: [registry],
});

export const webhookAttemptDuration = new Histogram({
  name: 'webhook_attempt_duration_seconds',
  help: 'Time from sending a webhook to its response (or error)',
  labelNames: ['outcome'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
  registers: [registry],
});

export const breakerOpenings = new Counter({
  name: 'webhook_breaker_openings_total',
  help: 'Integrations auto-disabled by the circuit breaker',
  registers: [registry],
});

/**
 * Runs of the worker's periodic sweeps finished, by sweep (`outbox`, `renewal`) and outcome: a sweep
 * that stops running (stuck on a lock, its process wedged) shows as a flat line, and an operator or a
 * test can tell "nothing was due" from "nobody looked".
 */
export const sweepRuns = new Counter({
  name: 'sweep_runs_total',
  help: 'Runs of the periodic sweeps finished by this process, by sweep (outbox, renewal) and outcome (ok, failed)',
  labelNames: ['sweep', 'outcome'] as const,
  registers: [registry],
});

/**
 * Events an integration's webhook filter left out (no delivery, no attempt), counted where the relay
 * runs. The one metric labelled by an id: the filter is the integration's own, and its owner asks
 * "how many did my filter drop"; integrations are few per company and deleting one stops its series
 * growing (a restart drops it).
 */
export const webhookEventsFiltered = new Counter({
  name: 'webhook_events_filtered_total',
  help: 'Events a webhook integration’s filter left out (no delivery made), by integration id',
  labelNames: ['integration_id'] as const,
  registers: [registry],
});

export const deliveryLag = new Histogram({
  name: 'webhook_delivery_lag_seconds',
  help: 'Time from an event’s commit to the first attempt of each of its deliveries',
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  registers: [registry],
});

export const outboxLag = new Gauge({
  name: 'outbox_lag_seconds',
  help: 'Age of the oldest committed event not yet relayed (0 when none), read at scrape time',
  registers: [registry],
});

export const pgPoolConnections = new Gauge({
  name: 'pg_pool_connections',
  help: 'PostgreSQL pool clients by state (total, idle, waiting)',
  labelNames: ['state'] as const,
  registers: [registry],
});

export const redisUp = new Gauge({
  name: 'redis_connection_up',
  help: '1 when the Redis connection is ready, 0 otherwise',
  registers: [registry],
});

export const scrapeErrors = new Counter({
  name: 'metrics_scrape_errors_total',
  help: 'Scrape-time reads (queues, PostgreSQL) that failed or timed out; their gauges keep the last value',
  labelNames: ['source'] as const,
  registers: [registry],
});

/** `2xx` … `5xx`, or `none` when no response arrived. */
export const statusClass = (status: number | null): string =>
  status === null ? 'none' : `${Math.floor(status / 100)}xx`;
