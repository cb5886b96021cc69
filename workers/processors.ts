import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import Joi from 'joi';
import type { JobOf, JobResults, QueueKey } from '../queues/index.js';
import { publishAfterCommit } from '../src/events/publish.js';
import { abandonDueOrder } from '../src/orders/abandonment.js';
import { runQueuedRefund } from '../src/orders/refunds.js';
import { runRenewal } from '../src/orders/renewals.js';
import { reconcileCharge, settleNotice } from '../src/orders/settlement.js';
import { expireDueLink } from '../src/payment-links/expiry.js';
import type { AppContext } from '../src/shared/context.js';
import type { LaneRunOptions } from '../src/webhooks/lane-runner.js';
import { runDeliveryJob, runLaneJob, runRelayJob } from '../src/webhooks/jobs.js';
import { idsOfKinds, relayEvents } from '../src/webhooks/relay.js';
import { runRecovery } from '../src/webhooks/recovery.js';
import { purgeExpiredSessions } from '../src/dashboard/sessions.js';
import type { Sweeps } from '../src/sweeps/sweep.js';
import { EMAILED_EVENT_KINDS } from '../src/emails/kinds.js';
import { queueEmails } from '../src/emails/relay.js';
import { sendEmail } from '../src/emails/send.js';
import type { Mailer } from '../src/emails/transport.js';
import { pruneExpired } from '../src/webhooks/retention.js';
import { queueInvoices } from '../src/invoices/feed.js';
import { INVOICE_EVENT_KINDS } from '../src/invoices/repository.js';
import { advanceInvoice } from '../src/invoices/issue.js';

const RENEWAL_CLOCK_TOLERANCE_MS = 5000;

const eventId = Joi.string()
  .pattern(/^evt_[0-9A-Za-z]{24}$/)
  .required();
const PAYLOAD_SCHEMAS: { [Q in QueueKey]: Joi.ObjectSchema<JobOf<Q>> } = {
  outbox: Joi.object({
    eventId,
    eventIds: Joi.array().items(eventId).max(1000),
    eventType: Joi.string().max(100),
    failedDeliveries: Joi.array().items(Joi.number().integer().min(1)).max(1000),
    failedIntegrations: Joi.array().items(Joi.number().integer().min(1)).max(1000),
  }),
  deliveries: Joi.object({
    deliveryId: Joi.number().integer().min(1).required(),
    attempt: Joi.number().integer().min(1).max(1000).required(),
    eventType: Joi.string().max(100),
    integrationId: Joi.number().integer().min(1),
    reason: Joi.string().max(2000),
    failedAttempt: Joi.number().integer().min(1).max(1000),
  }),
  linkExpiry: Joi.object({
    linkId: Joi.string()
      .pattern(/^plink_[0-9A-Za-z]{24}$/)
      .required(),
  }),
  simulate: Joi.object({ eventId }),
  renewals: Joi.object({
    subscriptionId: Joi.number().integer().min(1).required(),
    period: Joi.number().integer().min(2).required(),
    attempt: Joi.number().integer().min(1).max(1000),
  }),
  orderAbandonment: Joi.object({ orderCode: Joi.string().guid().required() }),
  deliveryRecovery: Joi.object({ recoveryId: Joi.number().integer().min(1).required() }),
  retention: Joi.object({}),
  deliveryLanes: Joi.object({
    integrationId: Joi.number().integer().min(1).required(),
    generation: Joi.number().integer().min(1).required(),
  }),
  gatewayNotices: Joi.object({
    provider: Joi.string().valid('mercadopago').required(),
    topic: Joi.string().valid('payment', 'chargebacks').required(),
    resourceId: Joi.string()
      .pattern(/^[A-Za-z0-9_-]{1,64}$/)
      .required(),
    accountId: Joi.string()
      .pattern(/^\d{1,20}$/)
      .allow(null)
      .required(),
  }),
  gatewayReconciliation: Joi.object({ orderCode: Joi.string().guid().required() }),
  linkExpiryTick: Joi.object({}),
  outboxSweep: Joi.object({}),
  renewalSweep: Joi.object({}),
  emails: Joi.object({
    messageId: Joi.number().integer().min(1).required(),
    kind: Joi.string().max(40),
  }),
  invoices: Joi.object({
    invoiceId: Joi.number().integer().min(1).required(),
    round: Joi.number().integer().min(1).required(),
  }),
  refunds: Joi.object({ orderCode: Joi.string().guid().required() }),
};

/** A malformed payload is a bug, not a transient failure: fail the job without retrying it. */
function payload<Q extends QueueKey>(queue: Q, job: Job): JobOf<Q> {
  const { value, error } = PAYLOAD_SCHEMAS[queue].validate(job.data, { stripUnknown: true });
  if (error) throw new UnrecoverableError(`invalid ${queue} payload: ${error.message}`);
  return value;
}

export type ProcessorOf<Q extends QueueKey> = (job: Job, token?: string) => Promise<JobResults[Q]>;

/**
 * One thin processor per queue; each validates its payload and calls a service. All are safe to
 * run twice. `workers/index.ts` refuses to start when a queue has none. `ctx` carries the workers'
 * own producers (a connection that waits out a Redis outage).
 */
export function buildProcessors(
  ctx: AppContext,
  lanes: LaneRunOptions,
  sweeps: Sweeps,
  mailer: Mailer,
): { [Q in QueueKey]: ProcessorOf<Q> } {
  return {
    outbox: async (job) => {
      const { result, liveEvents } = await runRelayJob(ctx, payload('outbox', job));
      // The same events' e-mails to buyers, once their webhooks are on their way, and their invoices.
      // Only live events of the kinds each step handles go on (the fan-out read their kinds): each
      // step checks them again, and a job of other events costs it no statement.
      await queueEmails(ctx, idsOfKinds(liveEvents, EMAILED_EVENT_KINDS));
      await queueInvoices(ctx, idsOfKinds(liveEvents, INVOICE_EVENT_KINDS));
      return result;
    },
    invoices: async (job, token) => {
      const { invoiceId, round } = payload('invoices', job);
      const step = await advanceInvoice(ctx, invoiceId, round);
      publishAfterCommit(ctx, step.eventIds);
      if (step.later) {
        // Not due yet, or the provider is still authorising it: this job runs again then.
        await job.moveToDelayed(step.later.getTime(), token);
        throw new DelayedError();
      }
      return { outcome: step.outcome };
    },
    refunds: async (job) => ({ outcome: await runQueuedRefund(ctx, payload('refunds', job).orderCode) }),
    emails: async (job, token) => {
      const { messageId } = payload('emails', job);
      const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      const outcome = await sendEmail(ctx, mailer, messageId, { final });
      if (outcome.kind === 'later') {
        // Its time has not come (a delayed job a moment early), or its company's hourly limit is reached.
        await job.moveToDelayed(outcome.at.getTime(), token);
        throw new DelayedError();
      }
      return { outcome: outcome.kind };
    },
    deliveries: async (job) => runDeliveryJob(ctx, job, payload('deliveries', job)),
    deliveryLanes: async (job, token) => runLaneJob(ctx, job, token, payload('deliveryLanes', job), lanes),
    // No link gets a job of its own any more (the expiry tick finds due links by expires_at); the
    // processor stays for the jobs an earlier version left delayed in Redis.
    linkExpiry: async (job) => {
      const { linkId } = payload('linkExpiry', job);
      const eventId = await expireDueLink(ctx.db, linkId);
      if (eventId) publishAfterCommit(ctx, [eventId]);
      return { expired: eventId !== undefined };
    },
    simulate: async (job) => {
      // Relayed on a queue of its own, so a simulated event never waits behind the outbox.
      await relayEvents(ctx, [payload('simulate', job).eventId]);
      return { relayed: true };
    },
    renewals: async (job) => {
      const { subscriptionId, period, attempt } = payload('renewals', job);
      // A delayed job can fire a moment before its due time by the database's clock; a few seconds
      // early is harmless, while "not due yet" would leave the charge to the sweep.
      const asOf = new Date(Date.now() + RENEWAL_CLOCK_TOLERANCE_MS);
      const charge = { subscriptionId, period, attempt: attempt ?? 0 };
      return { renewed: (await runRenewal(ctx, charge, asOf)) !== undefined };
    },
    deliveryRecovery: async (job) => {
      const { recoveryId } = payload('deliveryRecovery', job);
      return runRecovery(ctx, recoveryId, { onPage: (recovered) => job.updateProgress({ recovered }) });
    },
    retention: async () => ({
      ...(await pruneExpired(ctx.db, ctx.config.retentionDays)),
      dashboardSessions: await purgeExpiredSessions(ctx.db),
    }),
    gatewayNotices: async (job) => ({ applied: await settleNotice(ctx, payload('gatewayNotices', job)) }),
    gatewayReconciliation: async (job) => ({
      outcome: await reconcileCharge(ctx, payload('gatewayReconciliation', job).orderCode),
    }),
    // The job schedulers' runs: one per period for the deployment, each finding its work in PostgreSQL.
    linkExpiryTick: async (job) => {
      payload('linkExpiryTick', job);
      return sweeps.linkExpiryTick();
    },
    outboxSweep: async (job) => {
      payload('outboxSweep', job);
      return sweeps.outbox();
    },
    renewalSweep: async (job) => {
      payload('renewalSweep', job);
      return sweeps.renewal();
    },
    orderAbandonment: async (job, token) => {
      const { orderCode } = payload('orderAbandonment', job);
      const check = await abandonDueOrder(ctx, orderCode);
      if (check && 'dueAt' in check) {
        // Fired before the deadline by this host's clock: wait for it rather than leave it to the sweep.
        await job.moveToDelayed(check.dueAt.getTime(), token);
        throw new DelayedError();
      }
      if (check) publishAfterCommit(ctx, check.eventIds);
      return { abandoned: check !== undefined };
    },
  };
}
