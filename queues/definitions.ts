import type { DefaultJobOptions } from 'bullmq';

/**
 * Queue names as stored in Redis. NEVER rename a value: jobs already waiting under the old name
 * would be orphaned. Add a new entry instead.
 */
export const QUEUE = {
  outbox: 'outbox',
  deliveries: 'deliveries',
  linkExpiry: 'link-expiry',
  simulate: 'simulate',
  renewals: 'renewals',
  orderAbandonment: 'order-abandonment',
  deliveryRecovery: 'delivery-recovery',
  retention: 'retention',
  deliveryLanes: 'delivery-lanes',
  gatewayNotices: 'gateway-notices',
  gatewayReconciliation: 'gateway-reconciliation',
  linkExpiryTick: 'link-expiry-tick',
  outboxSweep: 'outbox-sweep',
  renewalSweep: 'renewal-sweep',
  emails: 'emails',
  invoices: 'invoices',
  refunds: 'refunds',
} as const;

export type QueueKey = keyof typeof QUEUE;
export type QueueName = (typeof QUEUE)[QueueKey];

/**
 * The key prefix of one queue: QUEUE_PREFIX's name with the queue's own name, as one hash tag
 * (`{plinks}` → `{plinks:outbox}`). BullMQ's scripts need every key of a queue in one Redis Cluster
 * slot; a tag per queue puts each queue in a slot of its own, so a cluster spreads the queues over
 * its nodes instead of piling them all on one.
 */
export function queuePrefixFor(base: string, queue: QueueName): string {
  const name = base.replace(/^\{(.*)\}$/, '$1');
  return `{${name}:${queue}}`;
}

/**
 * Job payloads carry ids only: events, integrations and secrets are read from PostgreSQL at run time.
 * `eventType` and `integrationId` are there for a person reading the job in Bull Board; `failed…`
 * marks a job failed on purpose by a failed attempt, so that a retry started from Bull Board is
 * recognised as a request for one more attempt.
 */
export interface JobPayloads {
  /**
   * Relay `eventId` and `eventIds` (events committed in the same turn of the publishing process).
   * `failed…`: a failed outbox job of the engine before delivery lanes, which made first attempts.
   */
  outbox: {
    eventId: string;
    eventIds?: string[];
    eventType?: string;
    failedDeliveries?: number[];
    failedIntegrations?: number[];
  };
  /**
   * One failed attempt, shown in Bull Board: `reason` is the receiver's answer; `failedAttempt` is set
   * once the job has failed, so a retry from the board is told apart from the first run.
   */
  deliveries: {
    deliveryId: number;
    attempt: number;
    eventType?: string;
    integrationId?: number;
    reason?: string;
    failedAttempt?: number;
  };
  /** One link's expiry; only an earlier version enqueued these (the expiry tick expires links now). */
  linkExpiry: { linkId: string };
  simulate: { eventId: string };
  /**
   * Renew one subscription into `period` (1 is the first purchase, so renewals start at 2); with
   * `attempt`, the attempt-th retry of that renewal after its charge failed.
   */
  renewals: { subscriptionId: number; period: number; attempt?: number };
  /** Abandon this order if it is still pending at its deadline. */
  orderAbandonment: { orderCode: string };
  /** Walk one bulk recovery's deliveries page by page; its progress lives in PostgreSQL. */
  deliveryRecovery: { recoveryId: number };
  /** Prune what is older than RETENTION_DAYS (a job scheduler's, hourly; the payload is empty). */
  retention: Record<string, never>;
  /** Run one integration's delivery lane; a job of a replaced `generation` does nothing. */
  deliveryLanes: { integrationId: number; generation: number };
  /**
   * A verified PSP notification: read `resourceId` back from the PSP and apply what it says.
   * `accountId` is the PSP account the notification names (never a token).
   */
  gatewayNotices: {
    provider: 'mercadopago';
    topic: 'payment' | 'chargebacks';
    resourceId: string;
    accountId: string | null;
  };
  /** Read one charge's payment from its PSP (a lost notification must not leave it pending). */
  gatewayReconciliation: { orderCode: string };
  /**
   * The three sweeps are job schedulers (`SCHEDULERS`): one job per period for the whole deployment,
   * whichever worker takes it. Their payload is empty: the work due is read from PostgreSQL.
   */
  linkExpiryTick: Record<string, never>;
  outboxSweep: Record<string, never>;
  renewalSweep: Record<string, never>;
  /**
   * Send one e-mail message (its recipient, words and state live in PostgreSQL); a timed one (a
   * reminder, a renewal notice) is a delayed job. `kind` is there for a person reading Bull Board.
   */
  emails: { messageId: number; kind?: string };
  /**
   * Move one order's service invoice forward (submit, read the provider's answer, cancel); its state
   * lives in PostgreSQL (order_invoices), the token in the integration's sealed secrets. `round`
   * counts the retries and cancel requests that started a job of their own.
   */
  invoices: { invoiceId: number; round: number };
  /**
   * Refund one order at its gateway, asked by its buyer while the gateway did not answer (who asked
   * and why live in PostgreSQL, on the order).
   */
  refunds: { orderCode: string };
}

/** The payload of a queue's jobs (after Immich's `JobOf<T>`). */
export type JobOf<Q extends QueueKey> = JobPayloads[Q];

export interface JobResults {
  outbox: { relayed: boolean };
  deliveries: { outcome: string };
  linkExpiry: { expired: boolean };
  simulate: { relayed: boolean };
  renewals: { renewed: boolean };
  orderAbandonment: { abandoned: boolean };
  deliveryRecovery: { recovered: number };
  retention: { events: number; deliveries: number; attempts: number };
  deliveryLanes: { outcome: string; sent: number };
  gatewayNotices: { applied: string };
  gatewayReconciliation: { outcome: string };
  linkExpiryTick: { expired: number };
  outboxSweep: { events: number; lanes: number; links: number; orders: number };
  renewalSweep: { renewed: number; read: number };
  emails: { outcome: string };
  invoices: { outcome: string };
  refunds: { outcome: string };
}

const DAY = 24 * 3600;

/**
 * Retention keeps Redis bounded (by age and count), while completed ids linger long enough to
 * deduplicate a re-add of the same deterministic job id. Failed jobs stay a week for inspection.
 */
const retention = {
  removeOnComplete: { age: DAY, count: 10_000 },
  removeOnFail: { age: 7 * DAY, count: 50_000 },
} satisfies DefaultJobOptions;

const sweepRetention = {
  removeOnComplete: { age: 3600, count: 100 },
  removeOnFail: { age: DAY, count: 100 },
  attempts: 1,
} satisfies DefaultJobOptions;

/**
 * BullMQ-level retries cover infrastructure errors only (PostgreSQL or Redis unreachable while a
 * job runs); webhook retries follow the delivery schedule in each integration's lane.
 */
export const DEFAULT_JOB_OPTIONS: Record<QueueKey, DefaultJobOptions> = {
  // One per event, and PostgreSQL's claim makes a relay idempotent: keep few once done, so Redis does
  // not grow with a burst of events (a backlog for a receiver that is down, say).
  outbox: {
    removeOnComplete: { age: 3600, count: 1000 },
    removeOnFail: { age: 7 * DAY, count: 10_000 },
    attempts: 10,
    backoff: { type: 'exponential', delay: 1000 },
  },
  // The Bull Board face of failed attempts: bounded, so a failing receiver cannot fill Redis.
  deliveries: {
    removeOnComplete: { age: DAY, count: 1000 },
    removeOnFail: { age: 7 * DAY, count: 10_000 },
    attempts: 10,
    backoff: { type: 'exponential', delay: 1000 },
  },
  linkExpiry: { ...retention, attempts: 10, backoff: { type: 'exponential', delay: 2000 } },
  simulate: {
    removeOnComplete: { age: 3600, count: 1000 },
    removeOnFail: { age: DAY, count: 1000 },
    attempts: 1,
  },
  renewals: { ...retention, attempts: 10, backoff: { type: 'exponential', delay: 2000 } },
  orderAbandonment: { ...retention, attempts: 10, backoff: { type: 'exponential', delay: 2000 } },
  deliveryRecovery: { ...retention, attempts: 20, backoff: { type: 'exponential', delay: 2000 } },
  retention: { removeOnComplete: { count: 100 }, removeOnFail: { count: 100 }, attempts: 3 },
  // Lane jobs are many and short-lived (each generation is its own job): keep few once done.
  deliveryLanes: {
    removeOnComplete: { age: 3600, count: 1000 },
    removeOnFail: { age: DAY, count: 1000 },
    attempts: 20,
    backoff: { type: 'exponential', delay: 1000 },
  },
  // A PSP down when its notification is read: the job retries over about an hour, and the charge's
  // reconciliation reads it again later anyway.
  gatewayNotices: { ...retention, attempts: 12, backoff: { type: 'exponential', delay: 2000 } },
  gatewayReconciliation: { ...retention, attempts: 12, backoff: { type: 'exponential', delay: 2000 } },
  // A scheduler's run that failed is not retried: the next period's run does the same work. A few
  // are kept for Bull Board (the tick makes four a second).
  linkExpiryTick: sweepRetention,
  outboxSweep: sweepRetention,
  renewalSweep: sweepRetention,
  // An SMTP server that refuses for a while (4xx, down): ten tries over about four hours (15 s
  // doubling), then the message is recorded failed. The message's row is the record of each attempt.
  emails: { ...retention, attempts: 10, backoff: { type: 'exponential', delay: 15_000 } },
  // A provider down or slow: twelve tries over about two hours (2 s doubling), then the invoice waits
  // for the sweep or a retry from the panel. Reading an accepted invoice's answer is a delayed job of
  // its own (the job moves itself), not a retry.
  invoices: { ...retention, attempts: 12, backoff: { type: 'exponential', delay: 2000 } },
  // A gateway down when a buyer asked for a refund: fifteen tries over about eighteen hours (2 s
  // doubling); after the last the order stays `paid` with its refund asked, and the sweep adds it again.
  refunds: { ...retention, attempts: 15, backoff: { type: 'exponential', delay: 2000 } },
};

/**
 * Whether a queue's jobs join the trace that added them (tracing on): a producer span where the job
 * is added, a consumer span where it runs, and what the job does as the consumer's children. The
 * webhook engine's lanes and failed attempts carry their trace in PostgreSQL instead: a lane job
 * sends one integration's deliveries for seconds, each POST continuing its own event's stored trace.
 */
export const QUEUE_TRACED: Record<QueueKey, boolean> = {
  outbox: true,
  deliveries: false,
  linkExpiry: true,
  simulate: true,
  renewals: true,
  orderAbandonment: true,
  deliveryRecovery: true,
  retention: true,
  deliveryLanes: false,
  gatewayNotices: true,
  gatewayReconciliation: true,
  // Four a second whether or not there is work: a trace each would bury the ones that matter.
  linkExpiryTick: false,
  outboxSweep: false,
  renewalSweep: false,
  emails: true,
  invoices: true,
  refunds: true,
};

/** The queues whose jobs only their job scheduler adds, by scheduler id (one per queue). */
export const SCHEDULERS = {
  linkExpiryTick: 'link-expiry-tick',
  outboxSweep: 'outbox-sweep',
  renewalSweep: 'renewal-sweep',
  retention: 'retention-hourly',
} as const satisfies Partial<Record<QueueKey, string>>;

export type ScheduledQueueKey = keyof typeof SCHEDULERS;

/** Deterministic job ids make every producer idempotent: adding the same id twice is a no-op. */
export const jobIds = {
  outbox: (eventId: string): string => `evt-${eventId}`,
  deliveries: (deliveryId: number, attempt: number): string => `dlv-${deliveryId}-${attempt}`,
  linkExpiry: (linkId: string, expiresAt: Date): string => `expire-${linkId}-${expiresAt.getTime()}`,
  simulate: (eventId: string): string => `sim-${eventId}`,
  renewals: (subscriptionId: number, period: number): string => `renew-${subscriptionId}-${period}`,
  renewalRetries: (subscriptionId: number, period: number, attempt: number): string =>
    `renew-${subscriptionId}-${period}-retry-${attempt}`,
  orderAbandonment: (orderCode: string): string => `abandon-${orderCode}`,
  deliveryRecovery: (recoveryId: number): string => `recover-${recoveryId}`,
  deliveryLanes: (integrationId: number, generation: number): string => `lane-${integrationId}-${generation}`,
  /** One job per notification MP sent (its x-request-id), so MP's own retries of it run once. */
  gatewayNotices: (provider: string, topic: string, resourceId: string, requestId: string): string =>
    `notice-${provider}-${topic}-${resourceId}-${requestId}`,
  gatewayReconciliation: (orderCode: string, read: number): string => `reconcile-${orderCode}-${read}`,
  emails: (messageId: number): string => `email-${messageId}`,
  invoices: (invoiceId: number, round: number): string => `invoice-${invoiceId}-${round}`,
  refunds: (orderCode: string): string => `refund-${orderCode}`,
};

export const QUEUE_KEYS = Object.keys(QUEUE) as QueueKey[];
