import { setTimeout as delay } from 'node:timers/promises';
import { Worker } from 'bullmq';
import {
  Producers,
  QUEUE,
  QUEUE_KEYS,
  QUEUE_TRACED,
  queuePrefixFor,
  type QueueKey,
} from '../queues/index.js';
import type { AppContext } from '../src/shared/context.js';
import { createRedis, describeRedis, type RedisTarget } from '../src/shared/redis.js';
import { queueTelemetry } from '../src/shared/tracing.js';
import { AttemptFailedError } from '../src/webhooks/failed-jobs.js';
import { closeHttpAgents } from '../src/integrations/kinds/webhook/post.js';
import { jobsTotal } from '../src/shared/metrics.js';
import {
  missingSchedulers,
  SchedulerKeeper,
  schedulerPeriods,
  upsertSchedulers,
} from '../src/sweeps/schedulers.js';
import {
  DEFAULT_SWEEP,
  SweepFailedError,
  sweeps as buildSweeps,
  type SweepOptions,
  type SweepRuns,
} from '../src/sweeps/sweep.js';
import { createMailer } from '../src/emails/transport.js';
import { buildProcessors } from './processors.js';
import { warmUpEngine } from '../src/webhooks/warm-up.js';
import { installGateways } from '../src/gateways/install.js';

export interface RunningWorkers {
  /** Lets in-flight jobs finish, then closes every worker and queue connection. */
  close(): Promise<void>;
  /** The producers the workers use (tests and benchmarks enqueue through them). */
  producers: Producers;
  /**
   * The sweeps' runs in this process (the scheduled ones it took, and its catch-up passes), which a
   * caller can wait for (`runsFromNow`).
   */
  sweeps: {
    outbox: Pick<SweepRuns, 'runsFromNow'>;
    renewal: Pick<SweepRuns, 'runsFromNow'>;
    linkExpiry: Pick<SweepRuns, 'runsFromNow'>;
  };
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
  /**
   * How long a delivery lane's claim holds without renewal: a worker that dies mid-lane has its
   * lane taken over by another once it lapses (its runner renews it every third of it).
   */
  laneLeaseMs?: number;
  /** How long a lane runner keeps its worker slot before handing the lane on. */
  laneSliceMs?: number;
  /** How long an idle lane runner keeps its lane while a slot is free (half a second). */
  laneLingerMs?: number;
  /** How long `close` waits for jobs in progress (default: WEBHOOK_TIMEOUT_MS + 5 s). */
  closeGraceMs?: number;
  /**
   * Database connections to open and ready (`warmUpEngine`) before taking jobs: the Procfile worker
   * readies its whole pool. None unless given (tests start many workers beside one another).
   */
  warmConnections?: number;
}

/**
 * Procfile `worker` entry point and the worker half of `npm start`: one BullMQ Worker per queue
 * (concurrency from config), the sweeps' job schedulers kept alive (`SchedulerKeeper`).
 */
export async function startWorkers(
  web: AppContext,
  redis: RedisTarget,
  options: WorkerOptions = {},
): Promise<RunningWorkers> {
  // E-mail to buyers goes through SMTP_URL: a worker without one refuses to start, naming it.
  const mailer = createMailer(web.config);
  const connection = createRedis(redis);
  const producers = new Producers(connection, web.config.queuePrefix, false, queueTelemetry());
  // Jobs added by workers wait out a Redis outage on this connection instead of failing fast.
  const ctx: AppContext = { ...web, producers };
  let stopping = false;
  const sweeps = buildSweeps(ctx, { ...DEFAULT_SWEEP, ...options.sweep });
  // The gateway integration type's kind (a PSP connection), provided to the integration core.
  installGateways();
  const processors = buildProcessors(
    ctx,
    {
      leaseMs: options.laneLeaseMs ?? 30_000,
      sliceMs: options.laneSliceMs ?? 10_000,
      ...(options.laneLingerMs === undefined ? {} : { lingerMs: options.laneLingerMs }),
      stopping: () => stopping,
    },
    sweeps,
    mailer,
  );
  const concurrency: Record<QueueKey, number> = {
    outbox: ctx.config.workers.outboxConcurrency,
    // Each lane job sends one integration's deliveries (up to WEBHOOK_MAX_IN_FLIGHT at once).
    deliveryLanes: ctx.config.workers.deliveryConcurrency,
    // The Bull Board face of failed attempts: each job fails at once, or wakes a lane.
    deliveries: 8,
    linkExpiry: ctx.config.workers.expiryConcurrency,
    simulate: ctx.config.workers.simulateConcurrency,
    // Scheduled, low-volume work like expiry.
    renewals: ctx.config.workers.expiryConcurrency,
    orderAbandonment: ctx.config.workers.expiryConcurrency,
    // One recovery walks its pages in order; a second one runs beside it.
    deliveryRecovery: 2,
    retention: 1,
    // Each waits on the PSP (up to MERCADOPAGO_TIMEOUT_MS): a few at once, so one slow PSP
    // answer does not hold the others.
    gatewayNotices: 8,
    gatewayReconciliation: 4,
    // One run per period for the deployment; a worker takes one at a time.
    linkExpiryTick: 1,
    outboxSweep: 1,
    renewalSweep: 1,
    // Each waits on the SMTP server: a few at once.
    emails: ctx.config.email.concurrency,
    // Each waits on the fiscal provider (up to FOCUSNFE_TIMEOUT_MS): a few at once.
    invoices: 4,
    // Each waits on the PSP (up to MERCADOPAGO_TIMEOUT_MS): a few at once.
    refunds: 4,
  };
  const missing = QUEUE_KEYS.filter((key) => typeof processors[key] !== 'function');
  if (missing.length > 0) throw new Error(`no processor registered for queue(s): ${missing.join(', ')}`);
  if (options.warmConnections) {
    // Not a reason to stay down: connections it could not ready open on demand, as without it.
    await warmUpEngine(ctx, options.warmConnections).then(
      (ms) =>
        ctx.logger.info(
          { connections: options.warmConnections, ms: Math.round(ms) },
          'database connections ready',
        ),
      (err: unknown) => ctx.logger.warn({ err }, 'database connections not readied; they open on demand'),
    );
  }

  const workers = QUEUE_KEYS.map((key) => {
    // Tracing on: consumer spans continue the producer's trace.
    const telemetry = QUEUE_TRACED[key] ? queueTelemetry() : undefined;
    const worker = new Worker(QUEUE[key], processors[key], {
      connection,
      prefix: queuePrefixFor(ctx.config.queuePrefix, QUEUE[key]),
      concurrency: concurrency[key],
      lockDuration: options.lockDurationMs ?? 30_000,
      stalledInterval: options.stalledIntervalMs ?? 30_000,
      maxStalledCount: 5,
      ...(telemetry ? { telemetry } : {}),
    });
    worker.on('completed', () => jobsTotal.inc({ queue: QUEUE[key], outcome: 'completed' }));
    worker.on('failed', (job, err) => {
      jobsTotal.inc({ queue: QUEUE[key], outcome: 'failed' });
      // A failed attempt's job fails on purpose, for Bull Board; the attempt is recorded with its delivery.
      // A sweep's failed run was logged by its sweep.
      const level = err instanceof AttemptFailedError || err instanceof SweepFailedError ? 'debug' : 'warn';
      ctx.logger[level](
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

  const periods = schedulerPeriods(ctx.config);
  const keeper = new SchedulerKeeper({
    schedulers: {
      upsert: () => upsertSchedulers(producers, periods),
      missing: () => missingSchedulers(producers),
    },
    logger: ctx.logger,
    redisReady: () => connection.status === 'ready',
    catchUp: async () => {
      await Promise.allSettled([sweeps.outbox(), sweeps.renewal()]);
    },
    expireLinks: () => sweeps.linkExpiryTick(),
    checkMs: SCHEDULER_CHECK_MS,
    tickMs: ctx.config.workers.linkExpiryTickMs,
  });
  // Ready since the workers above were: every 'ready' from here on is a reconnection, after which
  // Redis may have come back empty.
  let reconnectedAt = Number.NEGATIVE_INFINITY;
  connection.on('ready', () => {
    reconnectedAt = Date.now();
    keeper.restore('reconnected').catch((err: unknown) => {
      ctx.logger.warn({ err }, 'job schedulers not upserted after the reconnection; the guard retries');
    });
  });
  await keeper.restore('start');
  keeper.start();

  ctx.logger.info(
    { redis: describeRedis(redis), queues: Object.values(QUEUE), concurrency },
    'workers started',
  );
  return {
    producers,
    sweeps: {
      outbox: sweeps.runs.outbox,
      renewal: sweeps.runs.renewal,
      linkExpiry: sweeps.runs['link-expiry'],
    },
    async close() {
      // Lane runners finish what is in flight and hand their lanes on to the other workers.
      stopping = true;
      // Each worker's blocking connection (BullMQ's copy of this one) reconnects after an outage on
      // its own backoff, at most 2 s apart. Closed while one waits to reconnect, a worker never
      // finishes closing (ioredis emits no 'end' for a connection between attempts) and its
      // lock-renewal timer runs on: close only once the copies have had their turn.
      const settleMs = reconnectedAt + RECONNECT_SETTLE_MS - Date.now();
      if (settleMs > 0) await delay(settleMs);
      await keeper.stop();
      // A worker whose active job vanished with Redis's data can wait for it forever: bounded.
      const graceMs = options.closeGraceMs ?? ctx.config.webhooks.timeoutMs + 5000;
      const closed = await Promise.race([
        Promise.all(workers.map((w) => w.close())).then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), graceMs).unref()),
      ]);
      if (!closed) ctx.logger.warn({ graceMs }, 'workers still busy after the grace period; closing anyway');
      for (const runs of Object.values(sweeps.runs)) runs.stop();
      await producers.close();
      mailer.close();
      await closeHttpAgents();
      connection.disconnect();
    },
  };
}

/** Longer than ioredis's longest wait between reconnection attempts (2 s). */
const RECONNECT_SETTLE_MS = 2500;

/**
 * How often each worker checks that Redis still holds the job schedulers: a flush without a
 * reconnection is found within a second, the expiry promise.
 */
const SCHEDULER_CHECK_MS = 1000;
