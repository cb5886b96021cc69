import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { AppError } from '../shared/errors.js';
import { errorHandler } from '../shared/http/errors.js';
import { html, languageItems, SafeHtml } from '../ui/html.js';
import { pageLocale, type PageLocale } from './locale.js';
import type { StatusKey } from './messages.js';
import { sentenceOf } from './page-errors.js';

/*
 * One small stylesheet for every page. Colours meet WCAG 2.1 AA: text at least 4.5:1 on its
 * background, input borders and focus rings at least 3:1. Layout holds from 320 px up: long
 * values (link ids, order codes, webhook URLs) wrap instead of widening the page.
 */
const STYLE = `
*,*::before,*::after{box-sizing:border-box}
body{font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f5f6f8;color:#1d2330;margin:0}
header,main{max-width:36rem;margin:0 auto}
header{display:flex;justify-content:flex-end;padding:.5rem 1rem}
header ul{list-style:none;margin:0;padding:0;display:flex;gap:1rem}
main{background:#fff;border-radius:8px;padding:1.5rem 2rem;box-shadow:0 1px 3px #0003;margin-bottom:2rem}
body>main:first-child{margin-top:2rem}
a{color:#1a4fb5}
:focus-visible{outline:3px solid #1a4fb5;outline-offset:2px}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 .75rem}h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
.product{margin:0 0 .25rem;color:#4b5563}
code,td,dd{overflow-wrap:anywhere}
dl{margin:1rem 0}dl div{display:flex;justify-content:space-between;gap:1rem;padding:.25rem 0}
dt{color:#4b5563}dd{margin:0;text-align:right}.prices dd{white-space:nowrap}
.total{border-top:1px solid #d1d5db;margin-top:.25rem;padding-top:.5rem}.total dt{color:#1d2330;font-weight:600}
.price{font-size:1.5rem;font-weight:700}.cycle{font-size:1rem;font-weight:400}
.old{color:#4b5563}
.notice{background:#fff4d6;border:1px solid #a16207;padding:.75rem 1rem;border-radius:6px}
.done{background:#e7f6ec;border:1px solid #166534;padding:.75rem 1rem;border-radius:6px}
.error{color:#9b1c1c;margin:.25rem 0 0;font-weight:600}
.summary{background:#fde8e8;border:2px solid #9b1c1c;padding:.75rem 1rem;border-radius:6px;margin:1rem 0}
.summary p{margin:0 0 .25rem;font-weight:600}.summary ul{margin:0;padding-left:1.25rem}.summary a{color:#7f1d1d}
.test{background:#e6f0ff;border:1px solid #1a4fb5;padding:.5rem 1rem;border-radius:6px}
.hint{color:#4b5563;font-size:.9rem;margin:.1rem 0 0}
label,legend{display:block;margin:.9rem 0 .25rem;font-weight:600}
input[type=text],input[type=email],input[type=tel],select,textarea{width:100%;padding:.6rem;font:inherit;border:1px solid #6b7280;border-radius:4px;background:#fff;color:#1d2330}
input[aria-invalid=true],select[aria-invalid=true]{border:2px solid #9b1c1c}
textarea{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85rem;resize:vertical;overflow-wrap:anywhere}
.qr{text-align:center;margin:.5rem 0}.qr img{width:16.5rem;max-width:100%;height:auto;image-rendering:pixelated}
.barcode img{display:block;width:100%;max-width:32rem;height:auto;background:#fff}
.line code{font-size:1.05rem;letter-spacing:.02em}
.copy-box{margin:1rem 0}.copy-box .label{font-weight:600;margin:.9rem 0 .25rem}.copy-box button{margin-top:.5rem}
.copied{min-height:1.5em;margin:.25rem 0 0;color:#166534;font-weight:600}
fieldset{border:0;margin:.9rem 0 0;padding:0}legend{padding:0;margin-top:0}
.choice{display:flex;align-items:center;gap:.5rem;margin:.35rem 0;font-weight:400}
.choice input{width:1.25rem;height:1.25rem;margin:0}
button{margin:1rem 0 0;padding:.75rem 1.25rem;min-height:44px;border:0;border-radius:6px;cursor:pointer;font:inherit;font-weight:600}
.actions{display:flex;flex-wrap:wrap;gap:.5rem}.actions form{margin:0}.actions button{margin:0}
.ok{background:#166534;color:#fff}.bad{background:#b42318;color:#fff}.neutral{background:#4b5563;color:#fff}
form>.ok{width:100%}
table{border-collapse:collapse;width:100%;table-layout:fixed}
caption{text-align:left;font-weight:600;margin-bottom:.25rem}
td,th{border-bottom:1px solid #d1d5db;padding:.4rem .3rem;text-align:left;vertical-align:top;font-size:.9rem}
th:first-child{width:55%}
.note{color:#4b5563;font-size:.9rem}
@media print{header,.no-print,button{display:none!important}body{background:#fff}main{box-shadow:none;margin:0;max-width:none}}
@media (max-width:40rem){main{border-radius:0;box-shadow:none;padding:1rem}header{padding:.5rem 1rem}
.facts div{display:block}.facts dd{text-align:left}body>main:first-child{margin-top:0}}
`;

/** The one small layout of every buyer page, error pages included: language, viewport, landmarks. */
export function layout(
  page: PageLocale,
  title: string,
  body: SafeHtml,
  options: { script?: string } = {},
): SafeHtml {
  const alternates =
    page.alternates.length === 0
      ? ''
      : html`<header>
          <nav aria-label="${page.t.languageSwitch}">
            <ul>
              ${languageItems(page.alternates)}
            </ul>
          </nav>
        </header>`;
  return html`<!doctype html>
    <html lang="${page.t.locale}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>${title}</title>
        <style>
          ${new SafeHtml(STYLE)}
        </style>
        ${options.script ? html`<script src="${options.script}" defer></script>` : ''}
      </head>
      <body>
        ${alternates}
        <main>${body}</main>
      </body>
    </html>`;
}

const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
/** The order pages run one script of this service's own (copy buttons, the status check). */
const CSP_WITH_SCRIPT = `${CSP}; script-src 'self'; connect-src 'self'`;

/**
 * Buyer pages are never cached (they show live link state), never framed, send no Referer (the
 * address carries a link id) and may only post forms back to this service. Only pages that ask for
 * it may run scripts, and then only this service's own files.
 */
export function sendPage(
  res: Response,
  status: number,
  page: PageLocale,
  body: SafeHtml,
  options: { scripts?: boolean } = {},
): void {
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Language': page.t.locale,
      Vary: 'Accept-Language',
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': options.scripts ? CSP_WITH_SCRIPT : CSP,
    })
    .send(body.value);
}

const STATUS_KEYS = [400, 404, 405, 408, 409, 413, 415, 429, 500, 503] as const;
const statusKey = (status: number): StatusKey => STATUS_KEYS.find((s) => s === status) ?? 'other';

/** An error page: the status's title, then the error's own sentence or the status's message. */
export function errorPage(page: PageLocale, err: AppError, requestId: string): SafeHtml {
  const { t } = page;
  const key = statusKey(err.status);
  const sentence = sentenceOf(err);
  return layout(
    page,
    t.statusTitles[key],
    html`<h1>${t.statusTitles[key]}</h1>
      <p class="notice">${sentence ? t.sentences[sentence] : t.statusMessages[key]}</p>
      ${err.status >= 500 && requestId ? html`<p class="note">${t.internalErrorReference(requestId)}</p>` : ''}`,
  );
}

/**
 * Buyer pages answer in HTML, errors included: the one error middleware, rendering a page in the
 * buyer's language with the error's status.
 */
export const pageErrorHandler = (logger: Logger): ErrorRequestHandler =>
  errorHandler(logger, (res, err) => {
    const page = pageLocale(res.req);
    sendPage(res, err.status, page, errorPage(page, err, String(res.locals.requestId ?? '')));
  });
