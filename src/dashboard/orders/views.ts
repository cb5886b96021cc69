/**
 * The company's orders and subscriptions: each a filtered list, newest first, with the row's one
 * change (refund, cancel) behind its confirmation page.
 */
import type { PanelOrderRow, PanelSubscriptionRow } from '../../orders/panel-service.js';
import { ORDER_STATUSES, type OrderStatus } from '../../shared/enums/order-statuses.js';
import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from '../../shared/enums/subscription-statuses.js';
import { html, type SafeHtml } from '../../ui/html.js';
import type { DashboardLocale } from '../locale.js';
import {
  badge,
  filterForm,
  filterSelect,
  listTable,
  modeSelect,
  nextPageLink,
  rowConfirm,
  testMark,
  type Mode,
  type Tone,
} from '../lists.js';
import type { DoneKey } from '../messages.js';
import { canChange, doneNotice, layout, type Chrome } from '../page.js';

/** What a list of orders or subscriptions is filtered by. */
export interface ListFilter<S extends string> {
  status?: S | undefined;
  mode?: Mode | undefined;
}

const ORDER_TONES: Record<OrderStatus, Tone> = {
  paid: 'good',
  pending: 'warn',
  failed: 'bad',
  refunded: 'idle',
  abandoned: 'idle',
  charged_back: 'bad',
};
const SUBSCRIPTION_TONES: Record<SubscriptionStatus, Tone> = {
  active: 'good',
  past_due: 'warn',
  canceled: 'idle',
};

/**
 * The page of a list: its title, what the last action did, the read-only notice, the filter, the
 * table and the next page's link (from the last row, when there are more).
 */
function listPage(
  page: DashboardLocale,
  chrome: Chrome,
  data: {
    title: string;
    done: DoneKey | undefined;
    filter: SafeHtml;
    table: SafeHtml;
    next: SafeHtml | string;
  },
): SafeHtml {
  const readOnly = canChange(chrome) ? '' : html`<p class="notice">${page.t.readOnly}</p>`;
  return layout(
    page,
    data.title,
    html`<h1>${data.title}</h1>
      ${doneNotice(page, data.done)} ${readOnly} ${data.filter} ${data.table} ${data.next}`,
    chrome,
  );
}

/** The status and mode filter of a list at `path`. */
function statusModeFilter<S extends string>(
  page: DashboardLocale,
  path: string,
  label: string,
  statuses: { values: readonly S[]; words: (status: S) => string },
  filter: ListFilter<S>,
): SafeHtml {
  const to = page.t.orders;
  return filterForm(page, {
    path,
    label,
    apply: to.apply,
    fields: [
      filterSelect({
        name: 'status',
        label: to.status,
        any: to.anyStatus,
        ...statuses,
        current: filter.status,
      }),
      modeSelect(page, filter.mode),
    ],
  });
}

export function ordersPage(
  page: DashboardLocale,
  chrome: Chrome,
  data: {
    orders: PanelOrderRow[];
    hasMore: boolean;
    filter: ListFilter<OrderStatus>;
    done?: DoneKey | undefined;
  },
): SafeHtml {
  const { t } = page;
  const to = t.orders;
  const change = canChange(chrome);
  const rows = data.orders.map(
    ({ order, productName }) =>
      html`<tr>
        <td data-label="${to.order}">
          <a href="${page.href(`/orders/${order.code}`)}"><code>${order.code}</code></a>${testMark(page, order.livemode)}
        </td>
        <td data-label="${to.buyer}">${order.customer?.name ?? ''}</td>
        <td data-label="${to.product}">${productName}</td>
        <td data-label="${to.amount}">${page.money(order.amount)}</td>
        <td data-label="${to.status}">${badge(ORDER_TONES[order.status], t.orderStatuses[order.status])}</td>
        <td data-label="${to.created}">${page.dateTime(order.createdAt)}</td>
        ${
          change
            ? html`<td data-label="${to.action}">
                ${
                  order.status === 'paid'
                    ? rowConfirm(page, `/orders/${order.code}/refund`, {
                        text: to.refund,
                        label: to.refundLabel(order.code),
                      })
                    : ''
                }
              </td>`
            : ''
        }
      </tr>`,
  );
  const last = data.orders.at(-1);
  return listPage(page, chrome, {
    title: to.title,
    done: data.done,
    filter: html`${statusModeFilter(
        page,
        '/orders',
        to.filter,
        { values: ORDER_STATUSES, words: (s) => t.orderStatuses[s] },
        data.filter,
      )}
      <p>
        <a href="${page.href('/orders.csv', { ...data.filter })}" download aria-describedby="csv-hint"
          >${t.ordersCsv.download}</a
        >
      </p>
      <p class="hint" id="csv-hint">${t.ordersCsv.downloadHint}</p>`,
    table: listTable(
      to.title,
      to.none,
      [to.order, to.buyer, to.product, to.amount, to.status, to.created, change && to.action],
      rows,
    ),
    next: nextPageLink(
      data.hasMore && last
        ? page.href('/orders', { ...data.filter, starting_after: last.order.code })
        : undefined,
      to.more,
    ),
  });
}

export function subscriptionsPage(
  page: DashboardLocale,
  chrome: Chrome,
  data: {
    subscriptions: PanelSubscriptionRow[];
    hasMore: boolean;
    filter: ListFilter<SubscriptionStatus>;
    done?: DoneKey | undefined;
  },
): SafeHtml {
  const { t } = page;
  const ts = t.subscriptions;
  const to = t.orders;
  const change = canChange(chrome);
  const rows = data.subscriptions.map(({ subscription: sub, planCode, billingCycle }) => {
    const path = `/subscriptions/${sub.id}/cancel`;
    const actions =
      sub.status === 'canceled'
        ? ''
        : html`<div class="row-actions">
            ${rowConfirm(page, path, { text: ts.cancelNow, label: ts.cancelNowLabel(sub.id) })}
            ${
              sub.cancelAtPeriodEnd || sub.status !== 'active'
                ? ''
                : rowConfirm(
                    page,
                    path,
                    { text: ts.cancelAtEnd, label: ts.cancelAtEndLabel(sub.id), neutral: true },
                    { at_period_end: 'true' },
                  )
            }
          </div>`;
    return html`<tr>
      <td data-label="${ts.subscription}">${sub.id}${testMark(page, sub.livemode)}</td>
      <td data-label="${ts.plan}"><code>${planCode}</code> · ${t.cycles[billingCycle]}</td>
      <td data-label="${to.status}">
        ${badge(SUBSCRIPTION_TONES[sub.status], t.subscriptionStatuses[sub.status])}
        ${sub.cancelAtPeriodEnd && sub.status !== 'canceled' ? html`<span class="hint">${ts.endsAtPeriodEnd}</span>` : ''}
      </td>
      <td data-label="${ts.periodEnd}">${page.dateTime(sub.currentPeriodEnd)}</td>
      ${change ? html`<td data-label="${to.action}">${actions}</td>` : ''}
    </tr>`;
  });
  const last = data.subscriptions.at(-1);
  return listPage(page, chrome, {
    title: ts.title,
    done: data.done,
    filter: statusModeFilter(
      page,
      '/subscriptions',
      ts.filter,
      { values: SUBSCRIPTION_STATUSES, words: (s) => t.subscriptionStatuses[s] },
      data.filter,
    ),
    table: listTable(
      ts.title,
      ts.none,
      [ts.subscription, ts.plan, to.status, ts.periodEnd, change && to.action],
      rows,
    ),
    next: nextPageLink(
      data.hasMore && last
        ? page.href('/subscriptions', { ...data.filter, starting_after: last.subscription.id })
        : undefined,
      ts.more,
    ),
  });
}
