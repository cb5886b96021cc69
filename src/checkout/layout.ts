import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { AppError } from '../shared/errors.js';
import { errorHandler } from '../shared/http/errors.js';
import { Assets, UI_STATIC } from '../ui/assets.js';
import { assetTags, html, languageItems, type SafeHtml } from '../ui/html.js';
import { pageLocale, type PageLocale } from './locale.js';
import type { StatusKey } from './messages.js';
import { sentenceOf } from './page-errors.js';
import type { PixelSources } from './ad-pixel.js';

/** The buyer pages' files: the shared stylesheet and copy buttons, their own stylesheet and script. */
export const PAY_ASSETS = new Assets([UI_STATIC, new URL('./static/', import.meta.url)]);

/** The one small layout of every buyer page, error pages included: language, viewport, landmarks. */
export function layout(page: PageLocale, title: string, body: SafeHtml, options: PageOptions = {}): SafeHtml {
  const files = (names: string[]): string[] => names.map((name) => page.bare(PAY_ASSETS.path(name)));
  const assets = {
    styles: files(['base.css', 'pay.css']),
    scripts: options.cardTokenizer
      ? [options.cardTokenizer, ...files(['mercadopago-card.js'])]
      : options.scripts
        ? files(['copy.js', 'order.js', ...(options.adPixel ? ['ad-pixel.js'] : [])])
        : [],
  };
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
        ${assetTags(assets)}
      </head>
      <body>
        ${alternates}
        <main>${body}</main>
      </body>
    </html>`;
}

/**
 * What a page runs: this service's own scripts, or a PSP's card tokenizer (its script's address);
 * with the scripts, the company's Meta pixel (its script's address and where it reports).
 */
export interface PageOptions {
  scripts?: boolean;
  cardTokenizer?: string;
  adPixel?: PixelSources;
}

const CSP =
  "default-src 'none'; style-src 'self'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
/** The order pages run this service's own scripts (copy buttons, the status check). */
const CSP_WITH_SCRIPT = `${CSP}; script-src 'self'; connect-src 'self'`;

/** Where Mercado Pago's own script, card fields, calls and images come from, besides its script's origin. */
const MERCADO_PAGO_SOURCES = [
  'https://*.mercadopago.com',
  'https://*.mercadolibre.com',
  'https://*.mlstatic.com',
];

/** The buyer pages' policy with third-party sources added to `img-src`, `script-src`, `connect-src` (and frames). */
function widenedCsp(sources: { img: string; script: string; connect: string; frame?: string }): string {
  return [
    "default-src 'none'",
    "style-src 'self'",
    `img-src data: ${sources.img}`,
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    `script-src 'self' ${sources.script}`,
    `connect-src 'self' ${sources.connect}`,
    ...(sources.frame ? [`frame-src ${sources.frame}`] : []),
  ].join('; ');
}

/**
 * A checkout whose card is tokenized by Mercado Pago's script: that script, the iframes of its card
 * fields, the calls it makes and its images may come from MP (the origin of MERCADOPAGO_SDK_URL, and
 * MP's own domains when that is MP's), and nothing else is added.
 */
function tokenizerCsp(sdkUrl: string): string {
  const origin = new URL(sdkUrl).origin;
  const sources = [
    origin,
    ...(/\.mercadopago\.com$/.test(new URL(sdkUrl).hostname) ? MERCADO_PAGO_SOURCES : []),
  ].join(' ');
  return widenedCsp({ img: sources, script: sources, connect: sources, frame: sources });
}

/**
 * An order page of a company with the Meta pixel on: the pixel's script (the origin of
 * META_PIXEL_SCRIPT_URL, where it also fetches its settings) and where it reports (META_PIXEL_HOST:
 * an image or a request to `/tr`). Every other page, and every other company's, keeps the
 * policies above.
 */
const pixelCsp = (pixel: PixelSources): string =>
  widenedCsp({
    img: pixel.reportOrigin,
    script: new URL(pixel.scriptUrl).origin,
    connect: pixel.reportOrigin,
  });

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
  options: PageOptions = {},
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
      'Content-Security-Policy': options.cardTokenizer
        ? tokenizerCsp(options.cardTokenizer)
        : options.scripts
          ? options.adPixel
            ? pixelCsp(options.adPixel)
            : CSP_WITH_SCRIPT
          : CSP,
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
