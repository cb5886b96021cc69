import type { Request } from 'express';
import { fromAcceptLanguage, fromQuery } from '../checkout/locale.js';
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '../checkout/messages.js';
import { DASHBOARD_CATALOGUE, type DashboardMessages } from './messages.js';

/** How one dashboard page speaks and where its links and forms go. */
export interface DashboardLocale {
  lang: Language;
  t: DashboardMessages;
  /** The language the address chose (`?lang=`), carried through every link and form. */
  chosen: Language | undefined;
  /** A dashboard address (`/integrations/3`) under the dashboard's mount, with `lang` and `query`. */
  href(path: string, query?: Record<string, string | number | undefined>): string;
  /** This page in each other language (GET pages only). */
  alternates: Array<{ lang: Language; name: string; href: string }>;
  /** A moment as Brasília's clock shows it. */
  dateTime(instant: Date): string;
}

const rawQuery = (req: Request): string => {
  const at = req.originalUrl.indexOf('?');
  return at < 0 ? '' : req.originalUrl.slice(at + 1);
};

const formats = new Map<string, Intl.DateTimeFormat>();

/**
 * The page's language as the buyer pages choose it (the address's `lang`, else Accept-Language,
 * else pt-BR) and its addressing under the dashboard's mount (`req.baseUrl`).
 */
export function dashboardLocale(req: Request): DashboardLocale {
  const query = rawQuery(req);
  const chosen = fromQuery(query);
  const lang = chosen ?? fromAcceptLanguage(req.get('accept-language')) ?? DEFAULT_LANGUAGE;
  const t = DASHBOARD_CATALOGUE[lang];
  let format = formats.get(t.locale);
  if (!format) {
    format = new Intl.DateTimeFormat(t.locale, {
      dateStyle: 'medium',
      timeStyle: 'medium',
      timeZone: 'America/Sao_Paulo',
    });
    formats.set(t.locale, format);
  }
  const dateFormat = format;
  const href = (path: string, values: Record<string, string | number | undefined> = {}): string => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(values)) {
      if (value !== undefined && value !== '') params.set(name, String(value));
    }
    if (chosen) params.set('lang', chosen);
    const search = params.toString();
    return `${req.baseUrl}${path}${search ? `?${search}` : ''}`;
  };
  const alternates =
    req.method === 'GET'
      ? LANGUAGES.filter((other) => other !== lang).map((other) => {
          const params = new URLSearchParams(query);
          params.set('lang', other);
          return {
            lang: other,
            name: DASHBOARD_CATALOGUE[other].languageName,
            href: `?${params.toString()}`,
          };
        })
      : [];
  return { lang, t, chosen, href, alternates, dateTime: (instant) => dateFormat.format(instant) };
}
