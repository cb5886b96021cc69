import { EVENT_ID_PATTERN } from '../shared/ids.js';
import { references } from '../shared/validation/references.js';
import { v, type Output } from '../shared/validation/typed.js';
import { EVENT_KINDS, isEventKind, type EventKind } from './kinds.js';

const MAX_INT4 = 2_147_483_647;

/** The delivery states `delivery_status` filters by, as a receiver names them. */
export const EVENT_DELIVERY_STATES = ['failed', 'pending', 'delivered'] as const;
export type EventDeliveryState = (typeof EVENT_DELIVERY_STATES)[number];

export const EVENTS_LIST = { default: 20, max: 100 } as const;

/**
 * `type`: repeated (`type=a&type=b`) or comma-separated (`type=a,b`), or both. An unknown kind is a
 * 400 naming `type` and the kinds it did not know.
 */
const eventTypes = () =>
  v.produces<EventKind[]>()(
    v
      .array(v.string().max(500))
      .single()
      .max(20)
      .custom((value: string[], helpers) => {
        const kinds = [...new Set(value.flatMap((item) => item.split(',')).map((k) => k.trim()))];
        const unknown = kinds.filter((kind) => !isEventKind(kind));
        return unknown.length === 0
          ? kinds
          : helpers.message({ custom: `unknown event kind: ${unknown.join(', ').slice(0, 200)}` });
      })
      .meta({ items: { type: 'string', enum: [...EVENT_KINDS] } })
      .description(
        'Only events of these kinds: repeat the parameter (`type=order.paid&type=order.refunded`) or separate kinds with commas',
      ),
  );

export const listEventsQuery = v.object({
  type: eventTypes(),
  created_gte: v.dateTime().description('Only events created at or after this time'),
  created_lte: v.dateTime().description('Only events created at or before this time'),
  integration_id: v
    .integer()
    .min(1)
    .max(MAX_INT4)
    .description('Only events delivered (or being delivered) to this webhook integration of your company')
    .meta(references({ operationId: 'listIntegrations', property: 'id' })),
  delivery_status: v
    .enum(EVENT_DELIVERY_STATES)
    .description(
      'Only the events whose delivery to `integration_id` (without it: to any integration) is in this state ' +
        '(`failed` includes deliveries skipped while the integration was inactive)',
    ),
  limit: v.defaulted(v.integer().min(1).max(EVENTS_LIST.max), EVENTS_LIST.default),
  starting_after: v
    .string()
    .min(1)
    .max(64)
    .description('`id` of the last event of the previous page')
    .meta(references({ operationId: 'listEvents', property: 'id' })),
});
export type ListEventsQuery = Output<typeof listEventsQuery>;

/** An event id in a path: anything but an event of the caller is a 404, never a 400. */
export const eventIdParams = v.object({
  id: v
    .required(v.string())
    .description(`Event id (\`evt_…\`, ${EVENT_ID_PATTERN.source})`)
    .meta(references({ operationId: 'listEvents', property: 'id' })),
});
