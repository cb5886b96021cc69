/**
 * The lists of the dashboard (deliveries, orders, subscriptions, keys): the GET form that filters
 * one, its table, the link to its next page, the badges and row buttons in its cells.
 */
import { flag, html, type SafeHtml } from '../ui/html.js';
import type { DashboardLocale } from './locale.js';
import { confirmStep } from './page.js';

/** Live or test, as a filter and a list's rows say it. */
export type Mode = 'live' | 'test';

/**
 * A list's filter: a GET form back to the list (`path`) with the page's language, its fields, the
 * apply button and what follows it (a hint the fields point to).
 */
export function filterForm(
  page: DashboardLocale,
  form: { path: string; label: string; apply: string; fields: SafeHtml[]; after?: SafeHtml },
): SafeHtml {
  return html`<form method="get" action="${page.href(form.path)}" class="filters" aria-label="${form.label}">
    ${page.chosen ? html`<input type="hidden" name="lang" value="${page.chosen}" />` : ''} ${form.fields}
    <div><button type="submit">${form.apply}</button></div>
    ${form.after ?? ''}
  </form>`;
}

/** A select of a filter: `any` (empty: no filter) first, then each value with its words. */
export function filterSelect<V extends string>(field: {
  name: string;
  label: string;
  any: string;
  values: readonly V[];
  words: (value: V) => string;
  current: V | undefined;
}): SafeHtml {
  return html`<div>
    <label for="${field.name}">${field.label}</label>
    <select id="${field.name}" name="${field.name}">
      <option value="">${field.any}</option>
      ${field.values.map(
        (v) => html`<option value="${v}" ${flag('selected', field.current === v)}>${field.words(v)}</option>`,
      )}
    </select>
  </div>`;
}

const MODES = ['live', 'test'] as const;

/** The live-or-test select of the orders' and subscriptions' filters. */
export function modeSelect(page: DashboardLocale, current: Mode | undefined): SafeHtml {
  const to = page.t.orders;
  return filterSelect({
    name: 'mode',
    label: to.mode,
    any: to.anyMode,
    values: MODES,
    words: (mode) => to[mode],
    current,
  });
}

/** The `livemode` of a list query from the filter's mode. */
export const livemodeOf = (mode: Mode | undefined): boolean | undefined =>
  mode === undefined ? undefined : mode === 'live';

/**
 * A list's table, or `none` when it has no rows; a header given as `false` is left out (a column only
 * some roles see). `stack` (the default): one card per row on narrow screens, each cell labelled by
 * its `data-label`.
 */
export function listTable(
  caption: string,
  none: string,
  headers: Array<string | false>,
  rows: SafeHtml[],
  options: { stack?: boolean } = {},
): SafeHtml {
  if (rows.length === 0) return html`<p>${none}</p>`;
  return html`<table${options.stack === false ? '' : html` class="stack"`}>
    <caption>
      ${caption}
    </caption>
    <thead>
      <tr>
        ${headers.map((h) => (h === false ? '' : html`<th scope="col">${h}</th>`))}
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}

/** The link to a list's next page, when there is one. */
export function nextPageLink(href: string | undefined, text: string): SafeHtml | string {
  return href === undefined ? '' : html`<p><a href="${href}">${text}</a></p>`;
}

/** One fact of a `<dl>`: its term and its value (left out when `value` is false). */
export const fact = (term: string, value: unknown): SafeHtml | string =>
  value === false
    ? ''
    : html`<div>
        <dt>${term}</dt>
        <dd>${value}</dd>
      </div>`;

/** How a status reads at a glance: done well, waiting, gone wrong, or over. */
export type Tone = 'good' | 'warn' | 'bad' | 'idle';

/** A status in a cell: its words, coloured by its tone. */
export const badge = (tone: Tone, words: string): SafeHtml =>
  html`<span class="badge ${tone}">${words}</span>`;

/** A test-mode row says so beside its name. */
export const testMark = (page: DashboardLocale, livemode: boolean): SafeHtml | string =>
  livemode ? '' : html` ${badge('idle', page.t.orders.test)}`;

/** A row's destructive button: the first step, to its confirmation page. */
export function rowConfirm(
  page: DashboardLocale,
  path: string,
  button: { text: string; label: string; neutral?: boolean },
  hidden: Record<string, string> = {},
): SafeHtml {
  return confirmStep(
    page,
    path,
    html`<button type="submit" class="small${button.neutral ? ' neutral' : ''}" aria-label="${button.label}">
      ${button.text}
    </button>`,
    hidden,
  );
}
