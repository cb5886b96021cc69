import type { Db } from '../shared/db/index.js';
import { NotFoundError, ValidationError } from '../shared/errors.js';
import type { PaymentsPrincipal } from '../shared/http/principal.js';
import { cursorPage, type Page } from '../shared/pagination.js';
import {
  companyHasIntegration,
  eventExists,
  findEvent,
  listEvents as listEventRows,
  type StoredEnvelope,
} from './repository.js';
import type { EventDeliveryState, ListEventsQuery } from './schemas.js';

/** The delivery rows' statuses behind each state a receiver names. */
const STATUSES_OF: Record<EventDeliveryState, readonly string[]> = {
  delivered: ['succeeded'],
  pending: ['pending'],
  // A delivery skipped while the integration was inactive never reached it either (recover sends both).
  failed: ['failed', 'skipped'],
};

/**
 * `GET /v1/events`: the company's events in the key's mode, newest first, keyset-paginated as the
 * links list is. `delivery_status` alone reads the deliveries to any of the company's integrations.
 * An integration of another company, or a cursor that is not an event of this company and mode, is a 400 naming the parameter.
 */
export async function listEvents(
  db: Db,
  principal: PaymentsPrincipal,
  query: ListEventsQuery,
): Promise<Page<StoredEnvelope>> {
  const scope = { companyId: principal.companyId, livemode: principal.livemode };
  if (
    query.integration_id !== undefined &&
    !(await companyHasIntegration(db, scope.companyId, query.integration_id))
  )
    throw ValidationError.field('integration_id', 'is not the id of an integration of this company');
  return cursorPage(
    {
      value: query.starting_after,
      isOwn: (eventId) => eventExists(db, scope, eventId),
      names: 'id of an event of this company and mode',
      resolvedByQuery: true,
    },
    query.limit,
    () =>
      listEventRows(db, {
        ...scope,
        ...(query.type !== undefined ? { types: query.type } : {}),
        ...(query.created_gte !== undefined ? { createdGte: new Date(query.created_gte) } : {}),
        ...(query.created_lte !== undefined ? { createdLte: new Date(query.created_lte) } : {}),
        ...(query.integration_id !== undefined ? { integrationId: query.integration_id } : {}),
        ...(query.delivery_status !== undefined
          ? { deliveryStatuses: STATUSES_OF[query.delivery_status] }
          : {}),
        ...(query.starting_after !== undefined ? { startingAfter: query.starting_after } : {}),
        limit: query.limit,
      }),
  );
}

/** `GET /v1/events/{id}`: another company's, another mode's or an unknown event is a 404. */
export async function getEvent(
  db: Db,
  principal: PaymentsPrincipal,
  eventId: string,
): Promise<StoredEnvelope> {
  const found = await findEvent(
    db,
    { companyId: principal.companyId, livemode: principal.livemode },
    eventId,
  );
  if (!found) throw new NotFoundError(`No event ${eventId.slice(0, 64)} in this company and mode`);
  return found;
}
