import { QueueEvents } from 'bullmq';
import { jobIds, Producers, QUEUE } from '../../queues/index.js';
import type { AppContext } from '../shared/context.js';

const producers = new WeakMap<AppContext, Producers>();

/**
 * Producers for the request path: they share the context's fail-fast Redis connection, so a Redis
 * outage costs a request nothing; whatever could not be enqueued is picked up by the outbox sweep.
 */
export function producersFor(ctx: AppContext): Producers {
  let p = producers.get(ctx);
  if (!p) {
    p = new Producers(ctx.redis, ctx.config.queuePrefix, true);
    producers.set(ctx, p);
  }
  return p;
}

/** Closes the request-path queues of a context (tests and shutdown). */
export async function closeProducers(ctx: AppContext): Promise<void> {
  const p = producers.get(ctx);
  producers.delete(ctx);
  const events = simulateEvents.get(ctx);
  simulateEvents.delete(ctx);
  await Promise.all([p?.close(), events?.close()]);
}

/**
 * Fast path of the outbox: enqueue the relay of events that just committed. Never throws and never
 * blocks the caller on Redis; a failure only delays the events until the next sweep.
 */
export function publishAfterCommit(ctx: AppContext, eventIds: string[], via: Producers = producersFor(ctx)): void {
  for (const eventId of eventIds) {
    via.add('outbox', jobIds.outbox(eventId), { eventId }).catch((err: unknown) => {
      ctx.logger.warn({ err, eventId }, 'outbox fast path failed; the sweep will relay the event');
    });
  }
}

/**
 * Schedules the expiry job of a link (deterministic id per link and expiry time, so a changed
 * `expires_at` gets its own job and the old one finds nothing to do). Never throws: the sweep
 * expires overdue links whose job was lost.
 */
export function scheduleLinkExpiry(ctx: AppContext, link: { id: string; expiresAt: Date }, via: Producers = producersFor(ctx)): void {
  const delay = Math.max(0, link.expiresAt.getTime() - Date.now());
  via.add('linkExpiry', jobIds.linkExpiry(link.id, link.expiresAt), { linkId: link.id }, { delay }).catch((err: unknown) => {
    ctx.logger.warn({ err, linkId: link.id }, 'could not schedule link expiry; the sweep will expire it');
  });
}

const simulateEvents = new WeakMap<AppContext, QueueEvents>();

/**
 * The simulate queue's completion events, for requests that wait on their dispatch job. QueueEvents
 * blocks on a stream read, so it gets its own connection (never the shared fail-fast one).
 */
export async function simulateEventsFor(ctx: AppContext): Promise<QueueEvents> {
  let events = simulateEvents.get(ctx);
  if (!events) {
    events = new QueueEvents(QUEUE.simulate, {
      connection: patientRedisOptions(ctx),
      prefix: ctx.config.queuePrefix,
    });
    events.on('error', () => undefined); // reconnection is automatic; a waiting request times out
    simulateEvents.set(ctx, events);
  }
  await events.waitUntilReady();
  return events;
}

/** Where the context's Redis is, for a connection that waits for Redis rather than failing fast. */
export function patientRedisOptions(ctx: AppContext) {
  const { host, port, username, password, db, tls } = ctx.redis.options;
  return { host, port, username, password, db, tls, maxRetriesPerRequest: null };
}
