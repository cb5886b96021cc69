/**
 * Calendar dates as a Brazilian bank reads them: boleto due dates are days in Brasília time
 * (America/Sao_Paulo), whatever zone the server runs in.
 */
const ZONE = 'America/Sao_Paulo';
const DAY_MS = 86_400_000;

// en-CA writes dates as YYYY-MM-DD.
const dateFormat = new Intl.DateTimeFormat('en-CA', {
  timeZone: ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});
const offsetFormat = new Intl.DateTimeFormat('en-US', { timeZone: ZONE, timeZoneName: 'longOffset' });

/** The date (`YYYY-MM-DD`) in Brasília at `instant`. */
export const brazilDate = (instant: Date): string => dateFormat.format(instant);

/** `date` plus `days` calendar days. */
export const addDays = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** Whole days from `from` to `to` (both `YYYY-MM-DD`). */
export const daysBetween = (from: string, to: string): number =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);

/** Minutes Brasília is ahead of UTC at `instant` (negative: -180 for UTC-03:00). */
function offsetMinutes(instant: Date): number {
  const name = offsetFormat.formatToParts(instant).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /^GMT([+-])(\d{2}):(\d{2})$/.exec(name);
  if (!match) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === '-' ? -minutes : minutes;
}

/** The instant a Brasília calendar day starts. */
export function startOfBrazilDay(date: string): Date {
  const offset = offsetMinutes(new Date(Date.parse(`${date}T12:00:00Z`)));
  return new Date(Date.parse(`${date}T00:00:00Z`) - offset * 60_000);
}

/**
 * `instant` as Brasília's wall clock with its offset (`2026-12-07T12:00:00.000-03:00`): how Mercado
 * Pago reads a `date_of_expiration`.
 */
export function brazilIso(instant: Date): string {
  const offset = offsetMinutes(instant);
  const local = new Date(instant.getTime() + offset * 60_000).toISOString().slice(0, 23);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${local}${sign}${hh}:${mm}`;
}

/**
 * The instant a Brasília wall-clock time names (`YYYY-MM-DDTHH:MM[:SS]`, as a `datetime-local` input
 * writes it); NaN's Date when it names none.
 */
export function fromBrazilLocal(local: string): Date {
  const naive = Date.parse(`${local}${local.length === 16 ? ':00' : ''}Z`);
  if (Number.isNaN(naive)) return new Date(Number.NaN);
  // The offset at the naive instant, then at the corrected one (they differ only across a change).
  const first = naive - offsetMinutes(new Date(naive)) * 60_000;
  return new Date(naive - offsetMinutes(new Date(first)) * 60_000);
}
