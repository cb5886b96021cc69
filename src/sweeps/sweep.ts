import { sweepEmails } from '../emails/sweep.js';
import { publishAfterCommit } from '../events/publish.js';
import { abandonOverdueOrders } from '../orders/abandonment.js';
import { sweepRenewals } from '../orders/renewals.js';
import { sweepReconciliations } from '../orders/settlement.js';
import { EXPIRY_BATCH, expireDueBatch } from '../payment-links/expiry.js';
import type { AppContext } from '../shared/context.js';
import { sweepRuns } from '../shared/metrics.js';
import { sweepDeliveries, type DeliverySweepOptions } from '../webhooks/sweep.js';

export type SweepOptions = DeliverySweepOptions;

export const DEFAULT_SWEEP: SweepOptions = { eventGraceMs: 2000, deliveryGraceMs: 15_000, batch: 500 };

export interface SweepReport {
  events: number;
  lanes: number;
  links: number;
  orders: number;
  /** E-mails queued for missed events, and jobs added again for waiting messages. */
  emails: number;
}

/**
 * The safety net of every delayed piece of work (PostgreSQL is the system of record, Redis only
 * holds work in flight): the outbox and the delivery lanes, links past expires_at (the expiry tick's
 * work, should it be stopped), and pending orders whose abandonment job was lost. Each part finds
 * what is overdue in PostgreSQL.
 */
export async function sweepOnce(
  ctx: AppContext,
  options: SweepOptions = DEFAULT_SWEEP,
): Promise<SweepReport> {
  const deliveries = await sweepDeliveries(ctx, options);
  const links = await expireDueLinksNow(ctx, options.batch);
  const abandoned = await abandonOverdueOrders(ctx, 1000, options.batch);
  publishAfterCommit(ctx, abandoned);
  const emails = await sweepEmails(ctx, {
    eventGraceMs: options.eventGraceMs,
    messageGraceMs: options.deliveryGraceMs,
    batch: options.batch,
  });
  return { ...deliveries, links, orders: abandoned.length, emails: emails.queued + emails.requeued };
}

/**
 * Expires every link whose expires_at has passed, a batch per transaction, each link with its
 * `order.expired` event, and publishes the events once committed. Several workers at once take
 * disjoint batches (the rows are locked, skipping those another holds). Returns how many expired.
 */
export async function expireDueLinksNow(
  ctx: Pick<AppContext, 'db' | 'producers' | 'logger'>,
  batch = EXPIRY_BATCH,
): Promise<number> {
  let expired = 0;
  for (;;) {
    const eventIds = await expireDueBatch(ctx.db, batch);
    publishAfterCommit(ctx, eventIds);
    expired += eventIds.length;
    if (eventIds.length < batch) return expired;
  }
}

/**
 * The expiry tick: every LINK_EXPIRY_TICK_MS (at most a second), the links whose expires_at has
 * passed, found through the partial index on expires_at of active links. Nothing is scheduled
 * per link, so a restart or the loss of Redis loses nothing: the deadline is the row.
 */
export function linkExpiryTicker(ctx: AppContext, intervalMs: number): Periodic {
  // Four ticks a second: a PostgreSQL outage is logged when it starts and when it ends, not at each.
  let failing = false;
  return new Periodic(intervalMs, async () => {
    try {
      await expireDueLinksNow(ctx);
      if (failing) ctx.logger.info('link expiry tick recovered');
      failing = false;
    } catch (err) {
      if (!failing) ctx.logger.warn({ err }, 'link expiry tick failed; retrying at every tick');
      failing = true;
    }
  });
}

/** Runs `work` every `intervalMs` (never two at once), and at once when kicked. */
export class Periodic {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** Runs finished so far. */
  private finished = 0;
  private waiters: Array<{ runs: number; resolve: () => void; reject: (err: Error) => void }> = [];

  constructor(
    private readonly intervalMs: number,
    private readonly work: () => Promise<void>,
  ) {}

  start(): void {
    this.schedule(0);
  }

  /** Run as soon as possible (e.g. Redis reconnected). */
  kick(): void {
    if (this.stopped || this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.schedule(0);
  }

  /**
   * Resolves once `count` runs that started after this call have finished: what a caller that must
   * show some work was NOT done waits for, instead of a guess at how long the runs take. Rejects if
   * the sweep stops first.
   */
  runsFromNow(count = 1): Promise<void> {
    if (this.stopped) return Promise.reject(new Error('the sweep has stopped'));
    // A run under way started before this call: it does not count.
    const runs = this.finished + count + (this.running ? 1 : 0);
    return new Promise<void>((resolve, reject) => this.waiters.push({ runs, resolve, reject }));
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.work().finally(() => {
        this.running = undefined;
        this.finished += 1;
        const due = this.waiters.filter((w) => w.runs <= this.finished);
        this.waiters = this.waiters.filter((w) => w.runs > this.finished);
        for (const w of due) w.resolve();
        this.schedule(this.intervalMs);
      });
    }, ms);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    for (const w of this.waiters.splice(0))
      w.reject(new Error('the sweep stopped before the runs waited for'));
  }
}

/** The outbox sweep: `sweepOnce` every OUTBOX_SWEEP_MS, and right after Redis comes back. */
export function outboxSweeper(ctx: AppContext, intervalMs: number, options: SweepOptions): Periodic {
  return new Periodic(intervalMs, async () => {
    try {
      const report = await sweepOnce(ctx, options);
      if (report.events + report.lanes + report.links + report.orders + report.emails > 0)
        ctx.logger.info(report, 'outbox sweep recovered work');
      sweepRuns.inc({ sweep: 'outbox', outcome: 'ok' });
    } catch (err) {
      ctx.logger.warn({ err }, 'outbox sweep failed; retrying at the next interval');
      sweepRuns.inc({ sweep: 'outbox', outcome: 'failed' });
    }
  });
}

/**
 * Every RENEWAL_SWEEP_MS: renews subscriptions whose renewal job was lost, and reads from their PSP
 * the charges whose reconciliation job was lost.
 */
export function renewalSweeper(ctx: AppContext, intervalMs: number): Periodic {
  return new Periodic(intervalMs, async () => {
    let outcome: 'ok' | 'failed' = 'ok';
    try {
      const renewed = await sweepRenewals(ctx);
      if (renewed > 0) ctx.logger.info({ renewed }, 'renewal sweep renewed overdue subscriptions');
    } catch (err) {
      outcome = 'failed';
      ctx.logger.warn({ err }, 'renewal sweep failed; retrying at the next interval');
    }
    try {
      const read = await sweepReconciliations(ctx);
      if (read > 0) ctx.logger.info({ read }, 'renewal sweep read overdue charges from their gateway');
    } catch (err) {
      outcome = 'failed';
      ctx.logger.warn({ err }, 'reconciliation sweep failed; retrying at the next interval');
    }
    sweepRuns.inc({ sweep: 'renewal', outcome });
  });
}
