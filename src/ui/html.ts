/**
 * The escaping `html` tag of every page, the buyer pages' and the dashboard's: data from links, the
 * catalog, forms or the services can never become markup.
 */

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

/** Each interpolated value is escaped unless it is itself the output of `html`. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

/** A boolean attribute (`checked`, `selected`, …): written when on, left out otherwise. */
export const flag = (name: 'checked' | 'selected', on: boolean): SafeHtml | string =>
  on ? new SafeHtml(name) : '';

/** The page in another language: where the language switch of either surface links to. */
export interface Alternate {
  /** The BCP 47 tag of the language, for `hreflang` and `lang`. */
  locale: string;
  name: string;
  href: string;
}

/** The items of a language switch, each link written in its own language. */
export const languageItems = (alternates: Alternate[]): SafeHtml =>
  html`${alternates.map(
    (a) =>
      html`<li>
        <a href="${a.href}" hreflang="${a.locale}" lang="${a.locale}">${a.name}</a>
      </li>`,
  )}`;

/** The page's styles and scripts, all files of this service (see `assets.ts`), scripts deferred. */
export const assetTags = (assets: { styles: string[]; scripts: string[] }): SafeHtml =>
  html`${assets.styles.map((href) => html`<link rel="stylesheet" href="${href}" />`)}
  ${assets.scripts.map((src) => html`<script src="${src}" defer></script>`)}`;
