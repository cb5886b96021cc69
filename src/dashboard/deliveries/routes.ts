/**
 * An integration's deliveries: one delivery's page and its resend, recovering every failed one
 * since a time, and the filter of the list on the integration's page.
 */
import { Router, type Request } from 'express';
import { EVENT_KINDS } from '../../events/kinds.js';
import type { AppContext } from '../../shared/context.js';
import { DELIVERY_STATUSES } from '../../shared/enums/delivery-statuses.js';
import { ValidationError } from '../../shared/errors.js';
import { v } from '../../shared/validation/typed.js';
import { getDelivery, resendDelivery } from '../../webhooks/deliveries-service.js';
import { requestRecovery } from '../../webhooks/recovery.js';
import { dashboardLocale } from '../locale.js';
import { sendPage } from '../page.js';
import {
  bigId,
  brasiliaInstant,
  brasiliaTime,
  doneQuery,
  formOf,
  integrationId,
  pageQuery,
  pathPart,
  queryOf,
} from '../params.js';
import { companyOf, signedIn } from '../session-guard.js';
import { deliveryPage, type DeliveryFilter } from './views.js';

const deliveriesQuery = pageQuery({
  from: brasiliaTime().empty(''),
  to: brasiliaTime().empty(''),
  status: v.enum(DELIVERY_STATUSES).empty(''),
  event_type: v.enum(EVENT_KINDS).empty(''),
  starting_after: bigId().empty(''),
});

/** The list's filter as the form sent it, and the times it means. */
export type ListedDeliveries = DeliveryFilter & {
  starting_after?: number | undefined;
  since?: string | undefined;
  until?: string | undefined;
};

/** The filter of an integration's deliveries, from the page's query. */
export function deliveryFilterOf(req: Request): ListedDeliveries {
  // Other parameters of the address (`lang`, `done`) pass the schema: only the filter's are taken.
  const { from, to, status, event_type, starting_after } = queryOf(req, deliveriesQuery);
  const since = from === undefined ? undefined : brasiliaInstant(from);
  // `to` names a minute: deliveries created during it are in.
  const until =
    to === undefined ? undefined : new Date(Date.parse(brasiliaInstant(to)) + 60_000).toISOString();
  if (since !== undefined && until !== undefined && since >= until)
    throw ValidationError.field('to', 'must be after from');
  return { from, to, status, event_type, starting_after, since, until };
}

const recoverForm = v.object({ since: v.required(brasiliaTime().trim()) }).unknown(true);

export function deliveriesRoutes(ctx: AppContext): Router {
  const router = Router({ caseSensitive: true });

  router.get('/integrations/:id/deliveries/:delivery', async (req, res) => {
    const chrome = signedIn(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const id = pathPart(integrationId(), req.params.id);
    const delivery = await getDelivery(
      ctx.db,
      chrome.principal.companyId,
      id,
      pathPart(bigId(), req.params.delivery),
    );
    const { done } = queryOf(req, doneQuery);
    sendPage(res, 200, page, deliveryPage(page, chrome, { integrationId: id, delivery, done }));
  });

  router.post('/integrations/:id/deliveries/:delivery/resend', async (req, res) => {
    const id = pathPart(integrationId(), req.params.id);
    const deliveryId = pathPart(bigId(), req.params.delivery);
    await resendDelivery(ctx, companyOf(req), id, deliveryId);
    res.redirect(
      303,
      dashboardLocale(req).href(`/integrations/${id}/deliveries/${deliveryId}`, { done: 'resent' }),
    );
  });

  // Every failed or skipped delivery since a time (Brasília's), sent again in the background.
  router.post('/integrations/:id/recover', async (req, res) => {
    const id = pathPart(integrationId(), req.params.id);
    const since = brasiliaInstant(formOf(req, recoverForm).since);
    const { recovered } = await requestRecovery(ctx, companyOf(req), id, since);
    res.redirect(303, dashboardLocale(req).href(`/integrations/${id}`, { done: 'recovered', n: recovered }));
  });

  return router;
}
