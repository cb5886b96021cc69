import type { Request } from 'express';
import type { Alternate } from '../ui/html.js';
import { BRASILIA, dateFormat, formatMoney } from '../ui/format.js';
import { negotiate, type Language } from '../ui/language.js';
import { DASHBOARD_CATALOGUE, type DashboardMessages } from './messages.js';

/** How one dashboard page speaks and where its links and forms go. */
export interface DashboardLocale {
  lang: Language;
  t: DashboardMessages;
  /** The language the address chose (`?lang=`), carried through every link and form. */
  chosen: Language | undefined;
  /** A dashboard address (`/integrations/3`) under the dashboard's mount, with `lang` and `query`. */
  href(path: string, query?: Record<string, string | number | undefined>): string;
  /** A file under the dashboard's mount that does not speak (a stylesheet, a script): no `lang`. */
  bare(path: string): string;
  /** This page in each other language (GET pages only). */
  alternates: Alternate[];
  /** A moment as Brasília's clock shows it. */
  dateTime(instant: Date): string;
  /** Reais as the page's locale writes them: `R$ 197,50` in pt-BR, `R$197.50` in English. */
  money(amount: string): string;
}

const DATE_TIME: Intl.DateTimeFormatOptions = {
  dateStyle: 'medium',
  timeStyle: 'medium',
  timeZone: BRASILIA,
};

/**
 * The page's language as the buyer pages choose it (see `negotiate`) and its addressing under the
 * dashboard's mount (`req.baseUrl`).
 */
export function dashboardLocale(req: Request): DashboardLocale {
  const { lang, chosen, alternates } = negotiate(req, DASHBOARD_CATALOGUE);
  const t = DASHBOARD_CATALOGUE[lang];
  const href = (path: string, values: Record<string, string | number | undefined> = {}): string => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(values)) {
      if (value !== undefined && value !== '') params.set(name, String(value));
    }
    if (chosen) params.set('lang', chosen);
    const search = params.toString();
    return `${req.baseUrl}${path}${search ? `?${search}` : ''}`;
  };
  return {
    lang,
    t,
    chosen,
    href,
    bare: (path) => `${req.baseUrl}${path}`,
    alternates,
    dateTime: (instant) => dateFormat(t.locale, 'dashboard date-time', DATE_TIME).format(instant),
    money: (amount) => formatMoney(t.locale, amount, 'BRL'),
  };
}
