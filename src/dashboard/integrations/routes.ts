/**
 * The integrations: the list with their health, creating one, and one integration's page with its
 * changes (re-enable, URL, settings, test send, rotate the secret, delete). Their deliveries are
 * `deliveries/`'s.
 */
import { Router, type Request, type Response } from 'express';
import { stringOf } from '../../integrations/kinds/config-values.js';
import type { ProductRow } from '../../catalog/repository.js';
import { listProducts } from '../../catalog/service.js';
import { EVENT_KINDS } from '../../events/kinds.js';
import type { EventPathCheck } from '../../integrations/filters.js';
import { integrationBodies } from '../../integrations/schemas.js';
import { mercadoPagoState, startMercadoPagoConnection } from '../../gateways/accounts/state.js';
import * as integrations from '../../integrations/service.js';
import type { AppContext } from '../../shared/context.js';
import { ValidationError } from '../../shared/errors.js';
import { v } from '../../shared/validation/typed.js';
import {
  companyRecentAttemptCounts,
  listDeliveries,
  recentAttemptCounts,
} from '../../webhooks/deliveries-service.js';
import { sendTestEvent, type TestSendResult } from '../../webhooks/test-send.js';
import { deliveryFilterOf, type ListedDeliveries } from '../deliveries/routes.js';
import type { FormProblems } from '../forms.js';
import { dashboardLocale } from '../locale.js';
import type { DoneKey } from '../messages.js';
import { canChange, confirmPage, sendPage, type Chrome } from '../page.js';
import {
  byApiSchema,
  doneQuery,
  fitting,
  formOf,
  integrationId,
  pathPart,
  queryOf,
  sentList,
  sentText,
} from '../params.js';
import { fieldProblems } from '../problems.js';
import { changing, companyOf, requireChrome, signedIn } from '../session-guard.js';
import { parseFilterText, parseHeadersText } from './rules.js';
import {
  integrationPage,
  integrationsPage,
  newIntegrationPage,
  routingFields,
  type IntegrationFormValues,
} from './views.js';
import {
  adPixelConfigOf,
  adPixelForm,
  adPixelProblems,
  newAdPixelPage,
  NO_AD_PIXEL,
  withoutCredentials,
} from './ad-pixel.js';

/** The default overlap of a rotation from the dashboard: the old secret signs for one more day. */
const ROTATION_OVERLAP_SECONDS = 86_400;

const EMPTY_FORM: IntegrationFormValues = {
  type: 'webhook',
  url: '',
  events: [],
  sendToAllProducts: true,
  productIds: [],
  rateLimit: '',
};

/**
 * The create and settings forms as they were sent, shown again as they were when refused; their
 * content is checked by the panel API's own schemas (`validated`).
 */
const integrationForm = v
  .object({
    type: sentText(),
    url: sentText(),
    events: sentList(),
    send_to_all_products: sentText(),
    products: sentList(),
    rate_limit_per_second: sentText(),
  })
  .unknown(true);

/** Each product ticked, as an id; one that is not an id reads as no product (refused by `checkProducts`). */
const productIdsOf = (sent: string[]): number[] =>
  sent.map((text) => fitting(integrationId(), text) ?? Number.NaN);

function integrationFormOf(req: Request): IntegrationFormValues {
  const sent = formOf(req, integrationForm);
  return {
    type: sent.type || 'webhook',
    url: sent.url,
    events: sent.events,
    sendToAllProducts: sent.send_to_all_products === 'true',
    productIds: productIdsOf(sent.products),
    rateLimit: sent.rate_limit_per_second,
  };
}

/** The rate limit as the panel API takes it: empty is no limit, anything but digits is left to its schema. */
const rateLimitOf = (text: string): number | string | null =>
  text === '' ? null : /^[0-9]{1,9}$/.test(text) ? Number(text) : text;

/** Every product ticked is one of the company's. */
function checkProducts(ids: number[], products: ProductRow[]): void {
  if (ids.some((id) => !products.some((p) => p.id === id)))
    throw ValidationError.field('products', 'must be products of this company');
}

const urlForm = v.object({ url: v.required(v.string().trim()) }).unknown(true);
const filterForm = v.object({ filter: v.defaulted(v.string().allow('').max(20_000), '') }).unknown(true);
const headersForm = v.object({ headers: v.defaulted(v.string().allow('').max(20_000), '') }).unknown(true);
const testForm = v.object({ event: v.required(v.enum(EVENT_KINDS).trim()) }).unknown(true);

export function integrationsRoutes(ctx: AppContext, eventPaths: EventPathCheck): Router {
  const router = Router({ caseSensitive: true });
  const deps = { ...ctx, eventPaths };

  router.get('/integrations', async (req, res) => {
    const chrome = signedIn(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const { companyId } = chrome.principal;
    const [items, counts, gateway] = await Promise.all([
      integrations.listIntegrations(ctx.db, companyId, undefined),
      companyRecentAttemptCounts(ctx.db, companyId),
      mercadoPagoState(ctx, companyId),
    ]);
    const { done } = queryOf(req, doneQuery);
    const health = items.map(({ row }) => ({ row, counts: counts.get(row.id) }));
    // The Connect button's form leads to MP's consent page: a form may go there, nowhere else.
    const formTargets = ctx.config.mercadoPago ? [new URL(ctx.config.mercadoPago.authUrl).origin] : [];
    sendPage(res, 200, page, integrationsPage(page, chrome, health, done, gateway), { formTargets });
  });

  // Connect Mercado Pago: the company's gateway waits for its authorization, and the browser goes to
  // MP's consent page, which sends it back to the panel's OAuth callback, then here.
  router.post('/integrations/mercadopago', async (req, res) => {
    const { companyId } = requireChrome(req).principal;
    const page = dashboardLocale(req);
    const address = await startMercadoPagoConnection(deps, companyId);
    res.redirect(303, address ?? page.href('/integrations?done=gateway_connected'));
  });

  router.get('/integrations/new', async (req, res) => {
    const chrome = changing(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const products = await listProducts(ctx.db, chrome.principal.companyId);
    sendPage(res, 200, page, newIntegrationPage(page, chrome, { values: EMPTY_FORM, products }));
  });

  // Created through the panel API's service, with its product links in the same transaction.
  router.post('/integrations', async (req, res) => {
    const chrome = requireChrome(req);
    const page = dashboardLocale(req);
    const { companyId } = chrome.principal;
    const values = integrationFormOf(req);
    const products = await listProducts(ctx.db, companyId);
    try {
      const input = byApiSchema(integrationBodies().create, {
        type: values.type,
        config: { url: values.url },
        events: values.events,
        send_to_all_products: values.sendToAllProducts,
        rate_limit_per_second: rateLimitOf(values.rateLimit),
      });
      checkProducts(values.productIds, products);
      const created = await integrations.createIntegration(deps, companyId, input, values.productIds);
      res.redirect(303, page.href(`/integrations/${created.row.id}`, { done: 'created' }));
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      const problems = fieldProblems(page, err);
      sendPage(res, 400, page, newIntegrationPage(page, chrome, { values, products, problems }));
    }
  });

  // Ad platforms (docs/ad-conversions.md): the provider's fields, then the events and products.
  const newAdPixel = async (req: Request, chrome: Chrome, sent?: Request) => {
    const page = dashboardLocale(req);
    const products = await listProducts(ctx.db, chrome.principal.companyId);
    const values = sent ? formOf(sent, adPixelForm) : NO_AD_PIXEL;
    const routingValues = sent
      ? integrationFormOf(sent)
      : { ...EMPTY_FORM, type: 'ad_pixel', events: ['order.paid'] };
    return { page, products, values, routingValues };
  };
  router.get('/integrations/new-ad-pixel', async (req, res) => {
    const chrome = changing(req, res);
    if (!chrome) return;
    const { page, products, values, routingValues } = await newAdPixel(req, chrome);
    const routing = routingFields(page, routingValues, products, undefined);
    sendPage(res, 200, page, newAdPixelPage(page, chrome, { values, routing, products }));
  });
  router.post('/integrations/ad-pixel', async (req, res) => {
    const chrome = requireChrome(req);
    const { page, products, values, routingValues } = await newAdPixel(req, chrome, req);
    try {
      const input = byApiSchema(integrationBodies().create, {
        type: 'ad_pixel',
        config: adPixelConfigOf(values),
        events: routingValues.events,
        send_to_all_products: routingValues.sendToAllProducts,
        rate_limit_per_second: rateLimitOf(routingValues.rateLimit),
      });
      checkProducts(routingValues.productIds, products);
      const created = await integrations.createIntegration(
        deps,
        chrome.principal.companyId,
        input,
        routingValues.productIds,
      );
      res.redirect(303, page.href(`/integrations/${created.row.id}`, { done: 'created' }));
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      const problems = adPixelProblems(page, err);
      const routing = routingFields(page, routingValues, products, fieldProblems(page, err));
      sendPage(
        res,
        400,
        page,
        newAdPixelPage(page, chrome, { values: withoutCredentials(values), routing, products, problems }),
      );
    }
  });
  router.post('/integrations/:id/ad-pixel', async (req, res) => {
    const id = pathPart(integrationId(), req.params.id);
    const config = adPixelConfigOf(formOf(req, adPixelForm));
    await integrations.updateIntegration(
      deps,
      companyOf(req),
      id,
      byApiSchema(integrationBodies().update, { config }),
    );
    res.redirect(303, dashboardLocale(req).href(`/integrations/${id}`, { done: 'saved' }));
  });

  /** The integration's page, after a GET or as the answer of a change that stays on it. */
  async function renderIntegration(
    req: Request,
    res: Response,
    chrome: Chrome,
    extra: {
      status?: number | undefined;
      done?: DoneKey | undefined;
      doneExtra?: string | undefined;
      newSecret?: string | undefined;
      tested?: TestSendResult | undefined;
      settingsProblems?: FormProblems | undefined;
      settingsValues?: IntegrationFormValues | undefined;
    } = {},
  ): Promise<void> {
    const page = dashboardLocale(req);
    const id = pathPart(integrationId(), req.params.id);
    const { companyId } = chrome.principal;
    // A change's answer shows the list unfiltered: the query of a POST is the form's, not a filter.
    const filter: ListedDeliveries = req.method === 'GET' ? deliveryFilterOf(req) : {};
    const [integration, deliveries, counts, products] = await Promise.all([
      integrations.getIntegration(ctx.db, companyId, id),
      listDeliveries(ctx.db, companyId, id, { ...filter, limit: 25 }),
      recentAttemptCounts(ctx.db, [id]),
      canChange(chrome) ? listProducts(ctx.db, companyId) : [],
    ]);
    const { status = 200, ...rest } = extra;
    sendPage(
      res,
      status,
      page,
      integrationPage(page, chrome, {
        row: integration.row,
        links: integration.links,
        products,
        counts: counts.get(id),
        deliveries: deliveries.items,
        hasMore: deliveries.hasMore,
        filter: { status: filter.status, event_type: filter.event_type, from: filter.from, to: filter.to },
        ...rest,
      }),
    );
  }

  router.get('/integrations/:id', async (req, res) => {
    const chrome = signedIn(req, res);
    if (!chrome) return;
    const { done, n } = queryOf(req, doneQuery);
    const doneExtra =
      done === 'recovered' && n !== undefined ? dashboardLocale(req).t.recovered(n) : undefined;
    await renderIntegration(req, res, chrome, { done, doneExtra });
  });

  router.post('/integrations/:id/enable', async (req, res) => {
    const id = pathPart(integrationId(), req.params.id);
    await integrations.updateIntegration(deps, companyOf(req), id, { is_active: true });
    res.redirect(303, dashboardLocale(req).href(`/integrations/${id}`, { done: 'enabled' }));
  });

  router.post('/integrations/:id/url', async (req, res) => {
    const id = pathPart(integrationId(), req.params.id);
    const { url } = formOf(req, urlForm);
    await integrations.updateIntegration(deps, companyOf(req), id, { config: { url } });
    res.redirect(303, dashboardLocale(req).href(`/integrations/${id}`, { done: 'url_saved' }));
  });

  // The filter and the headers, each checked by the API's own schema, then by its service, as a PATCH is.
  router.post('/integrations/:id/filter', async (req, res) => {
    const id = pathPart(integrationId(), req.params.id);
    const input = byApiSchema(integrationBodies().update, {
      filter: parseFilterText(formOf(req, filterForm).filter),
    });
    await integrations.updateIntegration(deps, companyOf(req), id, input);
    res.redirect(303, dashboardLocale(req).href(`/integrations/${id}`, { done: 'saved' }));
  });

  router.post('/integrations/:id/headers', async (req, res) => {
    const id = pathPart(integrationId(), req.params.id);
    const companyId = companyOf(req);
    const { row } = await integrations.getIntegration(ctx.db, companyId, id);
    const headers = parseHeadersText(formOf(req, headersForm).headers);
    const input = byApiSchema(integrationBodies().update, {
      config: { url: stringOf(row.config, 'url') ?? '', headers },
    });
    await integrations.updateIntegration(deps, companyId, id, input);
    res.redirect(303, dashboardLocale(req).href(`/integrations/${id}`, { done: 'saved' }));
  });

  // Events, products and rate limit, as the API's PATCH and product links change them.
  router.post('/integrations/:id/settings', async (req, res) => {
    const chrome = requireChrome(req);
    const id = pathPart(integrationId(), req.params.id);
    const { companyId } = chrome.principal;
    const values = integrationFormOf(req);
    try {
      const input = byApiSchema(integrationBodies().update, {
        events: values.events,
        send_to_all_products: values.sendToAllProducts,
        rate_limit_per_second: rateLimitOf(values.rateLimit),
      });
      checkProducts(values.productIds, await listProducts(ctx.db, companyId));
      await integrations.updateIntegration(deps, companyId, id, input, values.productIds);
      res.redirect(303, dashboardLocale(req).href(`/integrations/${id}`, { done: 'saved' }));
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      await renderIntegration(req, res, chrome, {
        status: 400,
        settingsProblems: fieldProblems(dashboardLocale(req), err),
        settingsValues: values,
      });
    }
  });

  // The outcome is this answer's: a test send leaves nothing behind to show on a later page.
  router.post('/integrations/:id/test', async (req, res) => {
    const chrome = requireChrome(req);
    const id = pathPart(integrationId(), req.params.id);
    const { event } = formOf(req, testForm);
    const tested = await sendTestEvent(ctx, chrome.principal.companyId, id, event);
    await renderIntegration(req, res, chrome, { tested });
  });

  router.get('/integrations/:id/delete', async (req, res) => {
    const chrome = changing(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const id = pathPart(integrationId(), req.params.id);
    const { row } = await integrations.getIntegration(ctx.db, chrome.principal.companyId, id);
    sendPage(
      res,
      200,
      page,
      confirmPage(page, chrome, {
        title: page.t.confirm.deleteIntegration,
        question: page.t.confirm.deleteQuestion(id, stringOf(row.config, 'url') ?? row.type),
        hint: page.t.confirm.deleteHint,
        action: `/integrations/${id}/delete`,
        submit: page.t.confirm.deleteSubmit,
        back: page.href(`/integrations/${id}`),
      }),
    );
  });

  router.post('/integrations/:id/delete', async (req, res) => {
    await integrations.deleteIntegration(ctx.db, companyOf(req), pathPart(integrationId(), req.params.id));
    res.redirect(303, dashboardLocale(req).href('/integrations', { done: 'deleted' }));
  });

  router.get('/integrations/:id/rotate-secret', async (req, res) => {
    const chrome = changing(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const id = pathPart(integrationId(), req.params.id);
    await integrations.getIntegration(ctx.db, chrome.principal.companyId, id);
    sendPage(
      res,
      200,
      page,
      confirmPage(page, chrome, {
        title: page.t.integration.rotate,
        question: page.t.confirm.rotateQuestion(id),
        action: `/integrations/${id}/rotate-secret`,
        submit: page.t.integration.rotateSubmit,
        back: page.href(`/integrations/${id}`),
      }),
    );
  });

  // The new secret is shown in this answer only (no redirect, never cached): it is not shown again.
  router.post('/integrations/:id/rotate-secret', async (req, res) => {
    const chrome = requireChrome(req);
    const id = pathPart(integrationId(), req.params.id);
    const rotated = await integrations.rotateSecret(ctx.db, chrome.principal.companyId, id, {
      old_secret_expires_in_seconds: ROTATION_OVERLAP_SECONDS,
    });
    await renderIntegration(req, res, chrome, { newSecret: stringOf(rotated.row.config, 'secret') });
  });

  return router;
}
