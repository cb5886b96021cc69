import type { Request } from 'express';
import { CATALOGUE, DEFAULT_LANGUAGE, LANGUAGES, type Language, type Messages } from './messages.js';

/** `pt`, `pt-BR`, `PT-pt` … name Portuguese; `en`, `en-GB` … English; anything else none of ours. */
function languageOfTag(tag: string): Language | undefined {
  const primary = tag.trim().toLowerCase().split('-')[0];
  if (primary === 'pt') return 'pt-BR';
  if (primary === 'en') return 'en';
  return undefined;
}

/**
 * The first of our languages in an Accept-Language header, by its q-values (ties keep the header's
 * order); undefined when it names none of them.
 */
export function fromAcceptLanguage(header: string | undefined): Language | undefined {
  if (!header) return undefined;
  const ranked = header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag, q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => Number.isFinite(entry.q) && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { tag } of ranked) {
    const language = languageOfTag(tag);
    if (language) return language;
  }
  return undefined;
}

/** The query string exactly as sent: read without the query parser, so an undecodable one cannot throw here. */
const rawQuery = (req: Request): string => {
  const at = req.originalUrl.indexOf('?');
  return at < 0 ? '' : req.originalUrl.slice(at + 1);
};

/** `?lang=` when the address sets exactly one language we speak. */
export function fromQuery(query: string): Language | undefined {
  const values = new URLSearchParams(query).getAll('lang');
  return values.length === 1 ? languageOfTag(values[0] ?? '') : undefined;
}

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
  alternates: Array<{ lang: Language; name: string; href: string }>;
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

const formatters = new Map<string, Intl.NumberFormat>();
const dateFormatters = new Map<string, Intl.DateTimeFormat>();

/** One cached Intl.DateTimeFormat per locale and kind. */
function dateFormat(locale: string, kind: 'dateTime' | 'date'): Intl.DateTimeFormat {
  const key = `${locale} ${kind}`;
  let format = dateFormatters.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, {
      day: 'numeric',
      month: 'long',
      year: 'numeric',
      // Boleto due dates are calendar days: read at noon UTC, they are the same day in every zone.
      ...(kind === 'dateTime'
        ? { hour: '2-digit', minute: '2-digit', timeZone: 'America/Sao_Paulo' }
        : { timeZone: 'UTC' }),
    });
    dateFormatters.set(key, format);
  }
  return format;
}

/** Amounts as Intl formats them for the page's locale: `R$ 197,50` in pt-BR, `R$197.50` in English. */
function formatMoney(locale: string, amount: string, currency: string): string {
  const key = `${locale} ${currency}`;
  let format = formatters.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale, { style: 'currency', currency });
    formatters.set(key, format);
  }
  return format.format(Number(amount));
}

const withQuery = (target: string, query: URLSearchParams): string => {
  const extra = query.toString();
  if (extra === '') return target;
  return `${target}${target.includes('?') ? '&' : '?'}${extra}`;
};

/**
 * The language (the address's `lang`, else Accept-Language, else pt-BR) and the addressing of the
 * buyer page answering `req`. `req.path` is relative to `{checkout_url}`: its depth gives the way
 * back to the root of the buyer pages.
 */
export function pageLocale(req: Request): PageLocale {
  const query = rawQuery(req);
  const chosen = fromQuery(query);
  const lang = chosen ?? fromAcceptLanguage(req.get('accept-language')) ?? DEFAULT_LANGUAGE;
  const t = CATALOGUE[lang];
  const depth = req.path.split('/').length - 2;
  const root = depth <= 0 ? './' : '../'.repeat(depth);
  const carried = (): URLSearchParams => new URLSearchParams(chosen ? { lang: chosen } : {});
  const local = (target: string): string => withQuery(root + target, carried());
  const alternates =
    req.method === 'GET'
      ? LANGUAGES.filter((other) => other !== lang).map((other) => {
          const params = new URLSearchParams(query);
          params.set('lang', other);
          return { lang: other, name: CATALOGUE[other].languageName, href: `?${params.toString()}` };
        })
      : [];
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
    dateTime: (instant) => dateFormat(t.locale, 'dateTime').format(instant),
    date: (day) => dateFormat(t.locale, 'date').format(new Date(`${day}T12:00:00Z`)),
  };
}
