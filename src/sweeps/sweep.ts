import { publishAfterCommit } from '../events/publish.js';
import { abandonOverdueOrders } from '../orders/abandonment.js';
import { sweepRenewals } from '../orders/renewals.js';
import { sweepReconciliations } from '../orders/settlement.js';
import { expireDueLink } from '../payment-links/expiry.js';
import { overdueLinks } from '../payment-links/repository.js';
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
}

/**
 * The safety net of every delayed piece of work (PostgreSQL is the system of record, Redis only
 * holds work in flight): the outbox and the delivery lanes, links whose expiry job was lost, and
 * pending orders whose abandonment job was lost. Each part finds what is overdue in PostgreSQL.
 */
export async function sweepOnce(
  ctx: AppContext,
  options: SweepOptions = DEFAULT_SWEEP,
): Promise<SweepReport> {
  const deliveries = await sweepDeliveries(ctx, options);
  let links = 0;
  for (const linkId of await overdueLinks(ctx.db, 1000, options.batch)) {
    const eventId = await expireDueLink(ctx.db, linkId);
    if (eventId) {
      publishAfterCommit(ctx, [eventId]);
      links += 1;
    }
  }
  const abandoned = await abandonOverdueOrders(ctx, 1000, options.batch);
  publishAfterCommit(ctx, abandoned);
  return { ...deliveries, links, orders: abandoned.length };
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
      if (report.events + report.lanes + report.links + report.orders > 0)
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
