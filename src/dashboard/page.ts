/**
 * What every dashboard page has: the layout (language switch, navigation, one main landmark), the
 * headers it is sent with, the POST forms that carry the session's CSRF token, the two steps of a
 * destructive action, and the error page. Every value is escaped by the `html` tag.
 */
import type { Response } from 'express';
import type { PanelPrincipal } from '../shared/http/principal.js';
import { Assets, UI_STATIC } from '../ui/assets.js';
import { assetTags, html, languageItems, type SafeHtml } from '../ui/html.js';
import type { DashboardLocale } from './locale.js';
import type { DoneKey } from './messages.js';
import { EMAILS_WORDS } from './emails/messages.js';

/** The dashboard's files: the shared stylesheet and copy buttons, and its own stylesheet. */
export const DASHBOARD_ASSETS = new Assets([UI_STATIC, new URL('./static/', import.meta.url)]);

/** The signed-in session a page is drawn for: who (its navigation, its forms) and its forms' token. */
export interface Chrome {
  principal: PanelPrincipal;
  csrfToken: string;
}

export const canChange = (chrome: Chrome): boolean => chrome.principal.role !== 'read_only';

/** A POST form of a signed-in page: its action keeps the page's language, its body the CSRF token. */
export function postForm(page: DashboardLocale, chrome: Chrome, path: string, inner: SafeHtml): SafeHtml {
  const csrf = html`<input type="hidden" name="_csrf" value="${chrome.csrfToken}" />`;
  return html`<form method="post" action="${page.href(path)}">${csrf}${inner}</form>`;
}

const hiddenFields = (fields: Record<string, string>): SafeHtml =>
  html`${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`)}`;

/**
 * The first step of a destructive action: a GET form to its confirmation page (a button, so it
 * reads and works as the action did, and needs no script).
 */
export function confirmStep(
  page: DashboardLocale,
  path: string,
  label: SafeHtml,
  hidden: Record<string, string> = {},
): SafeHtml {
  const fields = { ...hidden, ...(page.chosen ? { lang: page.chosen } : {}) };
  return html`<form method="get" action="${page.href(path).split('?')[0] ?? ''}">
    ${hiddenFields(fields)}${label}
  </form>`;
}

/** The line a page shows after an action redirected back to it. */
export const doneNotice = (
  page: DashboardLocale,
  done: DoneKey | undefined,
  extra?: string,
): SafeHtml | string =>
  done ? html`<p class="done" role="status">${page.t.done[done]}${extra ? ` ${extra}` : ''}</p>` : '';

/** The one layout of every dashboard page: language, viewport, the navigation, one main landmark. */
export function layout(page: DashboardLocale, title: string, body: SafeHtml, chrome?: Chrome): SafeHtml {
  const { t } = page;
  const languages = html`<ul aria-label="${t.languageSwitch}">
    ${languageItems(page.alternates)}
  </ul>`;
  const nav = chrome
    ? html`<nav aria-label="${t.navigation}">
        <a href="${page.href('')}">${t.home.title}</a>
        <a href="${page.href('/links')}">${t.links.title}</a>
        <a href="${page.href('/catalog')}">${t.catalog.title}</a>
        <a href="${page.href('/integrations')}">${t.integrations.title}</a>
        <a href="${page.href('/orders')}">${t.orders.title}</a>
        <a href="${page.href('/subscriptions')}">${t.subscriptions.title}</a>
        <a href="${page.href('/emails')}">${EMAILS_WORDS[page.lang].title}</a>
        <a href="${page.href('/keys')}">${t.keys.title}</a>
        ${languages}
        <span class="who">${t.signedInAs(t.roles[chrome.principal.role])}</span>
        ${postForm(page, chrome, '/sign-out', html`<button type="submit">${t.signOut}</button>`)}
      </nav>`
    : html`<nav aria-label="${t.navigation}">${languages}</nav>`;
  const file = (name: string): string => page.bare(`/${DASHBOARD_ASSETS.path(name)}`);
  return html`<!doctype html>
    <html lang="${t.locale}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>${title} · ${t.product}</title>
        ${assetTags({ styles: [file('base.css'), file('dashboard.css')], scripts: [file('copy.js')] })}
      </head>
      <body>
        <header>${nav}</header>
        <main>${body}</main>
      </body>
    </html>`;
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
        html`${hiddenFields(data.hidden ?? {})}<button
            type="submit"
            class="danger"
            aria-describedby="question"
          >
            ${data.submit}</button
          ><a class="back" href="${data.back}">${page.t.confirm.cancel}</a>`,
      )}`,
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

/**
 * Pages style themselves and run scripts with this service's own files only (the copy buttons'); their
 * forms post here, or to `formTargets` a page names (a POST that redirects to a PSP's consent page).
 */
const csp = (formTargets: string[]): string =>
  `default-src 'none'; script-src 'self'; style-src 'self'; img-src data:; form-action ${["'self'", ...formTargets].join(' ')}; base-uri 'none'; frame-ancestors 'none'`;

/**
 * Dashboard pages are never cached or framed and run only the copy script; their addresses are sent
 * as Referer to this origin only (a browser then also sends Origin on the forms, rather than `null`).
 */
export function sendPage(
  res: Response,
  status: number,
  page: DashboardLocale,
  body: SafeHtml,
  options: { formTargets?: string[] } = {},
): void {
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
      'Content-Security-Policy': csp(options.formTargets ?? []),
    })
    .send(body.value);
}
