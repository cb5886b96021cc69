/**
 * The home's chart: net revenue per day, one stacked bar per day split by method, drawn on the
 * server as SVG (no script). A screen reader reads it as one image (`role="img"`) named by its
 * `<title>` and described by the summary under it; the table after it holds every figure the bars show.
 */
import type { SalesDay, SalesSummary } from '../../orders/sales.js';
import { decimalOf } from '../../orders/sales.js';
import { PAYMENT_METHODS, type PaymentMethod } from '../../shared/enums/payment-methods.js';
import { html, type SafeHtml } from '../../ui/html.js';
import type { DashboardLocale } from '../locale.js';

const WIDTH = 720;
const HEIGHT = 240;
const LEFT = 88;
const RIGHT = 8;
const TOP = 12;
const BOTTOM = 28;

/** The bars' colours, each at least 3:1 against the white background (WCAG 1.4.11). */
export const METHOD_COLOURS: Record<PaymentMethod, string> = {
  credit_card: '#1f5fbf',
  pix: '#0a7d5a',
  boleto: '#b34700',
};

/** A calendar day (`YYYY-MM-DD`) as the page's language writes it short ("27/11") or whole. */
export function dayLabel(page: DashboardLocale, day: string, whole = false): string {
  const options: Intl.DateTimeFormatOptions = whole
    ? { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: 'UTC' }
    : { day: '2-digit', month: '2-digit', timeZone: 'UTC' };
  return new Intl.DateTimeFormat(page.t.locale, options).format(new Date(`${day}T12:00:00Z`));
}

/** A round top for the scale: 1, 2 or 5 times a power of ten, in cents, at least R$ 10. */
function scaleTop(max: number): number {
  const floor = 1000;
  if (max <= floor) return floor;
  const power = 10 ** Math.floor(Math.log10(max));
  const step = [1, 2, 5, 10].find((m) => m * power >= max) ?? 10;
  return step * power;
}

export function revenueChart(page: DashboardLocale, days: SalesDay[], total: number): SafeHtml {
  const th = page.t.home;
  const money = (cents: number): string => page.money(decimalOf(cents));
  const best = days.reduce<SalesDay | null>(
    (b, d) => (d.total > 0 && (!b || d.total > b.total) ? d : b),
    null,
  );
  const summary = th.chartSummary(
    money(total),
    best ? `${dayLabel(page, best.day, true)} (${money(best.total)})` : null,
  );
  // Refunds of a day can exceed its sales: such a day's bar stays at zero.
  const top = scaleTop(Math.max(0, ...days.map((d) => d.total)));
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = plotWidth / Math.max(1, days.length);
  const barWidth = Math.max(2, slot * 0.7);
  const y = (cents: number): number => TOP + plotHeight - (cents / top) * plotHeight;

  const grid = [0, 0.5, 1].map((share) => {
    const at = y(top * share);
    return html`<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${at}" y2="${at}" class="grid" />
      <text x="${LEFT - 6}" y="${at + 4}" text-anchor="end">${money(Math.round(top * share))}</text>`;
  });
  const bars = days.map((d, i) => {
    const x = LEFT + i * slot + (slot - barWidth) / 2;
    let base = 0;
    const parts = PAYMENT_METHODS.map((method) => {
      const value = Math.max(0, d.byMethod[method]);
      if (value === 0) return '';
      const from = y(base);
      base += value;
      const to = y(base);
      return html`<rect
        x="${x.toFixed(1)}"
        y="${to.toFixed(1)}"
        width="${barWidth.toFixed(1)}"
        height="${(from - to).toFixed(1)}"
        fill="${METHOD_COLOURS[method]}"
      />`;
    });
    const label =
      i % 5 === 0 || i === days.length - 1
        ? html`<text x="${(x + barWidth / 2).toFixed(1)}" y="${HEIGHT - 8}" text-anchor="middle"
            >${dayLabel(page, d.day)}</text
          >`
        : '';
    return html`${parts}${label}`;
  });
  return html`<figure class="chart">
    <svg
      role="img"
      aria-labelledby="chart-title"
      aria-describedby="chart-summary"
      viewBox="0 0 ${WIDTH} ${HEIGHT}"
      width="${WIDTH}"
      height="${HEIGHT}"
      xmlns="http://www.w3.org/2000/svg"
    >
      <title id="chart-title">${th.chartTitle}</title>
      ${grid} ${bars}
    </svg>
    <figcaption>
      <ul class="legend">
        ${PAYMENT_METHODS.map(
          (m) => html`<li><span class="swatch ${m}" aria-hidden="true"></span>${th.methods[m]}</li>`,
        )}
      </ul>
      <p id="chart-summary">${summary}</p>
    </figcaption>
  </figure>`;
}

/** The chart's figures as a table: each day, its net revenue per method and in all. */
export function revenueTable(page: DashboardLocale, days: SalesDay[]): SafeHtml {
  const th = page.t.home;
  const money = (cents: number): string => page.money(decimalOf(cents));
  return html`<div class="table-scroll" role="region" aria-labelledby="figures-caption" tabindex="0">
    <table class="figures">
      <caption id="figures-caption">
        ${th.tableCaption}
      </caption>
      <thead>
        <tr>
          <th scope="col">${th.day}</th>
          ${PAYMENT_METHODS.map((m) => html`<th scope="col">${th.methods[m]}</th>`)}
          <th scope="col">${th.total}</th>
        </tr>
      </thead>
      <tbody>
        ${[...days].reverse().map(
          (d) =>
            html`<tr>
              <th scope="row">${dayLabel(page, d.day, true)}</th>
              ${PAYMENT_METHODS.map((m) => html`<td>${money(d.byMethod[m])}</td>`)}
              <td>${money(d.total)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** Net revenue by the `utm_source` the paid orders carried: which campaigns sold. */
export function sourcesTable(page: DashboardLocale, sources: SalesSummary['sources']): SafeHtml {
  const th = page.t.home;
  if (sources.length === 0) return html`<p>${th.sourcesNone}</p>`;
  return html`<table>
    <caption>
      ${th.sourcesTitle}
    </caption>
    <thead>
      <tr>
        <th scope="col">${th.source}</th>
        <th scope="col">${th.paidOrders}</th>
        <th scope="col">${th.revenue}</th>
      </tr>
    </thead>
    <tbody>
      ${sources.map(
        (s) =>
          html`<tr>
            <th scope="row">${s.source ?? th.noSource}</th>
            <td>${s.paid}</td>
            <td>${page.money(decimalOf(s.net))}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}
