import type { AppContext } from '../shared/context.js';
import { operation, route, type Route } from '../shared/http/operation.js';
import { panelPrincipal } from '../shared/http/principal.js';
import { errors, json, ref } from '../shared/openapi/builders.js';
import { listBody } from '../shared/pagination.js';
import { toPanelOrderWire, toSubscriptionWire, type OrderEmailsOf, type OrderInvoicesOf } from './mappers.js';
import * as service from './panel-service.js';
import type { PanelOrderRow } from './repository.js';
import {
  activeSubscriptionParams,
  cancelSubscriptionBody,
  listOrdersQuery,
  listSubscriptionsQuery,
  orderParams,
  paidOrderParams,
  renewSubscriptionBody,
  subscriptionParams,
} from './schemas.js';

const company = (res: Parameters<typeof panelPrincipal>[0]): number => panelPrincipal(res).companyId;

/** Orders in the panel: list, read, refund; each with the e-mails its buyer was sent (`emailsOf`). */
export function ordersRoutes(
  ctx: AppContext,
  emailsOf: OrderEmailsOf,
  invoicesOf: OrderInvoicesOf = async () => new Map(),
): Route[] {
  const tags = ['Orders'];
  const withEmails = async (companyId: number, rows: PanelOrderRow[]) => {
    const codes = rows.map((row) => row.order.code);
    const [emails, invoices] = await Promise.all([emailsOf(companyId, codes), invoicesOf(companyId, codes)]);
    return rows.map((row) =>
      toPanelOrderWire(row, emails.get(row.order.code), invoices.get(row.order.code) ?? null),
    );
  };
  const one = async (companyId: number, row: PanelOrderRow) => {
    const codes = [row.order.code];
    const [emails, invoices] = await Promise.all([emailsOf(companyId, codes), invoicesOf(companyId, codes)]);
    return toPanelOrderWire(row, emails.get(row.order.code), invoices.get(row.order.code) ?? null);
  };
  return [
    route(
      operation({
        method: 'get',
        path: '/orders',
        operationId: 'listOrders',
        summary: "The company's orders, newest first",
        tags,
        request: { query: listOrdersQuery },
        responses: { '200': json(ref('PanelOrderList'), 'One page of orders') },
      }),
      async ({ query }, res) => {
        const page = await service.listOrders(ctx.db, company(res), query);
        const wired = await withEmails(company(res), page.items);
        res.json(listBody({ ...page, items: wired }, (item) => item));
      },
    ),
    route(
      operation({
        method: 'get',
        path: '/orders/{code}',
        operationId: 'getOrder',
        summary: 'One order',
        tags,
        request: { params: orderParams },
        responses: { '200': json(ref('PanelOrder'), 'The order'), ...errors('404') },
      }),
      async ({ params }, res) => {
        res.json(await one(company(res), await service.getOrder(ctx.db, company(res), params.code)));
      },
    ),
    route(
      operation({
        method: 'post',
        path: '/orders/{code}/refund',
        operationId: 'refundOrder',
        summary:
          'Refund a paid order (emits order.refunded); an order already refunded is returned unchanged',
        description:
          'The link it was paid through keeps its status. Any status other than `paid` or `refunded` is a 409. ' +
          'An order paid through Mercado Pago is refunded there first (one full refund, an idempotency key ' +
          'fixed per order); a refusal by Mercado Pago is a 409 with its reason, no answer a 502, and the order ' +
          'is unchanged either way.',
        tags,
        request: { params: paidOrderParams },
        responses: { '200': json(ref('PanelOrder'), 'The refunded order'), ...errors('404', '409', '502') },
      }),
      async ({ params }, res) => {
        res.json(await one(company(res), await service.refundFromPanel(ctx, company(res), params.code)));
      },
    ),
  ];
}

/** Subscriptions in the panel: list, read, cancel, and renew-now while the dev gateway is on. */
export function subscriptionsRoutes(ctx: AppContext): Route[] {
  const tags = ['Subscriptions'];
  const routes = [
    route(
      operation({
        method: 'get',
        path: '/subscriptions',
        operationId: 'listSubscriptions',
        summary: "The company's subscriptions, newest first",
        tags,
        request: { query: listSubscriptionsQuery },
        responses: { '200': json(ref('SubscriptionList'), 'One page of subscriptions') },
      }),
      async ({ query }, res) => {
        const page = await service.listSubscriptions(ctx.db, company(res), query);
        res.json(listBody(page, toSubscriptionWire));
      },
    ),
    route(
      operation({
        method: 'get',
        path: '/subscriptions/{id}',
        operationId: 'getSubscription',
        summary: 'One subscription',
        tags,
        request: { params: subscriptionParams },
        responses: { '200': json(ref('Subscription'), 'The subscription'), ...errors('404') },
      }),
      async ({ params }, res) => {
        res.json(toSubscriptionWire(await service.getSubscription(ctx.db, company(res), params.id)));
      },
    ),
  ];
  // Renew-now exists only with the dev gateway (declared before cancel, so a client reading the
  // document top-down renews before it cancels).
  if (ctx.config.devGateway)
    routes.push(
      route(
        operation({
          method: 'post',
          path: '/subscriptions/{id}/renew',
          operationId: 'renewSubscription',
          summary:
            'Renew now (dev gateway only): the next renewal charge (or retry of a failed one) at once, paid or failed',
          description:
            'A clock for local testing, served only while DEV_GATEWAY is on: runs the charge the delayed job ' +
            'would run when due (the renewal at the end of the current period, or the next retry of a past_due ' +
            'subscription), with the outcome asked for. Paid: a paid order, `order.paid` and ' +
            '`subscription.renewed`. Failed: a failed order (`order.failed`) and `past_due` ' +
            '(`subscription.past_due`), or `canceled` (`payment_failed`) after the last retry. A subscription set ' +
            'to cancel at the period end is canceled instead (`subscription.canceled`). A canceled subscription ' +
            'is a 409.',
          tags,
          request: { params: activeSubscriptionParams, body: renewSubscriptionBody },
          responses: {
            '200': json(ref('Subscription'), 'The subscription after the charge'),
            ...errors('404', '409'),
          },
        }),
        async ({ params, body }, res) => {
          res.json(toSubscriptionWire(await service.renewNow(ctx, company(res), params.id, body.outcome)));
        },
      ),
    );
  routes.push(
    route(
      operation({
        method: 'post',
        path: '/subscriptions/{id}/cancel',
        operationId: 'cancelSubscription',
        summary:
          'Cancel a subscription, at once or at the end of its period (emits subscription.canceled when it ends)',
        description:
          'At once (the default): `canceled` with `cancel_reason: requested`. With `at_period_end: true` an ' +
          'active subscription stays active with `cancel_at_period_end: true`, is never charged again, and ' +
          'becomes `canceled` at `current_period_end`. A canceled subscription is returned unchanged.',
        tags,
        request: { params: subscriptionParams, body: cancelSubscriptionBody },
        responses: {
          '200': json(ref('Subscription'), 'The subscription after the cancel'),
          ...errors('404'),
        },
      }),
      async ({ params, body }, res) => {
        res.json(
          toSubscriptionWire(
            await service.cancelSubscription(ctx, company(res), params.id, body.at_period_end),
          ),
        );
      },
    ),
  );
  return routes;
}
