import { Worker } from 'bullmq';
import { Producers, QUEUE, QUEUE_KEYS, queuePrefixFor, type QueueKey } from '../queues/index.js';
import type { AppContext } from '../src/shared/context.js';
import { createRedis } from '../src/shared/redis.js';
import { sweepRenewals } from '../src/orders/renewals.js';
import { closeHttpAgents } from '../src/webhooks/http-client.js';
import { jobsTotal } from '../src/shared/metrics.js';
import { DEFAULT_SWEEP, Sweeper, type SweepOptions } from '../src/webhooks/sweep.js';
import { buildProcessors } from './processors.js';

export interface RunningWorkers {
  /** Lets in-flight jobs finish, then closes every worker and queue connection. */
  close(): Promise<void>;
  /** The producers the workers use (tests and benchmarks enqueue through them). */
  producers: Producers;
}

export interface WorkerOptions {
  /**
   * How long a job's lock lives without renewal. A worker that dies mid-job (SIGKILL) has its job
   * moved back to waiting once the lock expires and a stalled check runs, so the job is retried,
   * never lost. BullMQ renews the lock while the job runs, so this can be shorter than a delivery.
   */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  sweep?: Partial<SweepOptions>;
}

/**
 * Procfile `worker` entry point and the worker half of `npm start`: one BullMQ Worker per queue
 * (concurrency from config), plus the outbox sweep.
 */
export async function startWorkers(
  web: AppContext,
  redisUrl: string,
  options: WorkerOptions = {},
): Promise<RunningWorkers> {
  const connection = createRedis(redisUrl);
  const producers = new Producers(connection, web.config.queuePrefix);
  // Jobs added by workers wait out a Redis outage on this connection instead of failing fast.
  const ctx: AppContext = { ...web, producers };
  const processors = buildProcessors(ctx);
  const concurrency: Record<QueueKey, number> = {
    outbox: ctx.config.workers.outboxConcurrency,
    deliveries: ctx.config.workers.deliveryConcurrency,
    linkExpiry: ctx.config.workers.expiryConcurrency,
    simulate: ctx.config.workers.simulateConcurrency,
    // Scheduled, low-volume work like expiry.
    renewals: ctx.config.workers.expiryConcurrency,
    orderAbandonment: ctx.config.workers.expiryConcurrency,
    // One recovery walks its pages in order; a second one runs beside it.
    deliveryRecovery: 2,
    retention: 1,
  };
  const missing = QUEUE_KEYS.filter((key) => typeof processors[key] !== 'function');
  if (missing.length > 0) throw new Error(`no processor registered for queue(s): ${missing.join(', ')}`);

  const workers = QUEUE_KEYS.map((key) => {
    const worker = new Worker(QUEUE[key], processors[key], {
      connection,
      prefix: queuePrefixFor(ctx.config.queuePrefix, QUEUE[key]),
      concurrency: concurrency[key],
      lockDuration: options.lockDurationMs ?? 30_000,
      stalledInterval: options.stalledIntervalMs ?? 30_000,
      maxStalledCount: 5,
    });
    worker.on('completed', () => jobsTotal.inc({ queue: QUEUE[key], outcome: 'completed' }));
    worker.on('failed', (job, err) => {
      jobsTotal.inc({ queue: QUEUE[key], outcome: 'failed' });
      ctx.logger.warn(
        { err, queue: QUEUE[key], jobId: job?.id, attemptsMade: job?.attemptsMade },
        'job failed',
      );
    });
    worker.on('error', (err) => {
      ctx.logger.warn({ err, queue: QUEUE[key] }, 'worker error');
    });
    return worker;
  });
  await Promise.all(workers.map((w) => w.waitUntilReady()));

  const sweeper = new Sweeper(ctx, ctx.config.workers.outboxSweepMs, { ...DEFAULT_SWEEP, ...options.sweep });
  // After a Redis outage, relay what piled up in the outbox without waiting for the next tick.
  connection.on('ready', () => sweeper.kick());
  sweeper.start();
  const renewalSweep = startRenewalSweep(ctx, ctx.config.workers.renewalSweepMs);
  // Every worker process upserts the same scheduler: one hourly prune however many run.
  await producers
    .queue('retention')
    .upsertJobScheduler(
      RETENTION_SCHEDULER_ID,
      { every: RETENTION_EVERY_MS },
      { name: QUEUE.retention, data: {} },
    );

  ctx.logger.info(
    { redis: redisUrl.replace(/\/\/[^@]*@/, '//***@'), queues: Object.values(QUEUE), concurrency },
    'workers started',
  );
  return {
    producers,
    async close() {
      await sweeper.stop();
      await renewalSweep.stop();
      await Promise.all(workers.map((w) => w.close()));
      await producers.close();
      await closeHttpAgents();
      connection.disconnect();
    },
  };
}

const RETENTION_SCHEDULER_ID = 'retention-hourly';
const RETENTION_EVERY_MS = 3_600_000;

/** Renews subscriptions whose renewal job was lost, every `RENEWAL_SWEEP_MS` (never two sweeps at once). */
function startRenewalSweep(ctx: AppContext, intervalMs: number): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= sweepRenewals(ctx)
      .then((renewed) => {
        if (renewed > 0) ctx.logger.info({ renewed }, 'renewal sweep renewed overdue subscriptions');
      })
      .catch((err: unknown) =>
        ctx.logger.warn({ err }, 'renewal sweep failed; retrying at the next interval'),
      )
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
