import { events } from '../shared/db/schema.js';
import type { Executor } from '../shared/db/index.js';
import { currentTraceCarrier } from '../shared/tracing.js';
import { dateTime } from '../shared/openapi/builders.js';
import type { JsonSchema } from '../shared/openapi/types.js';
import { EVENT_ID_PATTERN, newEventId } from '../shared/ids.js';
import { SENT_WHEN, type EventKind } from './kinds.js';

export interface NewEvent {
  companyId: number;
  type: EventKind;
  livemode: boolean;
  /** Simulated events: `test` and `sandbox` are both true in the envelope. */
  test: boolean;
  /** The order's product, for routing; null means no product filter applies. */
  productId: number | null;
  /** The integration an operational event describes: routing never sends the event to it. */
  subjectIntegrationId?: number;
  data: Record<string, unknown>;
}

/** The body every receiver gets (docs/api.md, "Event envelope"); a type alias, so the payload column takes it as it is. */
export type EventEnvelope = {
  id: string;
  type: string;
  created_at: string;
  livemode: boolean;
  test: boolean;
  sandbox: boolean;
  data: Record<string, unknown>;
};

/**
 * The bytes a webhook carries for a stored envelope (the payload column as `pg` reads it back). The
 * events API answers the same object, so an item of `GET /v1/events` is these bytes too.
 */
export const webhookBody = (payload: Record<string, unknown>): string => JSON.stringify(payload);

export interface RecordedEvent {
  id: string;
  envelope: EventEnvelope;
}

/** The envelope of an event (docs/api.md, "Event envelope"). */
export function envelopeOf(
  id: string,
  event: Pick<NewEvent, 'type' | 'livemode' | 'test' | 'data'>,
  createdAt: Date,
): EventEnvelope {
  return {
    id,
    type: event.type,
    created_at: createdAt.toISOString(),
    livemode: event.livemode,
    test: event.test,
    sandbox: event.test,
    data: event.data,
  };
}

/** `order.payment_declined` → `OrderPaymentDeclinedEvent`: the component name of a kind's envelope. */
export const eventSchemaName = (kind: EventKind): string =>
  `${kind
    .split(/[._]/)
    .map((word) => `${word.charAt(0).toUpperCase()}${word.slice(1)}`)
    .join('')}Event`;

/**
 * The schema of the envelope `envelopeOf` builds, for one kind; `data` is the schema of that kind's
 * payload, which the module of its builder gives.
 */
export function envelopeSchema(kind: EventKind, data: JsonSchema): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'type', 'created_at', 'livemode', 'test', 'sandbox', 'data'],
    description: SENT_WHEN[kind],
    properties: {
      id: {
        type: 'string',
        pattern: EVENT_ID_PATTERN.source,
        description: 'Also the `webhook-id` header: the same on every retry',
      },
      type: { const: kind },
      created_at: dateTime,
      livemode: { type: 'boolean' },
      test: { type: 'boolean', description: 'Simulated and test events' },
      sandbox: { type: 'boolean', description: 'Always equal to `test`' },
      data,
    },
  };
}

/**
 * Writes an event into the outbox. Call it with the transaction that makes the state change, so
 * the change and its event commit (or roll back) together; then call `publishAfterCommit`. The
 * active trace context is stored with it.
 */
export async function recordEvent(tx: Executor, event: NewEvent): Promise<RecordedEvent> {
  const [recorded] = await recordEvents(tx, [event]);
  if (!recorded) throw new Error('recordEvents returned no event');
  return recorded;
}

/** `recordEvent` for many events at once, in one INSERT (a batch of expiries, say), in their order. */
export async function recordEvents(tx: Executor, list: NewEvent[]): Promise<RecordedEvent[]> {
  if (list.length === 0) return [];
  const createdAt = new Date();
  // The request's trace (tracing on): the relay, wherever and whenever it runs, continues it.
  const traceContext = currentTraceCarrier();
  const rows = list.map((event) => {
    const id = newEventId();
    return {
      id,
      companyId: event.companyId,
      type: event.type,
      livemode: event.livemode,
      test: event.test,
      productId: event.productId,
      integrationId: event.subjectIntegrationId ?? null,
      payload: envelopeOf(id, event, createdAt),
      createdAt,
      traceContext,
    };
  });
  await tx.insert(events).values(rows);
  return rows.map((row) => ({ id: row.id, envelope: row.payload }));
}
