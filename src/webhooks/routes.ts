import type { AppContext } from '../shared/context.js';
import { EVENT_KINDS } from '../events/kinds.js';
import { DELIVERY_STATUSES } from '../shared/enums/delivery-statuses.js';
import { operation, route, type Route } from '../shared/http/operation.js';
import { panelPrincipal } from '../shared/http/principal.js';
import { errors, json, ref } from '../shared/openapi/builders.js';
import { listBody } from '../shared/pagination.js';
import { references } from '../shared/validation/references.js';
import { v } from '../shared/validation/typed.js';
import { getDelivery, listDeliveries, resendDelivery, type DeliveryView } from './deliveries-service.js';
import { RECOVERY_WINDOW_DAYS, requestRecovery } from './recovery.js';
import { sendTestEvent } from './test-send.js';

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
  event_type: v.enum(EVENT_KINDS).description('Only deliveries of events of this kind'),
  since: v.dateTime().description('Only deliveries created at or after this time'),
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

const testSendBody = v.required(
  v.object({
    event: v.required(v.enum(EVENT_KINDS)).description('The kind of example event to send'),
  }),
);
const recoverBody = v.required(
  v.object({
    since: v
      .required(v.dateTime())
      .description(
        `Recover deliveries created at or after this time; at most ${RECOVERY_WINDOW_DAYS} days ago`,
      )
      // A window relative to now has no JSON Schema keyword; this extension states it for tools.
      .meta({ 'x-recent-days': RECOVERY_WINDOW_DAYS }),
  }),
);

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
      request: a.request,
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
        res.json(listBody(page, toDeliveryWire));
      },
    ),
    route(
      operation({
        method: 'get',
        path: '/integrations/{id}/deliveries/{delivery_id}',
        operationId: 'getIntegrationDelivery',
        summary: 'One delivery of an integration with every attempt: what was sent and what came back',
        tags,
        request: { params: deliveryParams },
        responses: { '200': json(ref('Delivery'), 'The delivery'), ...errors('404') },
      }),
      async ({ params }, res) => {
        const delivery = await getDelivery(
          ctx.db,
          panelPrincipal(res).companyId,
          params.id,
          params.delivery_id,
        );
        res.json(toDeliveryWire(delivery));
      },
    ),
    route(
      operation({
        method: 'post',
        path: '/integrations/{id}/deliveries/recover',
        operationId: 'recoverIntegrationDeliveries',
        summary:
          'Send again every failed or skipped delivery created since a time (bulk, in the background); 409 while the integration is inactive',
        tags,
        request: { params: integrationParams, body: recoverBody },
        responses: {
          '202': json(ref('RecoveryAccepted'), 'How many deliveries will be sent again'),
          ...errors('404', '409'),
        },
      }),
      async ({ params, body }, res) => {
        const accepted = await requestRecovery(ctx, panelPrincipal(res).companyId, params.id, body.since);
        res.status(202).json(accepted);
      },
    ),
    route(
      operation({
        method: 'post',
        path: '/integrations/{id}/test',
        operationId: 'sendTestEvent',
        summary:
          'Send one signed example event of a kind (test and sandbox true, a synthetic order) to this integration now',
        tags,
        request: { params: integrationParams, body: testSendBody },
        responses: {
          '200': json(ref('TestSendResult'), 'What the receiver answered'),
          ...errors('404', '409'),
        },
      }),
      async ({ params, body }, res) => {
        res.json(await sendTestEvent(ctx, panelPrincipal(res).companyId, params.id, body.event));
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
