/**
 * The company's orders (and refunding a paid one) and subscriptions (and canceling one, at once or
 * at the period end), as the panel API's services do them.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Router, type Request } from 'express';
import type Joi from 'joi';
import { exportOrders } from '../../orders/export.js';
import {
  cancelSubscription,
  getOrder,
  getSubscription,
  listOrders,
  listSubscriptions,
  refundFromPanel,
} from '../../orders/panel-service.js';
import type { AppContext } from '../../shared/context.js';
import { ORDER_STATUSES } from '../../shared/enums/order-statuses.js';
import { SUBSCRIPTION_STATUSES } from '../../shared/enums/subscription-statuses.js';
import { v, type Typed } from '../../shared/validation/typed.js';
import { livemodeOf, type Mode } from '../lists.js';
import { dashboardLocale } from '../locale.js';
import { confirmPage, sendPage } from '../page.js';
import {
  bigId,
  doneQuery,
  flagText,
  formOf,
  mode,
  orderCode,
  pageQuery,
  pathPart,
  queryOf,
} from '../params.js';
import { changing, companyOf, signedIn } from '../session-guard.js';
import { orderLine, ordersCsv } from './csv.js';
import { ordersPage, subscriptionsPage } from './views.js';

const PAGE_SIZE = 25;

const ordersQuery = pageQuery({
  status: v.enum(ORDER_STATUSES).empty(''),
  mode: mode().empty(''),
  starting_after: orderCode().empty(''),
});
/** The orders page's filters, for its export. */
const exportQuery = pageQuery({
  status: v.enum(ORDER_STATUSES).empty(''),
  mode: mode().empty(''),
});
const subscriptionsQuery = pageQuery({
  status: v.enum(SUBSCRIPTION_STATUSES).empty(''),
  mode: mode().empty(''),
  starting_after: bigId().empty(''),
});

/**
 * A list page's query: its filter (shown back in the form), the list's query for the panel's
 * service (the page's cursor, the mode as `livemode`) and what the last action did.
 */
function listed<Status, Cursor>(
  req: Request,
  schema: Typed<{ status?: Status; mode?: Mode; starting_after?: Cursor }, Joi.ObjectSchema>,
) {
  const { status, mode: shown, starting_after } = queryOf(req, schema);
  return {
    filter: { status, mode: shown },
    query: { status, livemode: livemodeOf(shown), starting_after, limit: PAGE_SIZE },
    done: queryOf(req, doneQuery).done,
  };
}

/** An order's code in its address, as the panel stores it. */
const orderCodeOf = (value: unknown): string => pathPart(orderCode(), value).toLowerCase();

/** `at_period_end` of a cancel (the confirmation's address, its form): absent or `false` is at once. */
const cancelQuery = pageQuery({ at_period_end: flagText().empty('') });
const cancelForm = v.object({ at_period_end: flagText() }).unknown(true);

export function ordersRoutes(ctx: AppContext): Router {
  const router = Router({ caseSensitive: true });

  router.get('/orders', async (req, res) => {
    const chrome = signedIn(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const { filter, query, done } = listed(req, ordersQuery);
    const found = await listOrders(ctx.db, chrome.principal.companyId, query);
    const orders = { orders: found.items, hasMore: found.hasMore, filter, done };
    sendPage(res, 200, page, ordersPage(page, chrome, orders));
  });

  // Streamed: each batch of orders is read when the download asks for more (backpressure through
  // the pipeline), so the file's size never sits in memory.
  router.get('/orders.csv', async (req, res) => {
    const chrome = signedIn(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const { status, mode: shown } = queryOf(req, exportQuery);
    const found = exportOrders(ctx.db, {
      companyId: chrome.principal.companyId,
      status,
      livemode: livemodeOf(shown),
    });
    async function* lines() {
      for await (const order of found) yield orderLine(page, order);
    }
    const day = new Date().toISOString().slice(0, 10);
    res.status(200).set({
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${page.t.ordersCsv.file}-${day}.csv"`,
      'Content-Language': page.t.locale,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    try {
      await pipeline(Readable.from(lines()), ordersCsv(page), res);
    } catch (err) {
      // The file has begun: there is no page to answer with. The download ends short, and says so by
      // breaking off (no last line ending); a download the browser dropped is no error at all.
      if (!res.destroyed) res.destroy();
      const code: unknown = err instanceof Error ? Reflect.get(err, 'code') : undefined;
      if (code !== 'ERR_STREAM_PREMATURE_CLOSE') ctx.logger.error({ err }, 'orders export failed mid-stream');
    }
  });

  router.get('/orders/:code/refund', async (req, res) => {
    const chrome = changing(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const code = orderCodeOf(req.params.code);
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
    await refundFromPanel(ctx, companyOf(req), orderCodeOf(req.params.code));
    res.redirect(303, dashboardLocale(req).href('/orders', { done: 'refunded' }));
  });

  router.get('/subscriptions', async (req, res) => {
    const chrome = signedIn(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const { filter, query, done } = listed(req, subscriptionsQuery);
    const found = await listSubscriptions(ctx.db, chrome.principal.companyId, query);
    const subscriptions = { subscriptions: found.items, hasMore: found.hasMore, filter, done };
    sendPage(res, 200, page, subscriptionsPage(page, chrome, subscriptions));
  });

  router.get('/subscriptions/:id/cancel', async (req, res) => {
    const chrome = changing(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const id = pathPart(bigId(), req.params.id);
    const atPeriodEnd = queryOf(req, cancelQuery).at_period_end === 'true';
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
    const atPeriodEnd = formOf(req, cancelForm).at_period_end === 'true';
    await cancelSubscription(ctx, companyOf(req), pathPart(bigId(), req.params.id), atPeriodEnd);
    res.redirect(
      303,
      dashboardLocale(req).href('/subscriptions', { done: atPeriodEnd ? 'cancel_scheduled' : 'canceled' }),
    );
  });

  return router;
}
