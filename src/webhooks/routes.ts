import type { AppContext } from '../shared/context.js';
import { DELIVERY_STATUSES } from '../shared/enums/delivery-statuses.js';
import { operation, route, type Route } from '../shared/http/operation.js';
import { panelPrincipal } from '../shared/http/principal.js';
import { errors, json, ref } from '../shared/openapi/builders.js';
import { references } from '../shared/validation/references.js';
import { v } from '../shared/validation/typed.js';
import { listDeliveries, resendDelivery, type DeliveryView } from './deliveries-service.js';

const MAX_INT4 = 2_147_483_647;
const MAX_ID = Number.MAX_SAFE_INTEGER;

const integrationParams = v.object({
  id: v
    .required(v.integer().min(1).max(MAX_INT4))
    .description('Integration id')
    .meta(references({ operationId: 'listIntegrations', property: 'id' })),
});
const deliveryParams = v.object({
  id: v
    .required(v.integer().min(1).max(MAX_INT4))
    .description('Integration id')
    .meta(references({ operationId: 'listIntegrations', property: 'id' })),
  delivery_id: v
    .required(v.integer().min(1).max(MAX_ID))
    .description('Delivery id')
    .meta(
      references({ operationId: 'listIntegrationDeliveries', property: 'id', parameters: { id: '{id}' } }),
    ),
});
const listQuery = v.object({
  status: v.enum(DELIVERY_STATUSES),
  limit: v.defaulted(v.integer().min(1).max(100), 20),
  starting_after: v
    .integer()
    .min(1)
    .max(MAX_ID)
    .description('`id` of the last delivery of the previous page')
    .meta(
      references({ operationId: 'listIntegrationDeliveries', property: 'id', parameters: { id: '{id}' } }),
    ),
});

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function toDeliveryWire(d: DeliveryView): Record<string, unknown> {
  return {
    object: 'delivery',
    id: d.id,
    event_id: d.eventId,
    event_type: d.eventType,
    integration_id: d.integrationId,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: iso(d.nextAttemptAt),
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
    attempt_history: d.history.map((a) => ({
      attempt: a.attempt,
      requested_at: a.requestedAt.toISOString(),
      status_code: a.statusCode,
      error: a.error,
      duration_ms: a.durationMs,
      response_body: a.responseBody,
    })),
  };
}

const tags = ['Deliveries'];

/** Delivery history and resend of one integration (panel API). */
export function deliveriesRoutes(ctx: AppContext): Route[] {
  return [
    route(
      operation({
        method: 'get',
        path: '/integrations/{id}/deliveries',
        operationId: 'listIntegrationDeliveries',
        summary: 'Deliveries of an integration with every attempt, newest first',
        tags,
        request: { params: integrationParams, query: listQuery },
        responses: { '200': json(ref('DeliveryList'), 'One page of deliveries'), ...errors('404') },
      }),
      async ({ params, query }, res) => {
        const page = await listDeliveries(ctx.db, panelPrincipal(res).companyId, params.id, query);
        res.json({ object: 'list', data: page.deliveries.map(toDeliveryWire), has_more: page.hasMore });
      },
    ),
    route(
      operation({
        method: 'post',
        path: '/integrations/{id}/deliveries/{delivery_id}/resend',
        operationId: 'resendDelivery',
        summary:
          'Send a delivery again (same event, same webhook-id); refused while pending or when the integration is inactive',
        tags,
        request: { params: deliveryParams },
        responses: {
          '202': json(ref('Delivery'), 'The delivery, pending again; the attempt runs in the background'),
          ...errors('404', '409'),
        },
      }),
      async ({ params }, res) => {
        const delivery = await resendDelivery(
          ctx,
          panelPrincipal(res).companyId,
          params.id,
          params.delivery_id,
        );
        res.status(202).json(toDeliveryWire(delivery));
      },
    ),
  ];
}
