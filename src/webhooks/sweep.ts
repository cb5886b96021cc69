import type { JobOf, Producers, QueueKey } from '../../queues/index.js';
import { jobIds } from '../../queues/index.js';
import { publishAfterCommit } from '../events/publish.js';
import { abandonOverdueOrders } from '../orders/abandonment.js';
import { expireDueLink } from '../payment-links/expiry.js';
import { overdueLinks } from '../payment-links/repository.js';
import type { AppContext } from '../shared/context.js';
import { overdueDeliveries, unrelayedEvents } from './repository.js';

export interface SweepOptions {
  /** Events younger than this are left to the fast path. */
  eventGraceMs: number;
  /** Pending deliveries overdue by more than this get their job re-enqueued. */
  deliveryGraceMs: number;
  batch: number;
}

export const DEFAULT_SWEEP: SweepOptions = { eventGraceMs: 2000, deliveryGraceMs: 15_000, batch: 500 };

/**
 * Makes sure a job with this deterministic id is on its way. Waiting, delayed and active jobs are
 * left alone (a stalled active job is BullMQ's to retry); a finished one whose work is still due in
 * PostgreSQL (it failed for good, or Redis lost it) is replaced. Returns whether it enqueued.
 */
export async function ensureJob<Q extends QueueKey>(
  producers: Producers,
  key: Q,
  jobId: string,
  data: JobOf<Q>,
): Promise<boolean> {
  const existing = await producers.queue(key).getJob(jobId);
  if (existing) {
    const state = await existing.getState();
    if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return false;
    await existing.remove();
  }
  await producers.add(key, jobId, data);
  return true;
}

export interface SweepReport {
  events: number;
  deliveries: number;
  links: number;
  orders: number;
}

/**
 * The safety net of the outbox (PostgreSQL is the system of record, Redis only holds work in
 * flight): relays committed events the fast path missed, re-enqueues deliveries whose next job was
 * lost (crash, Redis restart without persistence), expires links whose expiry job was lost, and
 * abandons pending orders whose abandonment job was lost.
 */
export async function sweepOnce(
  ctx: AppContext,
  options: SweepOptions = DEFAULT_SWEEP,
): Promise<SweepReport> {
  const report: SweepReport = { events: 0, deliveries: 0, links: 0, orders: 0 };
  const { producers } = ctx;

  for (const id of await unrelayedEvents(ctx.db, options.eventGraceMs, options.batch)) {
    if (await ensureJob(producers, 'outbox', jobIds.outbox(id), { eventId: id })) report.events += 1;
  }

  for (const { deliveryId, eventId, attempts } of await overdueDeliveries(
    ctx.db,
    options.deliveryGraceMs,
    options.batch,
  )) {
    // A first attempt belongs to its event's relay job (which may just be queued behind others):
    // ensuring that one, rather than adding a delivery job, never sends the first attempt twice.
    const enqueued =
      attempts === 0
        ? await ensureJob(producers, 'outbox', jobIds.outbox(eventId), { eventId })
        : await ensureJob(producers, 'deliveries', jobIds.deliveries(deliveryId, attempts + 1), {
            deliveryId,
            attempt: attempts + 1,
          });
    if (enqueued) report.deliveries += 1;
  }

  for (const linkId of await overdueLinks(ctx.db, 1000, options.batch)) {
    const eventId = await expireDueLink(ctx.db, linkId);
    if (eventId) {
      publishAfterCommit(ctx, [eventId]);
      report.links += 1;
    }
  }

  const abandoned = await abandonOverdueOrders(ctx, 1000, options.batch);
  publishAfterCommit(ctx, abandoned);
  report.orders = abandoned.length;
  return report;
}

/** Runs `sweepOnce` every `intervalMs` (never two at once) and right after Redis comes back. */
export class Sweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly intervalMs: number,
    private readonly options: SweepOptions = DEFAULT_SWEEP,
  ) {}

  start(): void {
    this.schedule(0);
  }

  /** Sweep as soon as possible (e.g. Redis reconnected). */
  kick(): void {
    if (this.stopped || this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.run().finally(() => {
        this.running = undefined;
        this.schedule(this.intervalMs);
      });
    }, ms);
  }

  private async run(): Promise<void> {
    try {
      const report = await sweepOnce(this.ctx, this.options);
      if (report.events + report.deliveries + report.links + report.orders > 0)
        this.ctx.logger.info(report, 'outbox sweep recovered work');
    } catch (err) {
      this.ctx.logger.warn({ err }, 'outbox sweep failed; retrying at the next interval');
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
