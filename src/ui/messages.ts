/**
 * The shapes every page catalogue shares, the buyer pages' and the dashboard's: one typed catalogue
 * per surface, each a `Catalogue`, so a language that misses a message does not compile. Messages
 * are plain text (the `html` tag escapes them); those that take values are functions.
 */
import type { Language } from './language.js';

/** What a page says about its own language. */
export interface LanguageMessages {
  /** BCP 47 tag for `<html lang>`, `Content-Language` and Intl. */
  locale: string;
  /** The language's own name, for the switch that offers it. */
  languageName: string;
  languageSwitch: string;
}

/** What a copy button says once it has copied, or could not (see `static/copy.js`). */
export interface CopyMessages {
  done: string;
  failed: string;
}

/** One surface's words in every language it speaks. */
export type Catalogue<M extends LanguageMessages> = Record<Language, M>;
