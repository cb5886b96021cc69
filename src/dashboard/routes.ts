/**
 * The dashboard at `/dashboard`: the panel API's services behind a browser session instead of a
 * bearer token. Every page is a GET; every change is a POST form that carries the session's CSRF
 * token and comes from this very origin. Read-only sessions see no changing forms and get 403 if
 * they post anyway.
 */
import express, { type Request, type Response, type Router } from 'express';
import { listProducts } from '../catalog/service.js';
import type { ProductRow } from '../catalog/repository.js';
import type { SafeHtml } from '../ui/html.js';
import { EVENT_KINDS, isEventKind } from '../events/kinds.js';
import { createIntegrationBody, updateIntegrationBody } from '../integrations/schemas.js';
import * as integrations from '../integrations/service.js';
import { createKey, listKeys, revokeKey } from '../keys/service.js';
import {
  cancelSubscription,
  getOrder,
  getSubscription,
  listOrders,
  listSubscriptions,
  refundFromPanel,
} from '../orders/panel-service.js';
import type { AppContext } from '../shared/context.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../shared/enums/delivery-statuses.js';
import { ORDER_STATUSES } from '../shared/enums/order-statuses.js';
import { SUBSCRIPTION_STATUSES } from '../shared/enums/subscription-statuses.js';
import { AppError, NotFoundError, PermissionError, ValidationError } from '../shared/errors.js';
import { errorHandler } from '../shared/http/errors.js';
import { bodyGuard, queryGuard } from '../shared/http/request-guards.js';
import { fieldErrors } from '../shared/validation/fields.js';
import type { Output } from '../shared/validation/typed.js';
import {
  companyRecentAttemptCounts,
  getDelivery,
  listDeliveries,
  recentAttemptCounts,
  resendDelivery,
} from '../webhooks/deliveries-service.js';
import { requestRecovery } from '../webhooks/recovery.js';
import { sendTestEvent, type TestSendResult } from '../webhooks/test-send.js';
import { dashboardLocale, type DashboardLocale } from './locale.js';
import type { DoneKey } from './messages.js';
import { fieldProblems, problemSentences } from './problems.js';
import {
  csrfMatches,
  findSession,
  openSession,
  revokeSession,
  SESSION_TTL_MS,
  type DashboardSession,
} from './sessions.js';
import {
  canChange,
  confirmPage,
  DASHBOARD_ASSETS,
  deliveryPage,
  errorPageOf,
  newIntegrationPage,
  type FormProblems,
  type IntegrationFormValues,
  integrationPage,
  integrationsPage,
  signInPage,
  type Chrome,
  keysPage,
  ordersPage,
  subscriptionsPage,
  type DeliveryFilter,
  type OrderFilter,
  type SubscriptionFilter,
} from './views.js';

export const SESSION_COOKIE = 'plinks_dashboard';
const MAX_INT4 = 2_147_483_647;
const DONE_KEYS: readonly DoneKey[] = [
  'enabled',
  'url_saved',
  'resent',
  'recovered',
  'signed_out',
  'refunded',
  'canceled',
  'cancel_scheduled',
  'revoked',
  'created',
  'saved',
  'deleted',
];
const ORDER_CODE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The default overlap of a rotation from the dashboard: the old secret signs for one more day. */
const ROTATION_OVERLAP_SECONDS = 86_400;

/** Pages run and style themselves with this service's own files only (the copy buttons' script). */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/**
 * Dashboard pages are never cached or framed and run only the copy script; their addresses are sent
 * as Referer to this origin only (a browser then also sends Origin on the forms, rather than `null`).
 */
function sendPage(res: Response, status: number, page: DashboardLocale, body: SafeHtml): void {
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Language': page.t.locale,
      Vary: 'Accept-Language, Cookie',
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'same-origin',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Content-Security-Policy': CSP,
    })
    .send(body.value);
}

/** The value of one cookie of the request, undefined when absent or sent more than once. */
function cookieOf(req: Request, name: string): string | undefined {
  const found = (req.get('cookie') ?? '')
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${name}=`))
    .map((part) => part.slice(name.length + 1));
  return found.length === 1 ? found[0] : undefined;
}

const sessions = new WeakMap<Request, { id: string; session: DashboardSession }>();

const chromeOf = (req: Request): Chrome | undefined => {
  const found = sessions.get(req);
  return found && { principal: found.session.principal, csrfToken: found.session.csrfToken };
};

/** The signed-in session of a page; without one a GET goes to the sign-in page (see `signedIn`). */
function requireChrome(req: Request): Chrome {
  const chrome = chromeOf(req);
  if (!chrome) throw new PermissionError('Not signed in');
  return chrome;
}

const companyOf = (req: Request): number => requireChrome(req).principal.companyId;

function idParam(value: unknown): number {
  const id = typeof value === 'string' && /^[1-9][0-9]{0,9}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(id) || id > MAX_INT4) throw new NotFoundError('Not found');
  return id;
}

function bigIdParam(value: unknown): number {
  const id = typeof value === 'string' && /^[1-9][0-9]{0,15}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(id)) throw new NotFoundError('Not found');
  return id;
}

function oneQuery(req: Request, name: string): string | undefined {
  const value: unknown = req.query[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw ValidationError.field(name, 'must be given once');
  return value;
}

type ListedDeliveries = DeliveryFilter & {
  starting_after?: number | undefined;
  since?: string | undefined;
  until?: string | undefined;
};

function deliveryFilter(req: Request): ListedDeliveries {
  const status = oneQuery(req, 'status');
  const eventType = oneQuery(req, 'event_type');
  const after = oneQuery(req, 'starting_after');
  const from = oneQuery(req, 'from');
  const to = oneQuery(req, 'to');
  const since = from === undefined ? undefined : brasiliaInstant(from, 'from');
  // `to` names a minute: deliveries created during it are in.
  const until =
    to === undefined ? undefined : new Date(Date.parse(brasiliaInstant(to, 'to')) + 60_000).toISOString();
  if (since !== undefined && until !== undefined && since >= until)
    throw ValidationError.field('to', 'must be after from');
  const knownStatus = DELIVERY_STATUSES.find((s) => s === status);
  if (status !== undefined && !knownStatus) throw ValidationError.field('status', 'is not a delivery status');
  if (eventType !== undefined && !EVENT_KINDS.some((k) => k === eventType))
    throw ValidationError.field('event_type', 'is not an event type');
  let startingAfter: number | undefined;
  if (after !== undefined) {
    if (!/^[1-9][0-9]{0,15}$/.test(after))
      throw ValidationError.field('starting_after', 'must be a delivery id');
    startingAfter = Number(after);
  }
  const filter: ListedDeliveries = {};
  if (knownStatus) filter.status = knownStatus satisfies DeliveryStatus;
  if (eventType !== undefined) filter.event_type = eventType;
  if (startingAfter !== undefined) filter.starting_after = startingAfter;
  if (from !== undefined) filter.from = from;
  if (to !== undefined) filter.to = to;
  if (since !== undefined) filter.since = since;
  if (until !== undefined) filter.until = until;
  return filter;
}

function orderCodeParam(value: unknown): string {
  if (typeof value !== 'string' || !ORDER_CODE.test(value)) throw new NotFoundError('Not found');
  return value.toLowerCase();
}

function orderFilter(req: Request): OrderFilter & { starting_after?: string | undefined } {
  const status = oneQuery(req, 'status');
  const mode = oneQuery(req, 'mode');
  const after = oneQuery(req, 'starting_after');
  const knownStatus = ORDER_STATUSES.find((s) => s === status);
  if (status !== undefined && !knownStatus) throw ValidationError.field('status', 'is not an order status');
  if (mode !== undefined && mode !== 'live' && mode !== 'test')
    throw ValidationError.field('mode', 'must be live or test');
  if (after !== undefined && !ORDER_CODE.test(after))
    throw ValidationError.field('starting_after', 'must be an order code');
  return { status: knownStatus, mode, starting_after: after };
}

function subscriptionFilter(req: Request): SubscriptionFilter & { starting_after?: number | undefined } {
  const status = oneQuery(req, 'status');
  const mode = oneQuery(req, 'mode');
  const after = oneQuery(req, 'starting_after');
  const knownStatus = SUBSCRIPTION_STATUSES.find((s) => s === status);
  if (status !== undefined && !knownStatus)
    throw ValidationError.field('status', 'is not a subscription status');
  if (mode !== undefined && mode !== 'live' && mode !== 'test')
    throw ValidationError.field('mode', 'must be live or test');
  if (after !== undefined && !/^[1-9][0-9]{0,15}$/.test(after))
    throw ValidationError.field('starting_after', 'must be a subscription id');
  return { status: knownStatus, mode, starting_after: after === undefined ? undefined : Number(after) };
}

/** `at_period_end` of a cancel: absent or `false` is at once. */
function periodEndFlag(flag: unknown): boolean {
  if (flag !== undefined && flag !== 'true' && flag !== 'false')
    throw ValidationError.field('at_period_end', 'must be true or false');
  return flag === 'true';
}

function doneOf(req: Request): DoneKey | undefined {
  const done = oneQuery(req, 'done');
  return DONE_KEYS.find((k) => k === done);
}

function bodyField(req: Request, name: string): string {
  const body: unknown = req.body;
  const value: unknown = typeof body === 'object' && body !== null ? Reflect.get(body, name) : undefined;
  if (typeof value !== 'string' || value.trim() === '') throw ValidationError.field(name, 'is required');
  return value.trim();
}

/** A `datetime-local` value read as Brasília time (UTC-03:00, no daylight saving since 2019). */
function brasiliaInstant(value: string, field = 'since'): string {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(:\d{2})?$/.exec(value);
  const instant = match ? new Date(`${match[1]}${match[2] ?? ':00'}-03:00`) : undefined;
  if (!instant || Number.isNaN(instant.getTime()))
    throw ValidationError.field(field, 'must be a date and time');
  return instant.toISOString();
}

/** A form field sent once, several times (checkboxes) or not at all, as a list of strings. */
function bodyList(req: Request, name: string): string[] {
  const body: unknown = req.body;
  const value: unknown = typeof body === 'object' && body !== null ? Reflect.get(body, name) : undefined;
  if (value === undefined) return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value;
  throw ValidationError.field(name, 'must be text');
}

const bodyText = (req: Request, name: string): string => (bodyList(req, name).at(-1) ?? '').trim();

/** The create and settings forms as they were sent (shown again, as they were, when refused). */
function integrationForm(req: Request): IntegrationFormValues {
  return {
    type: bodyText(req, 'type') || 'webhook',
    url: bodyText(req, 'url'),
    events: bodyList(req, 'events'),
    sendToAllProducts: bodyText(req, 'send_to_all_products') === 'true',
    productIds: bodyList(req, 'products').map((p) => (/^[1-9][0-9]{0,9}$/.test(p) ? Number(p) : NaN)),
    rateLimit: bodyText(req, 'rate_limit_per_second'),
  };
}

/** The rate limit as the panel API takes it: empty is no limit, anything but digits is left to its schema. */
const rateLimitOf = (text: string): number | string | null =>
  text === '' ? null : /^[0-9]{1,9}$/.test(text) ? Number(text) : text;

/**
 * Checked by the panel API's own schema, so the dashboard accepts exactly what the API accepts and
 * reports the same fields.
 */
function validated<S extends typeof createIntegrationBody | typeof updateIntegrationBody>(
  schema: S,
  input: Record<string, unknown>,
): Output<S> {
  const { value, error } = schema.validate(input, { abortEarly: false, convert: true });
  if (error) throw new ValidationError('The form does not fit', fieldErrors(error));
  const checked: Output<S> = value;
  return checked;
}

/** Every product ticked is one of the company's. */
function checkProducts(ids: number[], products: ProductRow[]): void {
  if (ids.some((id) => !products.some((p) => p.id === id)))
    throw ValidationError.field('products', 'must be products of this company');
}

/**
 * Who may post: this very origin. A browser says where a form came from in Sec-Fetch-Site (which
 * no page can forge); one that does not send it still sends Origin on a POST.
 */
function refuseCrossSite(req: Request): void {
  const site = req.get('sec-fetch-site');
  if (site !== undefined) {
    if (site !== 'same-origin') throw new PermissionError('Cross-site form posts are refused');
    return;
  }
  const origin = req.get('origin');
  if (origin !== undefined && origin !== `${req.protocol}://${req.get('host') ?? ''}`)
    throw new PermissionError('Form posts from another origin are refused');
}

export function dashboardRouter(ctx: AppContext): Router {
  const router = express.Router({ caseSensitive: true, strict: false });
  const secure = ctx.config.env !== 'development';
  // Before the session is read: a stylesheet or a script needs none.
  router.use(DASHBOARD_ASSETS.router());
  // Parsed and checked here, so a bad body or query is answered with a page too.
  router.use(express.urlencoded({ extended: false, limit: ctx.config.limits.bodyBytes }));
  router.use(queryGuard, bodyGuard({ nul: true }));

  const setCookie = (req: Request, res: Response, value: string, maxAgeMs: number): void => {
    res.cookie(SESSION_COOKIE, value, {
      path: req.baseUrl || '/',
      httpOnly: true,
      sameSite: 'strict',
      secure,
      maxAge: maxAgeMs,
    });
  };

  // Every request: the session of its cookie, if any is live.
  router.use(async (req, _res, next) => {
    const id = cookieOf(req, SESSION_COOKIE);
    if (id !== undefined && /^ds_[0-9A-Za-z]{40}$/.test(id)) {
      const session = await findSession(ctx.db, id);
      if (session) sessions.set(req, { id, session });
    }
    next();
  });

  // Every POST: from this origin; past sign-in, with the session's CSRF token and a role that may change.
  router.use((req, _res, next) => {
    if (req.method !== 'POST') {
      next();
      return;
    }
    refuseCrossSite(req);
    if (req.path === '/sign-in') {
      next();
      return;
    }
    const found = sessions.get(req);
    if (!found) throw new PermissionError('Not signed in, or the session ended');
    const body: unknown = req.body;
    const sent: unknown = typeof body === 'object' && body !== null ? Reflect.get(body, '_csrf') : undefined;
    if (!csrfMatches(found.id, sent))
      throw new PermissionError('The form is stale or was not sent by this dashboard');
    if (req.path !== '/sign-out' && found.session.principal.role === 'read_only')
      throw new PermissionError('A read-only session cannot change anything');
    next();
  });

  // A page without a session: to the sign-in page.
  const signedIn = (req: Request, res: Response): Chrome | undefined => {
    const chrome = chromeOf(req);
    if (!chrome) res.redirect(303, dashboardLocale(req).href('/sign-in'));
    return chrome;
  };

  router.get('/', (req, res) => {
    const page = dashboardLocale(req);
    res.redirect(303, page.href(chromeOf(req) ? '/integrations' : '/sign-in'));
  });

  router.get('/sign-in', (req, res) => {
    const page = dashboardLocale(req);
    if (chromeOf(req)) {
      res.redirect(303, page.href('/integrations'));
      return;
    }
    sendPage(res, 200, page, signInPage(page, { done: doneOf(req) }));
  });

  router.post('/sign-in', async (req, res) => {
    const page = dashboardLocale(req);
    const body: unknown = req.body;
    const credential: unknown =
      typeof body === 'object' && body !== null ? Reflect.get(body, 'credential') : undefined;
    try {
      if (typeof credential !== 'string' || credential.trim() === '')
        throw ValidationError.field('credential', 'is required');
      const { sessionId } = await openSession(ctx.db, credential.trim());
      setCookie(req, res, sessionId, SESSION_TTL_MS);
      res.redirect(303, page.href('/integrations'));
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      sendPage(res, err.status === 400 ? 400 : 401, page, signInPage(page, { refused: true }));
    }
  });

  router.post('/sign-out', async (req, res) => {
    const found = sessions.get(req);
    if (found) await revokeSession(ctx.db, found.session.id);
    setCookie(req, res, '', 0);
    res.redirect(303, dashboardLocale(req).href('/sign-in', { done: 'signed_out' }));
  });

  router.get('/integrations', async (req, res) => {
    const chrome = signedIn(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const { companyId } = chrome.principal;
    const [items, counts] = await Promise.all([
      integrations.listIntegrations(ctx.db, companyId, undefined),
      companyRecentAttemptCounts(ctx.db, companyId),
    ]);
    sendPage(
      res,
      200,
      page,
      integrationsPage(
        page,
        chrome,
        items.map(({ row }) => ({ row, counts: counts.get(row.id) })),
        doneOf(req),
      ),
    );
  });

  /** A GET that leads to a change (a form, a confirmation): for sessions that may change only. */
  const changing = (req: Request, res: Response): Chrome | undefined => {
    const chrome = signedIn(req, res);
    if (chrome && !canChange(chrome)) throw new PermissionError('A read-only session cannot change anything');
    return chrome;
  };

  const EMPTY_FORM: IntegrationFormValues = {
    type: 'webhook',
    url: '',
    events: [],
    sendToAllProducts: true,
    productIds: [],
    rateLimit: '',
  };

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
    const values = integrationForm(req);
    const products = await listProducts(ctx.db, companyId);
    try {
      const input = validated(createIntegrationBody, {
        type: values.type,
        config: { url: values.url },
        events: values.events,
        send_to_all_products: values.sendToAllProducts,
        rate_limit_per_second: rateLimitOf(values.rateLimit),
      });
      checkProducts(values.productIds, products);
      const created = await integrations.createIntegration(ctx, companyId, input, values.productIds);
      res.redirect(303, page.href(`/integrations/${created.row.id}`, { done: 'created' }));
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      const problems = fieldProblems(page, err);
      sendPage(res, 400, page, newIntegrationPage(page, chrome, { values, products, problems }));
    }
  });

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
    const id = idParam(req.params.id);
    const { companyId } = chrome.principal;
    const filter: ListedDeliveries = req.method === 'GET' ? deliveryFilter(req) : {};
    const [integration, deliveries, counts, products] = await Promise.all([
      integrations.getIntegration(ctx.db, companyId, id),
      listDeliveries(ctx.db, companyId, id, { ...filter, limit: 25 }),
      recentAttemptCounts(ctx.db, [id]),
      canChange(chrome) ? listProducts(ctx.db, companyId) : [],
    ]);
    const shown: DeliveryFilter = {
      status: filter.status,
      event_type: filter.event_type,
      from: filter.from,
      to: filter.to,
    };
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
        filter: shown,
        ...rest,
      }),
    );
  }

  router.get('/integrations/:id', async (req, res) => {
    const chrome = signedIn(req, res);
    if (!chrome) return;
    const done = doneOf(req);
    const n = oneQuery(req, 'n');
    const doneExtra =
      done === 'recovered' && n !== undefined && /^[0-9]{1,9}$/.test(n)
        ? dashboardLocale(req).t.recovered(Number(n))
        : undefined;
    await renderIntegration(req, res, chrome, { done, doneExtra });
  });

  router.post('/integrations/:id/enable', async (req, res) => {
    const id = idParam(req.params.id);
    await integrations.updateIntegration(ctx, companyOf(req), id, { is_active: true });
    res.redirect(303, dashboardLocale(req).href(`/integrations/${id}`, { done: 'enabled' }));
  });

  router.post('/integrations/:id/url', async (req, res) => {
    const id = idParam(req.params.id);
    const url = bodyField(req, 'url');
    await integrations.updateIntegration(ctx, companyOf(req), id, { config: { url } });
    res.redirect(303, dashboardLocale(req).href(`/integrations/${id}`, { done: 'url_saved' }));
  });

  // Events, products and rate limit, as the API's PATCH and product links change them.
  router.post('/integrations/:id/settings', async (req, res) => {
    const chrome = requireChrome(req);
    const id = idParam(req.params.id);
    const { companyId } = chrome.principal;
    const values = integrationForm(req);
    try {
      const input = validated(updateIntegrationBody, {
        events: values.events,
        send_to_all_products: values.sendToAllProducts,
        rate_limit_per_second: rateLimitOf(values.rateLimit),
      });
      checkProducts(values.productIds, await listProducts(ctx.db, companyId));
      await integrations.updateIntegration(ctx, companyId, id, input, values.productIds);
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
    const id = idParam(req.params.id);
    const kind = bodyField(req, 'event');
    if (!isEventKind(kind)) throw ValidationError.field('event', 'is not an event type');
    const tested = await sendTestEvent(ctx, chrome.principal.companyId, id, kind);
    await renderIntegration(req, res, chrome, { tested });
  });

  router.get('/integrations/:id/delete', async (req, res) => {
    const chrome = changing(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const id = idParam(req.params.id);
    const { row } = await integrations.getIntegration(ctx.db, chrome.principal.companyId, id);
    sendPage(
      res,
      200,
      page,
      confirmPage(page, chrome, {
        title: page.t.confirm.deleteIntegration,
        question: page.t.confirm.deleteQuestion(id, row.config.url ?? row.type),
        hint: page.t.confirm.deleteHint,
        action: `/integrations/${id}/delete`,
        submit: page.t.confirm.deleteSubmit,
        back: page.href(`/integrations/${id}`),
      }),
    );
  });

  router.post('/integrations/:id/delete', async (req, res) => {
    await integrations.deleteIntegration(ctx.db, companyOf(req), idParam(req.params.id));
    res.redirect(303, dashboardLocale(req).href('/integrations', { done: 'deleted' }));
  });

  router.get('/integrations/:id/rotate-secret', async (req, res) => {
    const chrome = changing(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const id = idParam(req.params.id);
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

  router.post('/integrations/:id/recover', async (req, res) => {
    const id = idParam(req.params.id);
    const since = brasiliaInstant(bodyField(req, 'since'));
    const { recovered } = await requestRecovery(ctx, companyOf(req), id, since);
    res.redirect(303, dashboardLocale(req).href(`/integrations/${id}`, { done: 'recovered', n: recovered }));
  });

  // The new secret is shown in this answer only (no redirect, never cached): it is not shown again.
  router.post('/integrations/:id/rotate-secret', async (req, res) => {
    const chrome = requireChrome(req);
    const id = idParam(req.params.id);
    const rotated = await integrations.rotateSecret(ctx.db, chrome.principal.companyId, id, {
      old_secret_expires_in_seconds: ROTATION_OVERLAP_SECONDS,
    });
    await renderIntegration(req, res, chrome, { newSecret: rotated.row.config.secret });
  });

  router.get('/integrations/:id/deliveries/:delivery', async (req, res) => {
    const chrome = signedIn(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const id = idParam(req.params.id);
    const delivery = await getDelivery(
      ctx.db,
      chrome.principal.companyId,
      id,
      bigIdParam(req.params.delivery),
    );
    sendPage(res, 200, page, deliveryPage(page, chrome, { integrationId: id, delivery, done: doneOf(req) }));
  });

  router.post('/integrations/:id/deliveries/:delivery/resend', async (req, res) => {
    const id = idParam(req.params.id);
    const deliveryId = bigIdParam(req.params.delivery);
    await resendDelivery(ctx, companyOf(req), id, deliveryId);
    res.redirect(
      303,
      dashboardLocale(req).href(`/integrations/${id}/deliveries/${deliveryId}`, { done: 'resent' }),
    );
  });

  router.get('/orders', async (req, res) => {
    const chrome = signedIn(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const filter = orderFilter(req);
    const orders = await listOrders(ctx.db, chrome.principal.companyId, {
      status: filter.status,
      livemode: filter.mode === undefined ? undefined : filter.mode === 'live',
      starting_after: filter.starting_after,
      limit: 25,
    });
    sendPage(
      res,
      200,
      page,
      ordersPage(page, chrome, {
        orders: orders.items,
        hasMore: orders.hasMore,
        filter: { status: filter.status, mode: filter.mode },
        done: doneOf(req),
      }),
    );
  });

  router.get('/orders/:code/refund', async (req, res) => {
    const chrome = changing(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const code = orderCodeParam(req.params.code);
    const { order } = await getOrder(ctx.db, chrome.principal.companyId, code);
    sendPage(
      res,
      200,
      page,
      confirmPage(page, chrome, {
        title: page.t.orders.refundLabel(code),
        question: page.t.confirm.refundQuestion(code, page.money(order.amount)),
        action: `/orders/${code}/refund`,
        submit: page.t.confirm.refundSubmit,
        back: page.href('/orders'),
      }),
    );
  });

  router.post('/orders/:code/refund', async (req, res) => {
    await refundFromPanel(ctx, companyOf(req), orderCodeParam(req.params.code));
    res.redirect(303, dashboardLocale(req).href('/orders', { done: 'refunded' }));
  });

  router.get('/subscriptions', async (req, res) => {
    const chrome = signedIn(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const filter = subscriptionFilter(req);
    const found = await listSubscriptions(ctx.db, chrome.principal.companyId, {
      status: filter.status,
      livemode: filter.mode === undefined ? undefined : filter.mode === 'live',
      starting_after: filter.starting_after,
      limit: 25,
    });
    sendPage(
      res,
      200,
      page,
      subscriptionsPage(page, chrome, {
        subscriptions: found.items,
        hasMore: found.hasMore,
        filter: { status: filter.status, mode: filter.mode },
        done: doneOf(req),
      }),
    );
  });

  router.get('/subscriptions/:id/cancel', async (req, res) => {
    const chrome = changing(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const id = bigIdParam(req.params.id);
    const atPeriodEnd = periodEndFlag(oneQuery(req, 'at_period_end'));
    const found = await getSubscription(ctx.db, chrome.principal.companyId, id);
    const { t } = page;
    const plan = `${found.planCode} · ${t.cycles[found.billingCycle]}`;
    sendPage(
      res,
      200,
      page,
      confirmPage(page, chrome, {
        title: atPeriodEnd ? t.subscriptions.cancelAtEndLabel(id) : t.subscriptions.cancelNowLabel(id),
        question: atPeriodEnd
          ? t.confirm.cancelAtEndQuestion(id, plan, page.dateTime(found.subscription.currentPeriodEnd))
          : t.confirm.cancelNowQuestion(id, plan),
        action: `/subscriptions/${id}/cancel`,
        hidden: atPeriodEnd ? { at_period_end: 'true' } : {},
        submit: atPeriodEnd ? t.subscriptions.cancelAtEnd : t.subscriptions.cancelNow,
        back: page.href('/subscriptions'),
      }),
    );
  });

  // At once, or (`at_period_end=true`) when the period ends, as the panel API's cancel.
  router.post('/subscriptions/:id/cancel', async (req, res) => {
    const body: unknown = req.body;
    const flag: unknown =
      typeof body === 'object' && body !== null ? Reflect.get(body, 'at_period_end') : undefined;
    const atPeriodEnd = periodEndFlag(flag);
    await cancelSubscription(ctx, companyOf(req), bigIdParam(req.params.id), atPeriodEnd);
    res.redirect(
      303,
      dashboardLocale(req).href('/subscriptions', { done: atPeriodEnd ? 'cancel_scheduled' : 'canceled' }),
    );
  });

  router.get('/keys', async (req, res) => {
    const chrome = signedIn(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const keys = await listKeys(ctx.db, chrome.principal.companyId);
    sendPage(res, 200, page, keysPage(page, chrome, { keys, done: doneOf(req) }));
  });

  /** As the panel API: only the company owner creates or revokes keys. */
  const requireOwner = (req: Request): Chrome => {
    const chrome = requireChrome(req);
    if (chrome.principal.role !== 'owner')
      throw new PermissionError('Only the company owner can create or revoke keys');
    return chrome;
  };

  // The new key's value is in this answer only (no redirect, never cached).
  router.post('/keys', async (req, res) => {
    const chrome = requireOwner(req);
    const name = bodyField(req, 'name');
    if (name.length > 100) throw ValidationError.field('name', 'must be at most 100 characters');
    const kind = bodyField(req, 'kind');
    const mode = bodyField(req, 'mode');
    if (kind !== 'payments' && kind !== 'read_only')
      throw ValidationError.field('kind', 'must be payments or read_only');
    if (mode !== 'live' && mode !== 'test') throw ValidationError.field('mode', 'must be live or test');
    const { companyId } = chrome.principal;
    const created = await createKey(ctx.db, { companyId, name, kind, test: mode === 'test' });
    const page = dashboardLocale(req);
    const keys = await listKeys(ctx.db, companyId);
    sendPage(res, 201, page, keysPage(page, chrome, { keys, newKey: created.value }));
  });

  router.get('/keys/:id/revoke', async (req, res) => {
    const chrome = changing(req, res);
    if (!chrome) return;
    requireOwner(req);
    const page = dashboardLocale(req);
    const id = bigIdParam(req.params.id);
    const key = (await listKeys(ctx.db, chrome.principal.companyId)).find((k) => k.id === id && !k.revokedAt);
    if (!key) throw new NotFoundError(`No key ${id} in this company`);
    sendPage(
      res,
      200,
      page,
      confirmPage(page, chrome, {
        title: page.t.keys.revokeLabel(key.name),
        question: page.t.confirm.revokeQuestion(key.name),
        hint: page.t.confirm.revokeHint,
        action: `/keys/${id}/revoke`,
        submit: page.t.keys.revoke,
        back: page.href('/keys'),
      }),
    );
  });

  router.post('/keys/:id/revoke', async (req, res) => {
    const { principal } = requireOwner(req);
    await revokeKey(ctx, principal.companyId, bigIdParam(req.params.id));
    res.redirect(303, dashboardLocale(req).href('/keys', { done: 'revoked' }));
  });

  router.use((_req, _res, next) => {
    next(new NotFoundError('Not found'));
  });

  // Errors as pages, in the page's language.
  router.use(
    errorHandler(ctx.logger, (res, err) => {
      const page = dashboardLocale(res.req);
      const said = problemSentences(page, err).join(' ');
      const message = err.status === 403 ? `${page.t.forbidden} ${said}` : said;
      sendPage(res, err.status, page, errorPageOf(page, err.status, message, chromeOf(res.req)));
    }),
  );
  return router;
}
