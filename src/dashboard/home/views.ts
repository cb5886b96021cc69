/**
 * The home: the last 30 days of sales in one mode (figures, the chart and its table), the
 * integrations that are failing, and the way to make a link.
 */
import type { IntegrationRow } from '../../integrations/repository.js';
import { decimalOf, type SalesSummary } from '../../orders/sales.js';
import { html, type SafeHtml } from '../../ui/html.js';
import type { Mode } from '../lists.js';
import type { DashboardLocale } from '../locale.js';
import { canChange, layout, type Chrome } from '../page.js';
import { dayLabel, revenueChart, revenueTable, sourcesTable } from './chart.js';

const percent = (page: DashboardLocale, ratio: number): string =>
  new Intl.NumberFormat(page.t.locale, { style: 'percent', maximumFractionDigits: 1 }).format(ratio);

/** Live or test: the one shown is the current page, the other a link to it. */
function modeSwitch(page: DashboardLocale, shown: Mode): SafeHtml {
  const th = page.t.home;
  const item = (mode: Mode, words: string) =>
    mode === shown
      ? html`<li><a href="${page.href('', { mode })}" aria-current="page">${words}</a></li>`
      : html`<li><a href="${page.href('', { mode })}">${words}</a></li>`;
  return html`<nav aria-label="${th.modeLabel}" class="modes">
    <ul>
      ${item('live', th.live)} ${item('test', th.test)}
    </ul>
  </nav>`;
}

function figure(term: string, value: string, hint?: string): SafeHtml {
  return html`<div>
    <dt>${term}</dt>
    <dd><strong>${value}</strong>${hint ? html`<span class="hint">${hint}</span>` : ''}</dd>
  </div>`;
}

export function homePage(
  page: DashboardLocale,
  chrome: Chrome,
  data: { sales: SalesSummary; failing: IntegrationRow[] },
): SafeHtml {
  const th = page.t.home;
  const { sales } = data;
  const money = (cents: number): string => page.money(decimalOf(cents));
  const mode: Mode = sales.livemode ? 'live' : 'test';
  const failing =
    data.failing.length === 0
      ? html`<p>${th.failingNone}</p>`
      : html`<ul>
          ${data.failing.map(
            (row) =>
              html`<li>
                <a href="${page.href(`/integrations/${row.id}`)}"
                  >${th.failingItem(row.id, row.failureCount)}</a
                >
                ${row.isActive ? '' : html`(${th.disabled})`}
              </li>`,
          )}
        </ul>`;
  return layout(
    page,
    th.title,
    html`<h1>${th.title}</h1>
      ${modeSwitch(page, mode)}
      <p>${th.period(dayLabel(page, sales.from, true), dayLabel(page, sales.to, true))}</p>
      ${canChange(chrome) ? html`<p><a class="button" href="${page.href('/links/new', { mode })}">${th.createLink}</a></p>` : ''}
      <h2>${th.figures}</h2>
      <dl class="figures">
        ${figure(th.revenue, money(sales.net), th.revenueHint(money(sales.gross), money(sales.refunded), money(sales.chargedBack), money(sales.fees)))}
        ${figure(th.paidOrders, String(sales.paidOrders))}
        ${figure(th.averageTicket, sales.averageTicket === null ? th.none : money(sales.averageTicket))}
        ${figure(
          th.conversion,
          sales.conversion === null ? th.none : percent(page, sales.conversion),
          th.conversionHint(sales.createdPaid, sales.createdOrders),
        )}
        ${figure(th.pix, th.generatedPaid(sales.pix.generated, sales.pix.paid))}
        ${figure(th.boleto, th.generatedPaid(sales.boleto.generated, sales.boleto.paid))}
      </dl>
      <h2>${th.chartTitle}</h2>
      ${revenueChart(page, sales.days, sales.net)} ${revenueTable(page, sales.days)}
      <h2>${th.sourcesTitle}</h2>
      ${sourcesTable(page, sales.sources)}
      <h2>${th.failing}</h2>
      ${failing}`,
    chrome,
  );
}
