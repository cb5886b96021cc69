/**
 * The integrations: their list with each one's health, the create form, and one integration's page
 * (its facts, its actions, its settings form, its deliveries).
 */
import type { ProductRow } from '../../catalog/repository.js';
import { stringOf } from '../../integrations/kinds/config-values.js';
import { LISTED_EVENT_KINDS } from '../../events/kinds.js';
import type { IntegrationProductView, IntegrationRow } from '../../integrations/repository.js';
import type { MercadoPagoState } from '../../gateways/accounts/state.js';
import { WEBHOOK_KIND_TYPES } from '../../integrations/kinds/types.js';
import { flag, html, type SafeHtml } from '../../ui/html.js';
import type { AttemptCounts, DeliveryView } from '../../webhooks/deliveries-service.js';
import type { TestSendResult } from '../../webhooks/test-send.js';
import { deliveriesSection, recoverAction, type DeliveryFilter } from '../deliveries/views.js';
import { INVOICE_FORM_WORDS } from '../invoices/messages.js';
import { checkbox, fieldProblem, problemSummary, shownOnce, type FormProblems } from '../forms.js';
import type { DashboardLocale } from '../locale.js';
import { badge, fact } from '../lists.js';
import type { DoneKey } from '../messages.js';
import { canChange, confirmStep, doneNotice, layout, postForm, type Chrome } from '../page.js';
import { adPixelSection, adPixelWords } from './ad-pixel.js';
import { filterText, headersText } from './rules.js';

/** What the create form and an integration's settings form hold. */
export interface IntegrationFormValues {
  type: string;
  url: string;
  events: string[];
  sendToAllProducts: boolean;
  productIds: number[];
  rateLimit: string;
}

/** Events, products and rate limit: the fields the create and the settings forms share. */
export function routingFields(
  page: DashboardLocale,
  values: IntegrationFormValues,
  products: ProductRow[],
  problems: FormProblems | undefined,
): SafeHtml {
  const tf = page.t.form;
  const events = fieldProblem(problems, 'events', 'events');
  const productsProblem = fieldProblem(problems, 'products', 'products');
  const rate = fieldProblem(problems, 'rate_limit_per_second', 'rate_limit_per_second', 'rate-hint');
  return html`<fieldset ${events.attrs}>
      <legend>${tf.events}</legend>
      <p class="hint">${tf.eventsHint}</p>
      ${events.note}
      ${LISTED_EVENT_KINDS.map(({ value }) =>
        checkbox({
          name: 'events',
          value,
          checked: values.events.includes(value),
          label: html`<code>${value}</code>`,
        }),
      )}
    </fieldset>
    <fieldset ${productsProblem.attrs}>
      <legend>${tf.products}</legend>
      ${productsProblem.note}
      ${checkbox({ name: 'send_to_all_products', value: 'true', checked: values.sendToAllProducts, label: tf.allProducts })}
      <p class="hint">${products.length === 0 ? tf.noProducts : tf.productsHint}</p>
      ${products.map((p) =>
        checkbox({ name: 'products', value: p.id, checked: values.productIds.includes(p.id), label: p.name }),
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
      ${rate.attrs}
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
  const url = fieldProblem(problems, 'url', 'url', 'url-hint');
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
              (t) =>
                html`<option value="${t}" ${flag('selected', values.type === t)}>${tf.types[t]}</option>`,
            )}
          </select>
          <label for="url">${tf.url}</label>
          <p class="hint" id="url-hint">${tf.urlHint}</p>
          ${url.note}
          <input type="url" id="url" name="url" required value="${values.url}" ${url.attrs} />
          ${routingFields(page, values, data.products, problems)}
          <button type="submit">${tf.submit}</button>`,
      )}`,
    chrome,
  );
}

export interface IntegrationHealth {
  row: IntegrationRow;
  counts: AttemptCounts | undefined;
}

function stateBadge(page: DashboardLocale, row: IntegrationRow): SafeHtml {
  const { t } = page;
  if (row.isActive) return badge('good', t.integrations.active);
  if (row.disabledReason === 'auto_disabled') return badge('bad', t.integrations.autoDisabled);
  return badge('idle', t.integrations.inactive);
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

const urlOf = (row: IntegrationRow): string => stringOf(row.config, 'url') ?? row.type;

/** How many attempts in a row failed, and when the last one did: on the list's cards and the page. */
const failureFacts = (page: DashboardLocale, row: IntegrationRow): SafeHtml => {
  const { integrations } = page.t;
  return html`${fact(integrations.failures, row.failureCount)}
  ${fact(integrations.lastFailure, row.lastFailureAt ? page.dateTime(row.lastFailureAt) : integrations.never)}`;
};

/**
 * The company's connection to Mercado Pago: connect it (the button creates the gateway and goes to
 * MP's consent page), continue or renew an authorization, or the account it is connected to.
 * Read-only sessions see where it stands, never a button (nor the authorization address).
 */
function gatewaySection(page: DashboardLocale, chrome: Chrome, gateway: MercadoPagoState): SafeHtml {
  const { t } = page;
  const tg = t.gateway;
  if (gateway.state === 'unavailable') return html``;
  const button = (label: string) =>
    canChange(chrome)
      ? postForm(
          page,
          chrome,
          '/integrations/mercadopago',
          html`<button class="ok" type="submit">${label}</button>`,
        )
      : '';
  let body: SafeHtml;
  switch (gateway.state) {
    case 'none':
      body = html`<p>${tg.none}</p>
        ${button(tg.connect)}`;
      break;
    case 'other':
      body = html`<p>${tg.other}</p>
        ${button(tg.connect)}`;
      break;
    case 'pending':
      body = gateway.reconnect
        ? html`<p class="notice">${tg.reconnectNeeded}</p>
            ${button(tg.reconnect)}`
        : html`<p>${tg.pending}</p>
            ${button(tg.continue)}`;
      break;
    case 'connected':
      body = html`<p class="done">${tg.connected(gateway.accountId)}</p>
        ${
          gateway.connectedAt
            ? html`<dl>${fact(tg.since, page.dateTime(new Date(gateway.connectedAt)))}</dl>`
            : ''
        }`;
      break;
  }
  return html`<section aria-labelledby="payments-heading">
    <h2 id="payments-heading">${tg.heading}</h2>
    ${body}
  </section>`;
}

export function integrationsPage(
  page: DashboardLocale,
  chrome: Chrome,
  items: IntegrationHealth[],
  done: DoneKey | undefined,
  gateway: MercadoPagoState,
): SafeHtml {
  const { t } = page;
  const cards = items.map(
    ({ row, counts }) =>
      html`<li>
        <h2>
          <a
            href="${page.href(row.type === 'invoice' ? `/integrations/${row.id}/invoice` : `/integrations/${row.id}`)}"
            >${t.integrations.open(row.id)}</a
          >
        </h2>
        <p><code>${urlOf(row)}</code></p>
        <dl>
          ${fact(t.integrations.state, stateBadge(page, row))} ${failureFacts(page, row)}
          ${fact(t.integrations.successRate, rateBar(page, counts))}
        </dl>
      </li>`,
  );
  return layout(
    page,
    t.integrations.title,
    html`<h1>${t.integrations.title}</h1>
      ${doneNotice(page, done)} ${gatewaySection(page, chrome, gateway)}
      ${
        canChange(chrome)
          ? html`<p><a href="${page.href('/integrations/new')}">${t.integrations.create}</a></p>
              <p><a href="${page.href('/integrations/new-ad-pixel')}">${adPixelWords(page).newLink}</a></p>
              <p>
                <a href="${page.href('/integrations/invoice/new')}"
                  >${INVOICE_FORM_WORDS[page.lang].newLink}</a
                >
              </p>`
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

/** The filter's conditions, one a line, or that there is none. */
function filterFact(page: DashboardLocale, row: IntegrationRow): SafeHtml | string {
  const text = filterText(row.filter);
  return text === ''
    ? page.t.integration.noFilter
    : html`<pre id="current-filter"><code>${text}</code></pre>`;
}

/** The custom headers' names, values masked. */
function headersFact(page: DashboardLocale, row: IntegrationRow): SafeHtml | string {
  const text = headersText(row.headers);
  return text === ''
    ? page.t.integration.noHeaders
    : html`<pre id="current-headers"><code>${text}</code></pre>`;
}

/** The forms that change the filter and the headers (owners and members). */
function rulesForms(page: DashboardLocale, chrome: Chrome, base: string, row: IntegrationRow): SafeHtml {
  const ti = page.t.integration;
  return html`<section aria-labelledby="filter-title">
      <h3 id="filter-title">${ti.webhookFilter}</h3>
      ${postForm(
        page,
        chrome,
        `${base}/filter`,
        html`<label for="filter">${ti.webhookFilter}</label>
          <p class="hint" id="filter-hint">${ti.webhookFilterHint}</p>
          <textarea id="filter" name="filter" rows="4" spellcheck="false" aria-describedby="filter-hint">
${filterText(row.filter)}</textarea>
          <button type="submit">${ti.saveFilter}</button>`,
      )}
    </section>
    <section aria-labelledby="headers-title">
      <h3 id="headers-title">${ti.headers}</h3>
      ${postForm(
        page,
        chrome,
        `${base}/headers`,
        html`<label for="headers">${ti.headers}</label>
          <p class="hint" id="headers-hint">${ti.headersHint}</p>
          <textarea id="headers" name="headers" rows="4" spellcheck="false" aria-describedby="headers-hint">
${headersText(row.headers)}</textarea>
          <button type="submit">${ti.saveHeaders}</button>`,
      )}
    </section>`;
}

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
  const adPixel =
    row.type === 'ad_pixel' ? adPixelSection(page, canChange(chrome) ? chrome : null, row) : null;
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
          ${adPixel?.form ?? ''} ${webhook ? rulesForms(page, chrome, base, row) : ''}
          ${recoverAction(page, chrome, base)}
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
            webhook || adPixel
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
                  url: stringOf(row.config, 'url') ?? '',
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
        ${fact(t.integrations.state, stateBadge(page, row))}
        ${fact(ti.url, webhook && html`<code id="current-url">${row.config.url}</code>`)}
        ${adPixel?.facts ?? ''}
        ${fact(ti.events, row.events.length === 0 ? ti.allEvents : row.events.join(', '))}
        ${webhook ? fact(ti.webhookFilter, filterFact(page, row)) : ''}
        ${webhook ? fact(ti.headers, headersFact(page, row)) : ''} ${failureFacts(page, row)}
        ${fact(ti.disabledReason, row.disabledReason ?? false)}
        ${fact(t.integrations.successRate, rateBar(page, data.counts))}
      </dl>
      ${actions} ${deliveriesSection(page, base, data)}`,
    chrome,
  );
}
