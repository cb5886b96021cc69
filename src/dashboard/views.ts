/**
 * The dashboard's pages, server-rendered with the `html` tag (every value escaped). Links, GET filter
 * forms and POST forms that carry the session's CSRF token; one small script only adds copy buttons
 * to values shown once (without it, the value is still there to select).
 */
import { Assets, UI_STATIC } from '../ui/assets.js';
import { assetTags, html, languageItems, SafeHtml } from '../ui/html.js';
import type { ProductRow } from '../catalog/repository.js';
import { EVENT_KINDS, LISTED_EVENT_KINDS } from '../events/kinds.js';
import type { IntegrationProductView, IntegrationRow } from '../integrations/repository.js';
import { WEBHOOK_KIND_TYPES } from '../integrations/types.js';
import type { ApiKeyRow } from '../keys/repository.js';
import type { PanelOrderRow, PanelSubscriptionRow } from '../orders/panel-service.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../shared/enums/delivery-statuses.js';
import { ORDER_STATUSES, type OrderStatus } from '../shared/enums/order-statuses.js';
import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from '../shared/enums/subscription-statuses.js';
import type { PanelPrincipal } from '../shared/http/principal.js';
import type { AttemptCounts, DeliveryView } from '../webhooks/deliveries-service.js';
import type { DashboardLocale } from './locale.js';
import type { DoneKey, ProblemField } from './messages.js';
import type { TestSendResult } from '../webhooks/test-send.js';

/** The dashboard's files: the shared stylesheet and copy buttons, and its own stylesheet. */
export const DASHBOARD_ASSETS = new Assets([UI_STATIC, new URL('./static/', import.meta.url)]);

export interface Chrome {
  principal: PanelPrincipal;
  csrfToken: string;
}

function csrfField(chrome: Chrome): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${chrome.csrfToken}" />`;
}

/** A POST form of a signed-in page: its action keeps the page's language, its body the CSRF token. */
function postForm(page: DashboardLocale, chrome: Chrome, path: string, inner: SafeHtml): SafeHtml {
  return html`<form method="post" action="${page.href(path)}">${csrfField(chrome)}${inner}</form>`;
}

export const canChange = (chrome: Chrome): boolean => chrome.principal.role !== 'read_only';

/**
 * The first step of a destructive action: a GET form to its confirmation page (a button, so it
 * reads and works as the action did, and needs no script).
 */
function confirmStep(
  page: DashboardLocale,
  path: string,
  label: SafeHtml,
  hidden: Record<string, string> = {},
): SafeHtml {
  const fields = { ...hidden, ...(page.chosen ? { lang: page.chosen } : {}) };
  return html`<form method="get" action="${page.href(path).split('?')[0] ?? ''}">
    ${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`)}${label}
  </form>`;
}

/** A value shown once: selectable text in a read-only field, with a copy button when script runs. */
function shownOnce(page: DashboardLocale, id: string, label: string, hint: string, value: string): SafeHtml {
  const { copy } = page.t;
  return html`<div class="secret" role="status">
    <label for="${id}">${label}</label>
    <input type="text" id="${id}" readonly value="${value}" aria-describedby="${id}-hint" />
    <button
      type="button"
      hidden
      class="small"
      data-copy="${id}"
      data-status="${id}-copied"
      data-copied="${copy.done}"
      data-copy-failed="${copy.failed}"
    >
      ${copy.button}
    </button>
    <span id="${id}-copied" aria-live="polite"></span>
    <p class="hint" id="${id}-hint">${hint}</p>
  </div>`;
}

/** Problems of a form, each field's sentence; '' holds a problem of no one field. */
export type FormProblems = Map<ProblemField | '', string>;

function problemSummary(page: DashboardLocale, problems: FormProblems | undefined): SafeHtml | string {
  if (!problems || problems.size === 0) return '';
  return html`<div class="problems" role="alert">
    <p>${page.t.form.problems}</p>
    <ul>
      ${[...problems.values()].map((p) => html`<li>${p}</li>`)}
    </ul>
  </div>`;
}

/** A field's problem under it, and the attributes that tie the field to it. */
function fieldProblem(
  problems: FormProblems | undefined,
  field: ProblemField,
  id: string,
): { note: SafeHtml | string; attrs: SafeHtml | string } {
  const problem = problems?.get(field);
  if (problem === undefined) return { note: '', attrs: '' };
  return {
    note: html`<p class="problem" id="${id}-problem">${problem}</p>`,
    attrs: new SafeHtml(`aria-invalid="true" aria-describedby="${id}-problem"`),
  };
}

/** What the create form and an integration's settings form hold. */
export interface IntegrationFormValues {
  type: string;
  url: string;
  events: string[];
  sendToAllProducts: boolean;
  productIds: number[];
  rateLimit: string;
}

const checked = (on: boolean): SafeHtml | string => (on ? new SafeHtml('checked') : '');

/** Events, products and rate limit: the fields the create and the settings forms share. */
function routingFields(
  page: DashboardLocale,
  values: IntegrationFormValues,
  products: ProductRow[],
  problems: FormProblems | undefined,
): SafeHtml {
  const tf = page.t.form;
  const events = fieldProblem(problems, 'events', 'events');
  const productsProblem = fieldProblem(problems, 'products', 'products');
  const rate = fieldProblem(problems, 'rate_limit_per_second', 'rate_limit_per_second');
  return html`<fieldset ${events.attrs}>
      <legend>${tf.events}</legend>
      <p class="hint">${tf.eventsHint}</p>
      ${events.note}
      ${LISTED_EVENT_KINDS.map(
        ({ value }) =>
          html`<label class="check"
            ><input
              type="checkbox"
              name="events"
              value="${value}"
              ${checked(values.events.includes(value))}
            />
            <code>${value}</code></label
          >`,
      )}
    </fieldset>
    <fieldset ${productsProblem.attrs}>
      <legend>${tf.products}</legend>
      ${productsProblem.note}
      <label class="check"
        ><input
          type="checkbox"
          name="send_to_all_products"
          value="true"
          ${checked(values.sendToAllProducts)}
        />
        ${tf.allProducts}</label
      >
      <p class="hint">${products.length === 0 ? tf.noProducts : tf.productsHint}</p>
      ${products.map(
        (p) =>
          html`<label class="check"
            ><input
              type="checkbox"
              name="products"
              value="${p.id}"
              ${checked(values.productIds.includes(p.id))}
            />
            ${p.name}</label
          >`,
      )}
    </fieldset>
    <label for="rate_limit_per_second">${tf.rateLimit}</label>
    <p class="hint" id="rate-hint">${tf.rateLimitHint}</p>
    ${rate.note}
    <input
      type="number"
      id="rate_limit_per_second"
      name="rate_limit_per_second"
      min="1"
      max="1000"
      step="1"
      inputmode="numeric"
      value="${values.rateLimit}"
      ${rate.attrs || new SafeHtml('aria-describedby="rate-hint"')}
    />`;
}

/** The create form, empty or as it was sent with its problems. */
export function newIntegrationPage(
  page: DashboardLocale,
  chrome: Chrome,
  data: { values: IntegrationFormValues; products: ProductRow[]; problems?: FormProblems | undefined },
): SafeHtml {
  const tf = page.t.form;
  const { values, problems } = data;
  const url = fieldProblem(problems, 'url', 'url');
  const type = fieldProblem(problems, 'type', 'type');
  return layout(
    page,
    tf.title,
    html`<p><a href="${page.href('/integrations')}">${page.t.integration.back}</a></p>
      <h1>${tf.title}</h1>
      <p>${tf.intro}</p>
      ${problemSummary(page, problems)}
      ${postForm(
        page,
        chrome,
        '/integrations',
        html`<label for="type">${tf.type}</label>
          ${type.note}
          <select id="type" name="type" ${type.attrs}>
            ${WEBHOOK_KIND_TYPES.map(
              (t) => html`<option value="${t}" ${selected(values.type === t)}>${tf.types[t]}</option>`,
            )}
          </select>
          <label for="url">${tf.url}</label>
          <p class="hint" id="url-hint">${tf.urlHint}</p>
          ${url.note}
          <input
            type="url"
            id="url"
            name="url"
            required
            value="${values.url}"
            ${url.attrs || new SafeHtml('aria-describedby="url-hint"')}
          />
          ${routingFields(page, values, data.products, problems)}
          <button type="submit">${tf.submit}</button>`,
      )}`,
    chrome,
  );
}

/** A confirmation page: what will happen, a POST form that does it, and a way back. */
export function confirmPage(
  page: DashboardLocale,
  chrome: Chrome,
  data: {
    title: string;
    question: string;
    hint?: string | undefined;
    action: string;
    hidden?: Record<string, string> | undefined;
    submit: string;
    back: string;
  },
): SafeHtml {
  const { t } = page;
  return layout(
    page,
    data.title,
    html`<h1>${data.title}</h1>
      <p id="question">${data.question}</p>
      ${data.hint ? html`<p class="hint">${data.hint}</p>` : ''}
      ${postForm(
        page,
        chrome,
        data.action,
        html`${Object.entries(data.hidden ?? {}).map(
            ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
          )}<button type="submit" class="danger" aria-describedby="question">${data.submit}</button
          ><a class="back" href="${data.back}">${t.confirm.cancel}</a>`,
      )}`,
    chrome,
  );
}

/** The one layout of every dashboard page: language, viewport, the navigation, one main landmark. */
/**
 * A list page's table (`stack`: one card per row on narrow screens, each cell labelled), or `none`
 * when it has no rows; a header given as `false` is left out (a column only some roles see).
 */
function listTable(
  caption: string,
  none: string,
  headers: Array<string | false>,
  rows: SafeHtml[],
): SafeHtml {
  if (rows.length === 0) return html`<p>${none}</p>`;
  return html`<table class="stack">
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
function nextPageLink(href: string | undefined, text: string): SafeHtml | string {
  return href === undefined ? '' : html`<p><a href="${href}">${text}</a></p>`;
}

export function layout(page: DashboardLocale, title: string, body: SafeHtml, chrome?: Chrome): SafeHtml {
  const { t } = page;
  const languages = html`<ul aria-label="${t.languageSwitch}">
    ${languageItems(page.alternates)}
  </ul>`;
  const nav = chrome
    ? html`<nav aria-label="${t.navigation}">
        <a href="${page.href('/integrations')}">${t.integrations.title}</a>
        <a href="${page.href('/orders')}">${t.orders.title}</a>
        <a href="${page.href('/subscriptions')}">${t.subscriptions.title}</a>
        <a href="${page.href('/keys')}">${t.keys.title}</a>
        ${languages}
        <span class="who">${t.signedInAs(t.roles[chrome.principal.role])}</span>
        ${postForm(page, chrome, '/sign-out', html`<button type="submit">${t.signOut}</button>`)}
      </nav>`
    : html`<nav aria-label="${t.navigation}">${languages}</nav>`;
  return html`<!doctype html>
    <html lang="${t.locale}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>${title} · ${t.product}</title>
        ${assetTags({
          styles: ['base.css', 'dashboard.css'].map((name) => page.bare(`/${DASHBOARD_ASSETS.path(name)}`)),
          scripts: [page.bare(`/${DASHBOARD_ASSETS.path('copy.js')}`)],
        })}
      </head>
      <body>
        <header>${nav}</header>
        <main>${body}</main>
      </body>
    </html>`;
}

const doneNotice = (page: DashboardLocale, done: DoneKey | undefined, extra?: string): SafeHtml | string =>
  done ? html`<p class="done" role="status">${page.t.done[done]}${extra ? ` ${extra}` : ''}</p>` : '';

export function signInPage(page: DashboardLocale, options: { refused?: boolean; done?: DoneKey }): SafeHtml {
  const { t } = page;
  return layout(
    page,
    t.signIn.title,
    html`<h1>${t.signIn.title}</h1>
      ${doneNotice(page, options.done)}
      ${options.refused ? html`<p class="notice" role="alert" id="refused">${t.signIn.refused}</p>` : ''}
      <p>${t.signIn.intro}</p>
      <form method="post" action="${page.href('/sign-in')}">
        <label for="credential">${t.signIn.credential}</label>
        <input
          type="password"
          id="credential"
          name="credential"
          autocomplete="off"
          required
          aria-describedby="credential-hint${options.refused ? ' refused' : ''}"
          ${options.refused ? new SafeHtml('aria-invalid="true"') : ''}
        />
        <p class="hint" id="credential-hint">${t.signIn.hint}</p>
        <button type="submit">${t.signIn.submit}</button>
      </form>`,
  );
}

export interface IntegrationHealth {
  row: IntegrationRow;
  counts: AttemptCounts | undefined;
}

function stateBadge(page: DashboardLocale, row: IntegrationRow): SafeHtml {
  const { t } = page;
  if (row.isActive) return html`<span class="badge good">${t.integrations.active}</span>`;
  if (row.disabledReason === 'auto_disabled')
    return html`<span class="badge bad">${t.integrations.autoDisabled}</span>`;
  return html`<span class="badge idle">${t.integrations.inactive}</span>`;
}

/** The last 24 h as a small bar: the green part succeeded, the red part did not. */
function rateBar(page: DashboardLocale, counts: AttemptCounts | undefined): SafeHtml {
  const { t } = page;
  if (!counts || counts.attempts === 0) return html`<span>${t.integrations.noAttempts}</span>`;
  const share = counts.succeeded / counts.attempts;
  const width = 120;
  const ok = Math.round(share * width);
  return html`<span class="rate"
    ><svg width="${width}" height="14" viewBox="0 0 ${width} 14" aria-hidden="true" focusable="false">
      <rect x="0" y="0" width="${ok}" height="14" fill="#166534" />
      <rect x="${ok}" y="0" width="${width - ok}" height="14" fill="#b42318" />
    </svg>
    <span>${t.integrations.rate(Math.floor(share * 100), counts.attempts)}</span></span
  >`;
}

const urlOf = (row: IntegrationRow): string => row.config.url ?? row.type;

export function integrationsPage(
  page: DashboardLocale,
  chrome: Chrome,
  items: IntegrationHealth[],
  done?: DoneKey | undefined,
): SafeHtml {
  const { t } = page;
  const cards = items.map(
    ({ row, counts }) =>
      html`<li>
        <h2><a href="${page.href(`/integrations/${row.id}`)}">${t.integrations.open(row.id)}</a></h2>
        <p><code>${urlOf(row)}</code></p>
        <dl>
          <div>
            <dt>${t.integrations.state}</dt>
            <dd>${stateBadge(page, row)}</dd>
          </div>
          <div>
            <dt>${t.integrations.failures}</dt>
            <dd>${row.failureCount}</dd>
          </div>
          <div>
            <dt>${t.integrations.lastFailure}</dt>
            <dd>${row.lastFailureAt ? page.dateTime(row.lastFailureAt) : t.integrations.never}</dd>
          </div>
          <div>
            <dt>${t.integrations.successRate}</dt>
            <dd>${rateBar(page, counts)}</dd>
          </div>
        </dl>
      </li>`,
  );
  return layout(
    page,
    t.integrations.title,
    html`<h1>${t.integrations.title}</h1>
      ${doneNotice(page, done)}
      ${
        canChange(chrome)
          ? html`<p><a href="${page.href('/integrations/new')}">${t.integrations.create}</a></p>`
          : html`<p class="notice">${t.readOnly}</p>`
      }
      ${
        items.length === 0
          ? html`<p>${t.integrations.none}</p>`
          : html`<ul class="cards" aria-label="${t.integrations.caption}">
              ${cards}
            </ul>`
      }`,
    chrome,
  );
}

export interface DeliveryFilter {
  status?: DeliveryStatus | undefined;
  event_type?: string | undefined;
  /** `datetime-local` values, Brasília time, as the filter form sent them. */
  from?: string | undefined;
  to?: string | undefined;
}

/** `YYYY-MM-DDTHH:MM` in Brasília (UTC-03:00, no daylight saving since 2019), for a datetime-local. */
export const brasiliaLocalInput = (instant: Date): string =>
  new Date(instant.getTime() - 3 * 3_600_000).toISOString().slice(0, 16);

const statusBadge = (page: DashboardLocale, status: DeliveryStatus): SafeHtml => {
  const tone = { succeeded: 'good', failed: 'bad', skipped: 'idle', pending: 'warn' }[status];
  return html`<span class="badge ${tone}">${page.t.deliveryStatuses[status]}</span>`;
};

const lastResult = (page: DashboardLocale, d: DeliveryView): string =>
  d.lastStatusCode !== null
    ? `HTTP ${d.lastStatusCode}`
    : (d.lastError ?? (d.attempts === 0 ? '' : page.t.delivery.noResponse));

export function integrationPage(
  page: DashboardLocale,
  chrome: Chrome,
  data: {
    row: IntegrationRow;
    counts: AttemptCounts | undefined;
    deliveries: DeliveryView[];
    hasMore: boolean;
    filter: DeliveryFilter;
    done?: DoneKey | undefined;
    doneExtra?: string | undefined;
    newSecret?: string | undefined;
    links: IntegrationProductView[];
    products: ProductRow[];
    tested?: TestSendResult | undefined;
    settingsProblems?: FormProblems | undefined;
    settingsValues?: IntegrationFormValues | undefined;
  },
): SafeHtml {
  const { t } = page;
  const ti = t.integration;
  const tt = t.testSend;
  const { row } = data;
  const base = `/integrations/${row.id}`;
  const webhook = row.config.url !== undefined;
  const actions = !canChange(chrome)
    ? html`<p class="notice">${t.readOnly}</p>`
    : html`<h2>${ti.actions}</h2>
        <div class="actions">
          ${
            row.isActive
              ? ''
              : html`<section aria-labelledby="reenable-title">
                  <h3 id="reenable-title">${ti.reenable}</h3>
                  <p class="hint">${ti.reenableHint}</p>
                  ${postForm(page, chrome, `${base}/enable`, html`<button type="submit">${ti.reenable}</button>`)}
                </section>`
          }
          ${
            webhook
              ? html`<section aria-labelledby="url-title">
                  <h3 id="url-title">${ti.editUrl}</h3>
                  ${postForm(
                    page,
                    chrome,
                    `${base}/url`,
                    html`<label for="url">${ti.url}</label>
                      <input type="url" id="url" name="url" required value="${row.config.url ?? ''}" />
                      <button type="submit">${ti.saveUrl}</button>`,
                  )}
                </section>`
              : ''
          }
          <section aria-labelledby="recover-title">
            <h3 id="recover-title">${ti.recover}</h3>
            <p class="hint" id="recover-hint">${ti.recoverHint}</p>
            ${postForm(
              page,
              chrome,
              `${base}/recover`,
              html`<label for="since">${ti.since}</label>
                <input
                  type="datetime-local"
                  id="since"
                  name="since"
                  required
                  aria-describedby="recover-hint since-hint"
                  value="${brasiliaLocalInput(new Date(Date.now() - 3_600_000))}"
                />
                <p class="hint" id="since-hint">${ti.sinceHint}</p>
                <button type="submit">${ti.recoverSubmit}</button>`,
            )}
          </section>
          ${
            webhook
              ? html`<section aria-labelledby="rotate-title">
                  <h3 id="rotate-title">${ti.rotate}</h3>
                  <p class="hint">${ti.rotateHint}</p>
                  ${confirmStep(page, `${base}/rotate-secret`, html`<button type="submit">${ti.rotateSubmit}</button>`)}
                </section>`
              : ''
          }
          ${
            webhook
              ? html`<section aria-labelledby="test-title">
                  <h3 id="test-title">${tt.title}</h3>
                  <p class="hint">${tt.hint}</p>
                  ${postForm(
                    page,
                    chrome,
                    `${base}/test`,
                    html`<label for="test-event">${tt.event}</label>
                      <select id="test-event" name="event">
                        ${(row.events.length > 0 ? row.events : LISTED_EVENT_KINDS.map((k) => k.value)).map(
                          (k) => html`<option value="${k}">${k}</option>`,
                        )}
                      </select>
                      <button type="submit">${tt.submit}</button>`,
                  )}
                </section>`
              : ''
          }
          <section aria-labelledby="delete-title">
            <h3 id="delete-title">${t.confirm.deleteIntegration}</h3>
            <p class="hint">${t.confirm.deleteHint}</p>
            ${confirmStep(page, `${base}/delete`, html`<button type="submit" class="danger">${t.confirm.deleteIntegration}</button>`)}
          </section>
        </div>
        <section aria-labelledby="settings-title">
          <h3 id="settings-title">${t.form.settings}</h3>
          ${problemSummary(page, data.settingsProblems)}
          ${postForm(
            page,
            chrome,
            `${base}/settings`,
            html`${routingFields(
                page,
                data.settingsValues ?? {
                  type: row.type,
                  url: row.config.url ?? '',
                  events: row.events,
                  sendToAllProducts: row.sendToAllProducts,
                  productIds: data.links.map((l) => l.productId),
                  rateLimit: row.rateLimitPerSecond === null ? '' : String(row.rateLimitPerSecond),
                },
                data.products,
                data.settingsProblems,
              )} <button type="submit">${t.form.saveSettings}</button>`,
          )}
        </section>`;
  const filter = html`<form
    method="get"
    action="${page.href(base)}"
    class="filters"
    aria-label="${ti.filter}"
  >
    ${page.chosen ? html`<input type="hidden" name="lang" value="${page.chosen}" />` : ''}
    <div>
      <label for="status">${ti.status}</label>
      <select id="status" name="status">
        <option value="">${ti.anyStatus}</option>
        ${DELIVERY_STATUSES.map(
          (s) =>
            html`<option value="${s}" ${data.filter.status === s ? new SafeHtml('selected') : ''}>
              ${t.deliveryStatuses[s]}
            </option>`,
        )}
      </select>
    </div>
    <div>
      <label for="event_type">${ti.eventType}</label>
      <select id="event_type" name="event_type">
        <option value="">${ti.anyEvent}</option>
        ${EVENT_KINDS.map(
          (k) =>
            html`<option value="${k}" ${data.filter.event_type === k ? new SafeHtml('selected') : ''}>
              ${k}
            </option>`,
        )}
      </select>
    </div>
    <div>
      <label for="from">${ti.from}</label>
      <input
        type="datetime-local"
        id="from"
        name="from"
        value="${data.filter.from ?? ''}"
        aria-describedby="time-hint"
      />
    </div>
    <div>
      <label for="to">${ti.to}</label>
      <input
        type="datetime-local"
        id="to"
        name="to"
        value="${data.filter.to ?? ''}"
        aria-describedby="time-hint"
      />
    </div>
    <div><button type="submit">${ti.apply}</button></div>
    <p class="hint" id="time-hint">${ti.timeHint}</p>
  </form>`;
  const last = data.deliveries.at(-1);
  const rows = data.deliveries.map(
    (d) =>
      html`<tr>
        <td><a href="${page.href(`${base}/deliveries/${d.id}`)}">${d.id}</a></td>
        <td>${d.eventType}</td>
        <td>${statusBadge(page, d.status)}</td>
        <td>${d.attempts}</td>
        <td>${lastResult(page, d)}</td>
        <td>${page.dateTime(d.createdAt)}</td>
      </tr>`,
  );
  return layout(
    page,
    ti.title(row.id),
    html`<p><a href="${page.href('/integrations')}">${ti.back}</a></p>
      <h1>${ti.title(row.id)}</h1>
      ${doneNotice(page, data.done, data.doneExtra)}
      ${
        data.tested
          ? html`<p class="${data.tested.success ? 'done' : 'notice'}" role="status" id="test-outcome">
              ${(data.tested.success ? tt.ok : tt.failed)(
                data.tested.type,
                data.tested.status,
                data.tested.duration_ms,
              )}
            </p>`
          : ''
      }
      ${data.newSecret ? shownOnce(page, 'new-secret', ti.newSecret, ti.newSecretHint, data.newSecret) : ''}
      <h2>${ti.facts}</h2>
      <dl>
        <div>
          <dt>${t.integrations.state}</dt>
          <dd>${stateBadge(page, row)}</dd>
        </div>
        ${
          webhook
            ? html`<div>
                <dt>${ti.url}</dt>
                <dd><code id="current-url">${row.config.url}</code></dd>
              </div>`
            : ''
        }
        <div>
          <dt>${ti.events}</dt>
          <dd>${row.events.length === 0 ? ti.allEvents : row.events.join(', ')}</dd>
        </div>
        <div>
          <dt>${t.integrations.failures}</dt>
          <dd>${row.failureCount}</dd>
        </div>
        <div>
          <dt>${t.integrations.lastFailure}</dt>
          <dd>${row.lastFailureAt ? page.dateTime(row.lastFailureAt) : t.integrations.never}</dd>
        </div>
        ${
          row.disabledReason
            ? html`<div>
                <dt>${ti.disabledReason}</dt>
                <dd>${row.disabledReason}</dd>
              </div>`
            : ''
        }
        <div>
          <dt>${t.integrations.successRate}</dt>
          <dd>${rateBar(page, data.counts)}</dd>
        </div>
      </dl>
      ${actions}
      <h2>${ti.deliveries}</h2>
      ${filter}
      ${
        data.deliveries.length === 0
          ? html`<p>${ti.noDeliveries}</p>`
          : html`<table>
              <caption>
                ${ti.deliveries}
              </caption>
              <thead>
                <tr>
                  <th scope="col">${ti.delivery}</th>
                  <th scope="col">${ti.eventType}</th>
                  <th scope="col">${ti.status}</th>
                  <th scope="col">${ti.attempts}</th>
                  <th scope="col">${ti.lastResult}</th>
                  <th scope="col">${ti.created}</th>
                </tr>
              </thead>
              <tbody>
                ${rows}
              </tbody>
            </table>`
      }
      ${
        data.hasMore && last
          ? html`<p>
              <a href="${page.href(base, { ...data.filter, starting_after: last.id })}">${ti.more}</a>
            </p>`
          : ''
      }`,
    chrome,
  );
}

export function deliveryPage(
  page: DashboardLocale,
  chrome: Chrome,
  data: { integrationId: number; delivery: DeliveryView; done?: DoneKey | undefined },
): SafeHtml {
  const { t } = page;
  const td = t.delivery;
  const d = data.delivery;
  const base = `/integrations/${data.integrationId}`;
  const attempts = [...d.history].reverse().map(
    (a) =>
      html`<section class="attempt" aria-labelledby="attempt-${a.attempt}">
        <h2 id="attempt-${a.attempt}">${td.attempt(a.attempt)}</h2>
        <dl>
          <div>
            <dt>${td.requestedAt}</dt>
            <dd>${page.dateTime(a.requestedAt)}</dd>
          </div>
          <div>
            <dt>${td.responseStatus}</dt>
            <dd>
              ${a.statusCode === null ? td.noResponse : `HTTP ${a.statusCode}`} · ${td.duration(a.durationMs)}
            </dd>
          </div>
          ${
            a.error
              ? html`<div>
                  <dt>${td.error}</dt>
                  <dd>${a.error}</dd>
                </div>`
              : ''
          }
        </dl>
        <h3>${td.request}</h3>
        ${
          a.request
            ? html`<h4>${td.headers}</h4>
                <pre>
${Object.entries(a.request.headers)
                    .map(([name, value]) => `${name}: ${value}`)
                    .join('\n')}</pre>
                <h4>${td.body}</h4>
                <pre>${a.request.body || td.emptyBody}</pre>`
            : html`<p>${td.notKept}</p>`
        }
        <h3>${td.response}</h3>
        <pre>${a.responseBody || td.emptyBody}</pre>
      </section>`,
  );
  const resend =
    canChange(chrome) && d.status !== 'pending'
      ? postForm(
          page,
          chrome,
          `${base}/deliveries/${d.id}/resend`,
          html`<button type="submit">${td.resend}</button>`,
        )
      : '';
  return layout(
    page,
    td.title(d.id),
    html`<p><a href="${page.href(base)}">${td.back}</a></p>
      <h1>${td.title(d.id)}</h1>
      ${doneNotice(page, data.done)}
      <dl>
        <div>
          <dt>${td.event}</dt>
          <dd>${d.eventType} · <code>${d.eventId}</code></dd>
        </div>
        <div>
          <dt>${t.integration.status}</dt>
          <dd>${statusBadge(page, d.status)}</dd>
        </div>
        <div>
          <dt>${t.integration.attempts}</dt>
          <dd>${d.attempts}</dd>
        </div>
        ${
          d.nextAttemptAt
            ? html`<div>
                <dt>${td.nextAttempt}</dt>
                <dd>${page.dateTime(d.nextAttemptAt)}</dd>
              </div>`
            : ''
        }
      </dl>
      ${resend} ${d.history.length === 0 ? html`<p>${td.noAttempts}</p>` : attempts}`,
    chrome,
  );
}

export function errorPageOf(
  page: DashboardLocale,
  status: number,
  message: string,
  chrome?: Chrome,
): SafeHtml {
  return layout(
    page,
    page.t.errorTitle(status),
    html`<h1>${page.t.errorTitle(status)}</h1>
      <p class="notice">${message}</p>
      <p><a href="${page.href('/integrations')}">${page.t.integrations.title}</a></p>`,
    chrome,
  );
}

export interface OrderFilter {
  status?: OrderStatus | undefined;
  mode?: 'live' | 'test' | undefined;
}

const orderBadge = (page: DashboardLocale, status: OrderStatus): SafeHtml => {
  const tone = {
    paid: 'good',
    pending: 'warn',
    failed: 'bad',
    refunded: 'idle',
    abandoned: 'idle',
    charged_back: 'bad',
  }[status];
  return html`<span class="badge ${tone}">${page.t.orderStatuses[status]}</span>`;
};

const selected = (on: boolean): SafeHtml | string => (on ? new SafeHtml('selected') : '');

export function ordersPage(
  page: DashboardLocale,
  chrome: Chrome,
  data: { orders: PanelOrderRow[]; hasMore: boolean; filter: OrderFilter; done?: DoneKey | undefined },
): SafeHtml {
  const { t } = page;
  const to = t.orders;
  const filter = html`<form
    method="get"
    action="${page.href('/orders')}"
    class="filters"
    aria-label="${to.filter}"
  >
    ${page.chosen ? html`<input type="hidden" name="lang" value="${page.chosen}" />` : ''}
    <div>
      <label for="status">${to.status}</label>
      <select id="status" name="status">
        <option value="">${to.anyStatus}</option>
        ${ORDER_STATUSES.map(
          (s) =>
            html`<option value="${s}" ${selected(data.filter.status === s)}>${t.orderStatuses[s]}</option>`,
        )}
      </select>
    </div>
    <div>
      <label for="mode">${to.mode}</label>
      <select id="mode" name="mode">
        <option value="">${to.anyMode}</option>
        <option value="live" ${selected(data.filter.mode === 'live')}>${to.live}</option>
        <option value="test" ${selected(data.filter.mode === 'test')}>${to.test}</option>
      </select>
    </div>
    <div><button type="submit">${to.apply}</button></div>
  </form>`;
  const change = canChange(chrome);
  const rows = data.orders.map(
    ({ order, productName }) =>
      html`<tr>
        <td data-label="${to.order}">
          <code>${order.code}</code>${order.livemode ? '' : html` <span class="badge idle">${to.test}</span>`}
        </td>
        <td data-label="${to.buyer}">${order.customer?.name ?? ''}</td>
        <td data-label="${to.product}">${productName}</td>
        <td data-label="${to.amount}">${page.money(order.amount)}</td>
        <td data-label="${to.status}">${orderBadge(page, order.status)}</td>
        <td data-label="${to.created}">${page.dateTime(order.createdAt)}</td>
        ${
          change
            ? html`<td data-label="${to.action}">
                ${
                  order.status === 'paid'
                    ? confirmStep(
                        page,
                        `/orders/${order.code}/refund`,
                        html`<button type="submit" class="small" aria-label="${to.refundLabel(order.code)}">
                          ${to.refund}
                        </button>`,
                      )
                    : ''
                }
              </td>`
            : ''
        }
      </tr>`,
  );
  const last = data.orders.at(-1);
  return layout(
    page,
    to.title,
    html`<h1>${to.title}</h1>
      ${doneNotice(page, data.done)} ${change ? '' : html`<p class="notice">${t.readOnly}</p>`} ${filter}
      ${listTable(
        to.title,
        to.none,
        [to.order, to.buyer, to.product, to.amount, to.status, to.created, change && to.action],
        rows,
      )}
      ${nextPageLink(
        data.hasMore && last
          ? page.href('/orders', { ...data.filter, starting_after: last.order.code })
          : undefined,
        to.more,
      )}`,
    chrome,
  );
}

export interface SubscriptionFilter {
  status?: SubscriptionStatus | undefined;
  mode?: 'live' | 'test' | undefined;
}

export function subscriptionsPage(
  page: DashboardLocale,
  chrome: Chrome,
  data: {
    subscriptions: PanelSubscriptionRow[];
    hasMore: boolean;
    filter: SubscriptionFilter;
    done?: DoneKey | undefined;
  },
): SafeHtml {
  const { t } = page;
  const ts = t.subscriptions;
  const to = t.orders;
  const change = canChange(chrome);
  const filter = html`<form
    method="get"
    action="${page.href('/subscriptions')}"
    class="filters"
    aria-label="${ts.filter}"
  >
    ${page.chosen ? html`<input type="hidden" name="lang" value="${page.chosen}" />` : ''}
    <div>
      <label for="status">${to.status}</label>
      <select id="status" name="status">
        <option value="">${to.anyStatus}</option>
        ${SUBSCRIPTION_STATUSES.map(
          (s) =>
            html`<option value="${s}" ${selected(data.filter.status === s)}>
              ${t.subscriptionStatuses[s]}
            </option>`,
        )}
      </select>
    </div>
    <div>
      <label for="mode">${to.mode}</label>
      <select id="mode" name="mode">
        <option value="">${to.anyMode}</option>
        <option value="live" ${selected(data.filter.mode === 'live')}>${to.live}</option>
        <option value="test" ${selected(data.filter.mode === 'test')}>${to.test}</option>
      </select>
    </div>
    <div><button type="submit">${to.apply}</button></div>
  </form>`;
  const rows = data.subscriptions.map(({ subscription: sub, planCode, billingCycle }) => {
    const tone = { active: 'good', past_due: 'warn', canceled: 'idle' }[sub.status];
    const actions =
      sub.status === 'canceled'
        ? ''
        : html`<div class="row-actions">
            ${confirmStep(
              page,
              `/subscriptions/${sub.id}/cancel`,
              html`<button type="submit" class="small" aria-label="${ts.cancelNowLabel(sub.id)}">
                ${ts.cancelNow}
              </button>`,
            )}
            ${
              sub.cancelAtPeriodEnd || sub.status !== 'active'
                ? ''
                : confirmStep(
                    page,
                    `/subscriptions/${sub.id}/cancel`,
                    html`<button
                      type="submit"
                      class="small neutral"
                      aria-label="${ts.cancelAtEndLabel(sub.id)}"
                    >
                      ${ts.cancelAtEnd}
                    </button>`,
                    { at_period_end: 'true' },
                  )
            }
          </div>`;
    return html`<tr>
      <td data-label="${ts.subscription}">
        ${sub.id}${sub.livemode ? '' : html` <span class="badge idle">${to.test}</span>`}
      </td>
      <td data-label="${ts.plan}"><code>${planCode}</code> · ${t.cycles[billingCycle]}</td>
      <td data-label="${to.status}">
        <span class="badge ${tone}">${t.subscriptionStatuses[sub.status]}</span>
        ${sub.cancelAtPeriodEnd && sub.status !== 'canceled' ? html`<span class="hint">${ts.endsAtPeriodEnd}</span>` : ''}
      </td>
      <td data-label="${ts.periodEnd}">${page.dateTime(sub.currentPeriodEnd)}</td>
      ${change ? html`<td data-label="${to.action}">${actions}</td>` : ''}
    </tr>`;
  });
  const last = data.subscriptions.at(-1);
  return layout(
    page,
    ts.title,
    html`<h1>${ts.title}</h1>
      ${doneNotice(page, data.done)} ${change ? '' : html`<p class="notice">${t.readOnly}</p>`} ${filter}
      ${listTable(
        ts.title,
        ts.none,
        [ts.subscription, ts.plan, to.status, ts.periodEnd, change && to.action],
        rows,
      )}
      ${nextPageLink(
        data.hasMore && last
          ? page.href('/subscriptions', { ...data.filter, starting_after: last.subscription.id })
          : undefined,
        ts.more,
      )}`,
    chrome,
  );
}

export function keysPage(
  page: DashboardLocale,
  chrome: Chrome,
  data: { keys: ApiKeyRow[]; done?: DoneKey | undefined; newKey?: string | undefined },
): SafeHtml {
  const { t } = page;
  const tk = t.keys;
  const owner = chrome.principal.role === 'owner';
  const rows = data.keys.map(
    (key) =>
      html`<tr>
        <td data-label="${tk.name}">${key.name}</td>
        <td data-label="${tk.kind}">${tk.kinds[key.kind]}</td>
        <td data-label="${tk.mode}">${key.test ? t.orders.test : t.orders.live}</td>
        <td data-label="${tk.key}"><code>${key.prefix}…${key.last4}</code></td>
        <td data-label="${tk.lastUsed}">${key.lastUsedAt ? page.dateTime(key.lastUsedAt) : tk.never}</td>
        <td data-label="${tk.state}">
          ${
            key.revokedAt
              ? html`<span class="badge idle">${tk.revoked}</span>`
              : html`<span class="badge good">${tk.active}</span>`
          }
        </td>
        ${
          owner
            ? html`<td data-label="${t.orders.action}">
                ${
                  key.revokedAt
                    ? ''
                    : confirmStep(
                        page,
                        `/keys/${key.id}/revoke`,
                        html`<button type="submit" class="small" aria-label="${tk.revokeLabel(key.name)}">
                          ${tk.revoke}
                        </button>`,
                      )
                }
              </td>`
            : ''
        }
      </tr>`,
  );
  const create = owner
    ? html`<section aria-labelledby="create-title" class="actions-one">
        <h2 id="create-title">${tk.create}</h2>
        ${postForm(
          page,
          chrome,
          '/keys',
          html`<label for="key-name">${tk.name}</label>
            <input type="text" id="key-name" name="name" required maxlength="100" />
            <label for="key-kind">${tk.kind}</label>
            <select id="key-kind" name="kind">
              <option value="read_only">${tk.kinds.read_only}</option>
              <option value="payments">${tk.kinds.payments}</option>
            </select>
            <label for="key-mode">${tk.mode}</label>
            <select id="key-mode" name="mode">
              <option value="test">${t.orders.test}</option>
              <option value="live">${t.orders.live}</option>
            </select>
            <button type="submit">${tk.createSubmit}</button>`,
        )}
      </section>`
    : html`<p class="notice">${chrome.principal.role === 'read_only' ? t.readOnly : tk.ownerOnly}</p>`;
  return layout(
    page,
    tk.title,
    html`<h1>${tk.title}</h1>
      ${doneNotice(page, data.done)}
      ${data.newKey ? shownOnce(page, 'new-key', tk.newKey, tk.newKeyHint, data.newKey) : ''}
      ${listTable(
        tk.title,
        tk.none,
        [tk.name, tk.kind, tk.mode, tk.key, tk.lastUsed, tk.state, owner && t.orders.action],
        rows,
      )}
      ${create}`,
    chrome,
  );
}
