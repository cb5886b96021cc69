/**
 * Amounts and moments as Intl writes them in the page's locale, one cached formatter per locale and
 * kind (building an Intl formatter costs far more than using one).
 */

const numberFormats = new Map<string, Intl.NumberFormat>();
const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** `R$ 197,50` in pt-BR, `R$197.50` in English. */
export function formatMoney(locale: string, amount: string, currency: string): string {
  const key = `${locale} ${currency}`;
  let format = numberFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale, { style: 'currency', currency });
    numberFormats.set(key, format);
  }
  return format.format(Number(amount));
}

/** Every date a page shows: `kind` names the options, so each kind is built once per locale. */
export function dateFormat(
  locale: string,
  kind: string,
  options: Intl.DateTimeFormatOptions,
): Intl.DateTimeFormat {
  const key = `${locale} ${kind}`;
  let format = dateFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, options);
    dateFormats.set(key, format);
  }
  return format;
}

/** The clock the sellers and buyers of this service read: Brasília's. */
export const BRASILIA = 'America/Sao_Paulo';

/** A moment as a buyer reads it, on a page or in an e-mail: "12 de março de 2025 às 14:30" in Brasília. */
export const BUYER_DATE_TIME: Intl.DateTimeFormatOptions = {
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: BRASILIA,
};
