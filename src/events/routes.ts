import type { AppContext } from '../shared/context.js';
import { operation, route, type Route } from '../shared/http/operation.js';
import { paymentsPrincipal } from '../shared/http/principal.js';
import { errors, json, ref } from '../shared/openapi/builders.js';
import { listBody } from '../shared/pagination.js';
import { eventIdParams, listEventsQuery } from './schemas.js';
import { getEvent, listEvents } from './service.js';

const tags = ['Events'];

/**
 * The events API of the payments API (`/v1/events`): what the webhooks carried, for a receiver that
 * cannot host an endpoint or must catch up. Read-only keys may call it too.
 */
export function eventsRoutes(ctx: AppContext): Route[] {
  const readOnlyKeys = true;
  return [
    route(
      operation({
        method: 'get',
        path: '/v1/events',
        operationId: 'listEvents',
        summary: 'List the events of your company in the key’s mode, newest first',
        description:
          'Each item is the JSON body the webhooks carried for that event, byte for byte. Payments and read-only keys.',
        tags,
        request: { query: listEventsQuery },
        responses: { '200': json(ref('EventList'), 'One page of events') },
      }),
      async ({ query }, res) => {
        // The stored envelope is the webhook body: no mapper, so nothing can drift from what was sent.
        res.json(listBody(await listEvents(ctx.db, paymentsPrincipal(res), query), (event) => event));
      },
      { readOnlyKeys },
    ),
    route(
      operation({
        method: 'get',
        path: '/v1/events/{id}',
        operationId: 'getEvent',
        summary: 'Get one event: the JSON body its webhooks carried',
        description: 'Payments and read-only keys. Another company’s or mode’s event is a 404.',
        tags,
        request: { params: eventIdParams },
        responses: { '200': json(ref('Event'), 'The event'), ...errors('404') },
      }),
      async ({ params }, res) => {
        res.json(await getEvent(ctx.db, paymentsPrincipal(res), params.id));
      },
      { readOnlyKeys },
    ),
  ];
}
