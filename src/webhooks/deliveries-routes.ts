import { Router } from 'express';
import { celebrate, Joi, Segments } from 'celebrate';
import { panelPrincipal } from '../auth/principal.js';
import type { AppContext } from '../shared/context.js';
import { DELIVERY_STATUSES } from '../shared/db/schema.js';
import { listDeliveries, resendDelivery, type DeliveryQuery, type DeliveryView } from './deliveries-service.js';

const id = Joi.number().integer().min(1).max(2_147_483_647);
const listRules = {
  [Segments.PARAMS]: Joi.object({ id: id.required() }),
  [Segments.QUERY]: Joi.object({
    status: Joi.string().valid(...DELIVERY_STATUSES),
    limit: Joi.number().integer().min(1).max(100).default(20),
    starting_after: Joi.number().integer().min(1),
  }),
};
const resendRules = { [Segments.PARAMS]: Joi.object({ id: id.required(), delivery_id: Joi.number().integer().min(1).required() }) };

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

/** Delivery history and resend of one integration (panel API), mounted after panelAuth. */
export function deliveriesRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/integrations/:id/deliveries', celebrate(listRules, { abortEarly: false }), async (req, res) => {
    const { companyId } = panelPrincipal(res);
    const query = req.query as unknown as DeliveryQuery;
    const page = await listDeliveries(ctx.db, companyId, Number(req.params.id), query);
    res.json({ object: 'list', data: page.deliveries.map(toDeliveryWire), has_more: page.hasMore });
  });
  router.post('/integrations/:id/deliveries/:delivery_id/resend', celebrate(resendRules), async (req, res) => {
    const { companyId } = panelPrincipal(res);
    const delivery = await resendDelivery(ctx, companyId, Number(req.params.id), Number(req.params.delivery_id));
    res.status(202).json(toDeliveryWire(delivery));
  });
  return router;
}
