import type { Request } from 'express';
import type { Alternate } from '../ui/html.js';
import { BUYER_DATE_TIME, dateFormat, formatMoney } from '../ui/format.js';
import { negotiate, type Language } from '../ui/language.js';
import { CATALOGUE, type Messages } from './messages.js';

/** How one buyer page speaks and where its links go. */
export interface PageLocale {
  lang: Language;
  t: Messages;
  /** The language the address chose (`?lang=`): carried through every link and form of the page. */
  chosen: Language | undefined;
  /**
   * Another buyer page, addressed relative to this one (`./`, `../` …), so a page opened under any
   * host or behind any prefix keeps the buyer there; `target` is relative to `{checkout_url}`,
   * path and optional query (`<code>?plink=<id>`).
   */
  local(target: string): string;
  /** The same, from path segments (each encoded) and query values. */
  href(segments: string[], query?: Record<string, string>): string;
  /** This very address in each other language; empty when the page answers a form (a POST). */
  alternates: Alternate[];
  /**
   * An address relative to this page that does not speak (a script, the status a page polls): no
   * `lang` carried.
   */
  bare(target: string): string;
  money(amount: string, currency: string): string;
  /** A moment as Brasília's clock shows it ("12 de março de 2025 às 14:30"). */
  dateTime(instant: Date): string;
  /** A calendar date (`YYYY-MM-DD`) in the page's words ("15 de março de 2025"). */
  date(day: string): string;
}

const DATE_TIME = BUYER_DATE_TIME;
// Boleto due dates are calendar days: read at noon UTC, they are the same day in every zone.
const DATE: Intl.DateTimeFormatOptions = { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' };

const withQuery = (target: string, query: URLSearchParams): string => {
  const extra = query.toString();
  if (extra === '') return target;
  return `${target}${target.includes('?') ? '&' : '?'}${extra}`;
};

/**
 * The language (see `negotiate`) and the addressing of the buyer page answering `req`. `req.path`
 * is relative to `{checkout_url}`: its depth gives the way back to the root of the buyer pages.
 */
export function pageLocale(req: Request): PageLocale {
  const { lang, chosen, alternates } = negotiate(req, CATALOGUE);
  const t = CATALOGUE[lang];
  const depth = req.path.split('/').length - 2;
  const root = depth <= 0 ? './' : '../'.repeat(depth);
  const carried = (): URLSearchParams => new URLSearchParams(chosen ? { lang: chosen } : {});
  const local = (target: string): string => withQuery(root + target, carried());
  return {
    lang,
    t,
    chosen,
    local,
    href: (segments, values = {}) =>
      withQuery(local(segments.map(encodeURIComponent).join('/')), new URLSearchParams(values)),
    alternates,
    bare: (target) => root + target,
    money: (amount, currency) => formatMoney(t.locale, amount, currency),
    dateTime: (instant) => dateFormat(t.locale, 'buyer date-time', DATE_TIME).format(instant),
    date: (day) => dateFormat(t.locale, 'buyer date', DATE).format(new Date(`${day}T12:00:00Z`)),
  };
}
