import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { errorHandler } from '../shared/http/errors.js';

/** Markup that is already safe to send: produced by `html`, never by string concatenation. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/**
 * Template tag for every buyer page: each interpolated value is escaped unless it is itself the
 * output of `html`, so data from links, catalog or forms can never become markup.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

const STYLE = `
body{font-family:system-ui,sans-serif;background:#f5f6f8;color:#1d2330;margin:0}
main{max-width:34rem;margin:2rem auto;background:#fff;border-radius:8px;padding:1.5rem 2rem;box-shadow:0 1px 3px #0002}
h1{font-size:1.4rem;margin-top:0}.price{font-size:1.6rem;font-weight:600}.old{text-decoration:line-through;color:#777}
.notice{background:#fff4d6;border:1px solid #e8c660;padding:.75rem 1rem;border-radius:6px}
.error{background:#fde8e8;border:1px solid #e08a8a;padding:.75rem 1rem;border-radius:6px}
.test{background:#e6f0ff;border:1px solid #8ab0e0;padding:.5rem 1rem;border-radius:6px}
label{display:block;margin:.6rem 0 .2rem}input,select{width:100%;padding:.45rem;box-sizing:border-box}
button{margin:.8rem .4rem 0 0;padding:.6rem 1.2rem;border:0;border-radius:6px;cursor:pointer;font-size:1rem}
.ok{background:#1f8f4e;color:#fff}.bad{background:#c23b3b;color:#fff}.neutral{background:#666;color:#fff}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.3rem;text-align:left;font-size:.9rem}
`;

/** The one small layout of every buyer page, error pages included. */
export function layout(title: string, body: SafeHtml): SafeHtml {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>${title}</title>
        <style>
          ${new SafeHtml(STYLE)}
        </style>
      </head>
      <body>
        <main>${body}</main>
      </body>
    </html>`;
}

/**
 * Buyer pages are never cached (they show live link state), never framed, send no Referer (the
 * address carries a link id) and may only post forms back to this service.
 */
export function sendPage(res: Response, status: number, page: SafeHtml): void {
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy':
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    })
    .send(page.value);
}

export function errorPage(status: number, title: string, message: string): SafeHtml {
  return layout(
    title,
    html`<h1>${title}</h1>
      <p class="error">${message}</p>`,
  );
}

const TITLES: Record<number, string> = {
  400: 'Invalid request',
  404: 'Not found',
  409: 'Payment not possible',
  413: 'Too much data',
  503: 'Temporarily unavailable',
};

/**
 * Buyer pages answer in HTML, errors included: the one error middleware, rendering a page with the
 * error's status and message.
 */
export const pageErrorHandler = (logger: Logger): ErrorRequestHandler =>
  errorHandler(logger, (res, err) =>
    sendPage(
      res,
      err.status,
      errorPage(err.status, TITLES[err.status] ?? 'Something went wrong', err.message),
    ),
  );
