import { sweepEmails } from '../emails/sweep.js';
import { sweepInvoices } from '../invoices/feed.js';
import { publishAfterCommit } from '../events/publish.js';
import { abandonOverdueOrders } from '../orders/abandonment.js';
import { sweepQueuedRefunds } from '../orders/refunds.js';
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
  /** Jobs added again for service invoices whose job was lost (docs/invoices.md). */
  invoices: number;
  /** Jobs added again for buyers' refunds queued while the gateway was down (docs/api.md, "The buyer's page"). */
  refunds: number;
}

/**
 * The safety net of every delayed piece of work (PostgreSQL is the system of record, Redis only
 * holds work in flight): the outbox and the delivery lanes, links past expires_at (the expiry tick's
 * work, should it be late), and pending orders whose abandonment job was lost. Each part finds
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
  const invoices = await sweepInvoices(ctx, options.deliveryGraceMs, options.batch);
  const refunds = await sweepQueuedRefunds(ctx, options.deliveryGraceMs, options.batch);
  return {
    ...deliveries,
    links,
    orders: abandoned.length,
    emails: emails.queued + emails.requeued,
    invoices,
    refunds,
  };
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

/** A sweep's name in logs and in `sweep_runs_total`. */
export type SweepName = 'link-expiry' | 'outbox' | 'renewal';

/**
 * A sweep's run failed (and was logged as its sweep logs failures): its job fails for Bull Board to
 * show, and the next period's run does the same work.
 */
export class SweepFailedError extends Error {
  constructor(sweep: SweepName, cause: unknown) {
    super(`${sweep} sweep failed`, { cause });
    this.name = 'SweepFailedError';
  }
}

/**
 * Counts the runs of one sweep in this process, so that a caller can wait for the runs that start
 * after it asked: what a test that must show some work was NOT done waits for, instead of a guess
 * at how long the runs take. Runs can overlap (a catch-up pass beside a scheduled run).
 */
export class SweepRuns {
  private started = 0;
  private stopped = false;
  private waiters: Array<{ after: number; left: number; resolve: () => void; reject: (err: Error) => void }> =
    [];

  async run<T>(work: () => Promise<T>): Promise<T> {
    const run = ++this.started;
    try {
      return await work();
    } finally {
      for (const w of this.waiters) if (run > w.after) w.left -= 1;
      for (const w of this.waiters.filter((x) => x.left <= 0)) w.resolve();
      this.waiters = this.waiters.filter((w) => w.left > 0);
    }
  }

  /**
   * Resolves once `count` runs that started after this call have finished. Rejects if the workers
   * stop first.
   */
  runsFromNow(count = 1): Promise<void> {
    if (this.stopped) return Promise.reject(new Error('the sweep has stopped'));
    return new Promise<void>((resolve, reject) =>
      this.waiters.push({ after: this.started, left: count, resolve, reject }),
    );
  }

  stop(): void {
    this.stopped = true;
    for (const w of this.waiters.splice(0))
      w.reject(new Error('the sweep stopped before the runs waited for'));
  }
}

/**
 * One run of each sweep: what the job schedulers' jobs run (one per period for the whole
 * deployment, whichever worker takes it), and what a worker runs itself as its catch-up pass. Each
 * finds its work in PostgreSQL, so a run is safe beside another (rows are claimed or locked, jobs
 * have deterministic ids). A failed run is logged, counted and thrown as `SweepFailedError`.
 */
export interface Sweeps {
  /** Links past expires_at, expired with their `order.expired` (every LINK_EXPIRY_TICK_MS). */
  linkExpiryTick(): Promise<{ expired: number }>;
  /** `sweepOnce`: the outbox, lanes, overdue links and orders (every OUTBOX_SWEEP_MS). */
  outbox(): Promise<SweepReport>;
  /** Renewals and reconciliation reads whose job was lost (every RENEWAL_SWEEP_MS). */
  renewal(): Promise<{ renewed: number; read: number }>;
  /** The runs of each in this process. */
  runs: Record<SweepName, SweepRuns>;
}

export function sweeps(ctx: AppContext, options: SweepOptions = DEFAULT_SWEEP): Sweeps {
  const runs: Record<SweepName, SweepRuns> = {
    'link-expiry': new SweepRuns(),
    outbox: new SweepRuns(),
    renewal: new SweepRuns(),
  };
  // Four ticks a second: a PostgreSQL outage is logged when it starts and when it ends, not at each.
  let tickFailing = false;
  return {
    runs,
    linkExpiryTick: () =>
      runs['link-expiry'].run(async () => {
        try {
          const expired = await expireDueLinksNow(ctx);
          if (tickFailing) ctx.logger.info('link expiry tick recovered');
          tickFailing = false;
          sweepRuns.inc({ sweep: 'link-expiry', outcome: 'ok' });
          return { expired };
        } catch (err) {
          if (!tickFailing) ctx.logger.warn({ err }, 'link expiry tick failed; retrying at every tick');
          tickFailing = true;
          sweepRuns.inc({ sweep: 'link-expiry', outcome: 'failed' });
          throw new SweepFailedError('link-expiry', err);
        }
      }),
    outbox: () =>
      runs.outbox.run(async () => {
        try {
          const report = await sweepOnce(ctx, options);
          if (report.events + report.lanes + report.links + report.orders + report.emails > 0)
            ctx.logger.info(report, 'outbox sweep recovered work');
          sweepRuns.inc({ sweep: 'outbox', outcome: 'ok' });
          return report;
        } catch (err) {
          ctx.logger.warn({ err }, 'outbox sweep failed; retrying at the next run');
          sweepRuns.inc({ sweep: 'outbox', outcome: 'failed' });
          throw new SweepFailedError('outbox', err);
        }
      }),
    renewal: () =>
      runs.renewal.run(async () => {
        let failure: unknown;
        let renewed = 0;
        let read = 0;
        try {
          renewed = await sweepRenewals(ctx);
          if (renewed > 0) ctx.logger.info({ renewed }, 'renewal sweep renewed overdue subscriptions');
        } catch (err) {
          failure = err;
          ctx.logger.warn({ err }, 'renewal sweep failed; retrying at the next run');
        }
        try {
          read = await sweepReconciliations(ctx);
          if (read > 0) ctx.logger.info({ read }, 'renewal sweep read overdue charges from their gateway');
        } catch (err) {
          failure ??= err;
          ctx.logger.warn({ err }, 'reconciliation sweep failed; retrying at the next run');
        }
        sweepRuns.inc({ sweep: 'renewal', outcome: failure === undefined ? 'ok' : 'failed' });
        if (failure !== undefined) throw new SweepFailedError('renewal', failure);
        return { renewed, read };
      }),
  };
}

/** Runs `work` every `intervalMs` (never two at once), the first time `intervalMs` after `start`. */
export class Periodic {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly intervalMs: number,
    private readonly work: () => Promise<void>,
  ) {}

  start(): void {
    this.schedule(this.intervalMs);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.work()
        .catch(() => undefined)
        .finally(() => {
          this.running = undefined;
          this.schedule(this.intervalMs);
        });
    }, ms);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
