/**
 * Which language a page speaks, the same way on both surfaces: the address's `lang` when it names
 * one of ours, else the browser's Accept-Language, else Portuguese.
 */
import type { Request } from 'express';
import type { Alternate } from './html.js';

export const LANGUAGES = ['pt-BR', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'pt-BR';

/** `pt`, `pt-BR`, `PT-pt` … name Portuguese; `en`, `en-GB` … English; anything else none of ours. */
function languageOfTag(tag: string): Language | undefined {
  const primary = tag.trim().toLowerCase().split('-')[0];
  if (primary === 'pt') return 'pt-BR';
  if (primary === 'en') return 'en';
  return undefined;
}

/**
 * What Express's negotiation (`req.acceptsLanguages`: q-values, ties in the header's order, a
 * prefix serving its longer tags) is offered. `pt` beside `pt-BR` serves every Portuguese (`pt-PT`)
 * as `en` serves every English. `i-default`, RFC 2277's "default language", is offered first so
 * that a bare `*` picks it rather than our first language: a header that names none of ours then
 * reads as no preference, as does a request without one.
 */
const OFFERED = ['i-default', 'pt-BR', 'pt', 'en'];

/** The first of our languages the request's Accept-Language asks for; undefined when it names none. */
export function acceptedLanguage(req: Request): Language | undefined {
  const found = req.acceptsLanguages(...OFFERED);
  return found === false || found === 'i-default' ? undefined : languageOfTag(found);
}

/** The query string exactly as sent: read without the query parser, so an undecodable one cannot throw here. */
export const rawQuery = (req: Request): string => {
  const at = req.originalUrl.indexOf('?');
  return at < 0 ? '' : req.originalUrl.slice(at + 1);
};

/** `?lang=` when the address sets exactly one language we speak. */
export function fromQuery(query: string): Language | undefined {
  const values = new URLSearchParams(query).getAll('lang');
  return values.length === 1 ? languageOfTag(values[0] ?? '') : undefined;
}

/** The language of the page answering `req`, and the same page in each other language. */
export interface Negotiated {
  lang: Language;
  /** The language the address chose (`?lang=`): carried through every link and form of the page. */
  chosen: Language | undefined;
  /** This very address in each other language; empty when the page answers a form (a POST). */
  alternates: Alternate[];
}

/** `names` is each language's own name as the surface writes it in its language switch. */
export function negotiate(
  req: Request,
  names: Record<Language, { locale: string; languageName: string }>,
): Negotiated {
  const query = rawQuery(req);
  const chosen = fromQuery(query);
  const lang = chosen ?? acceptedLanguage(req) ?? DEFAULT_LANGUAGE;
  const alternates =
    req.method === 'GET'
      ? LANGUAGES.filter((other) => other !== lang).map((other) => {
          const params = new URLSearchParams(query);
          params.set('lang', other);
          return {
            locale: names[other].locale,
            name: names[other].languageName,
            href: `?${params.toString()}`,
          };
        })
      : [];
  return { lang, chosen, alternates };
}
