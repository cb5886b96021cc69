/**
 * An integration's deliveries: the filtered list on its page, the recover action beside its other
 * actions, and one delivery's page with every attempt.
 */
import { brazilIso } from '../../shared/brazil-time.js';
import { EVENT_KINDS } from '../../events/kinds.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../shared/enums/delivery-statuses.js';
import { html, type SafeHtml } from '../../ui/html.js';
import type { DeliveryView } from '../../webhooks/deliveries-service.js';
import type { DashboardLocale } from '../locale.js';
import { badge, fact, filterForm, filterSelect, listTable, nextPageLink, type Tone } from '../lists.js';
import type { DoneKey } from '../messages.js';
import { canChange, doneNotice, layout, postForm, type Chrome } from '../page.js';

export interface DeliveryFilter {
  status?: DeliveryStatus | undefined;
  event_type?: string | undefined;
  /** `datetime-local` values, Brasília time, as the filter form sent them. */
  from?: string | undefined;
  to?: string | undefined;
}

/** `YYYY-MM-DDTHH:MM` in Brasília, for a datetime-local. */
export const brasiliaLocalInput = (instant: Date): string => brazilIso(instant).slice(0, 16);

const TONES: Record<DeliveryStatus, Tone> = {
  succeeded: 'good',
  failed: 'bad',
  skipped: 'idle',
  pending: 'warn',
};

export const statusBadge = (page: DashboardLocale, status: DeliveryStatus): SafeHtml =>
  badge(TONES[status], page.t.deliveryStatuses[status]);

const lastResult = (page: DashboardLocale, d: DeliveryView): string =>
  d.lastStatusCode !== null
    ? `HTTP ${d.lastStatusCode}`
    : (d.lastError ?? (d.attempts === 0 ? '' : page.t.delivery.noResponse));

/** A time field of the filter, described by the hint under the form. */
const timeField = (name: 'from' | 'to', label: string, value: string | undefined): SafeHtml =>
  html`<div>
    <label for="${name}">${label}</label>
    <input
      type="datetime-local"
      id="${name}"
      name="${name}"
      value="${value ?? ''}"
      aria-describedby="time-hint"
    />
  </div>`;

/** The deliveries of the integration at `base`, newest first, filtered, and a link to the next page. */
export function deliveriesSection(
  page: DashboardLocale,
  base: string,
  data: { deliveries: DeliveryView[]; hasMore: boolean; filter: DeliveryFilter },
): SafeHtml {
  const { t } = page;
  const ti = t.integration;
  const filter = filterForm(page, {
    path: base,
    label: ti.filter,
    apply: ti.apply,
    fields: [
      filterSelect({
        name: 'status',
        label: ti.status,
        any: ti.anyStatus,
        values: DELIVERY_STATUSES,
        words: (s) => t.deliveryStatuses[s],
        current: data.filter.status,
      }),
      filterSelect({
        name: 'event_type',
        label: ti.eventType,
        any: ti.anyEvent,
        values: EVENT_KINDS,
        words: (k) => k,
        current: EVENT_KINDS.find((k) => k === data.filter.event_type),
      }),
      timeField('from', ti.from, data.filter.from),
      timeField('to', ti.to, data.filter.to),
    ],
    after: html`<p class="hint" id="time-hint">${ti.timeHint}</p>`,
  });
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
  const last = data.deliveries.at(-1);
  return html`<h2>${ti.deliveries}</h2>
    ${filter}
    ${listTable(
      ti.deliveries,
      ti.noDeliveries,
      [ti.delivery, ti.eventType, ti.status, ti.attempts, ti.lastResult, ti.created],
      rows,
      { stack: false },
    )}
    ${nextPageLink(
      data.hasMore && last ? page.href(base, { ...data.filter, starting_after: last.id }) : undefined,
      ti.more,
    )}`;
}

/** Recover: every failed or skipped delivery since a time, prefilled with an hour ago. */
export function recoverAction(page: DashboardLocale, chrome: Chrome, base: string): SafeHtml {
  const ti = page.t.integration;
  return html`<section aria-labelledby="recover-title">
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
  </section>`;
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
          ${fact(td.requestedAt, page.dateTime(a.requestedAt))}
          ${fact(
            td.responseStatus,
            `${a.statusCode === null ? td.noResponse : `HTTP ${a.statusCode}`} · ${td.duration(a.durationMs)}`,
          )}
          ${fact(td.error, a.error || false)}
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
        ${fact(td.event, html`${d.eventType} · <code>${d.eventId}</code>`)}
        ${fact(t.integration.status, statusBadge(page, d.status))} ${fact(t.integration.attempts, d.attempts)}
        ${fact(td.nextAttempt, d.nextAttemptAt ? page.dateTime(d.nextAttemptAt) : false)}
      </dl>
      ${resend} ${d.history.length === 0 ? html`<p>${td.noAttempts}</p>` : attempts}`,
    chrome,
  );
}
