/**
 * A bank boleto's numbers as FEBRABAN lays them out: the 44-digit barcode (bank, currency, general
 * check digit, due-date factor, amount, the bank's free field) and the 47-digit linha digitável the
 * buyer types into a bank app (the barcode's digits in five fields, the first three with a mod-10
 * check digit each).
 */
import { daysBetween } from '../shared/brazil-time.js';

export interface BoletoNumbers {
  barcode: string;
  digitableLine: string;
}

/** The largest amount the barcode's ten amount digits carry: R$ 99.999.999,99. */
export const BOLETO_MAX_CENTS = 9_999_999_999;

/** Sum of digits times weights cycling from the right, as both check digits count them. */
function weightedFromRight(digits: string, weights: number[], each: (product: number) => number): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    const digit = Number(digits[digits.length - 1 - i]);
    sum += each(digit * (weights[i % weights.length] ?? 0));
  }
  return sum;
}

/** Mod 10 of a linha digitável field: weights 2, 1, 2… from the right, products summed digit by digit. */
export function mod10(digits: string): number {
  const sum = weightedFromRight(digits, [2, 1], (p) => (p > 9 ? p - 9 : p));
  return (10 - (sum % 10)) % 10;
}

/** Mod 11 of the barcode: weights 2 to 9 from the right; 0, 10 and 11 become 1. */
export function mod11(digits: string): number {
  const dv = 11 - (weightedFromRight(digits, [2, 3, 4, 5, 6, 7, 8, 9], (p) => p) % 11);
  return dv === 0 || dv === 10 || dv === 11 ? 1 : dv;
}

/**
 * The due-date factor: days since 1997-10-07. It has four digits, so on 2025-02-22 (day 10,000) it
 * went back to 1000 and counts on from there, every 9,000 days.
 */
export function dueDateFactor(dueDate: string): number {
  const days = daysBetween('1997-10-07', dueDate);
  if (days < 1000) throw new Error(`no due-date factor for ${dueDate}`);
  return days < 10_000 ? days : ((days - 10_000) % 9_000) + 1_000;
}

/** The linha digitável of a barcode: its digits regrouped in five fields, the first three checked. */
export function digitableLineOf(barcode: string): string {
  const free = barcode.slice(19);
  const withDv = (digits: string): string => `${digits}${mod10(digits)}`;
  return (
    withDv(barcode.slice(0, 4) + free.slice(0, 5)) +
    withDv(free.slice(5, 15)) +
    withDv(free.slice(15, 25)) +
    barcode.slice(4, 5) +
    barcode.slice(5, 19)
  );
}

/**
 * The barcode a linha digitável carries: bank and currency, the general check digit, due-date
 * factor and amount, then the free field from the first three fields without their check digits.
 */
export const barcodeOfLine = (line: string): string =>
  line.slice(0, 4) +
  line.slice(32, 33) +
  line.slice(33, 47) +
  line.slice(4, 9) +
  line.slice(10, 20) +
  line.slice(21, 31);

/**
 * Barcode and linha digitável of a boleto of `bank` (three digits), in reais, due on `dueDate`
 * (`YYYY-MM-DD`), with the bank's 25-digit free field.
 */
export function boletoNumbers(
  bank: string,
  cents: number,
  dueDate: string,
  freeField: string,
): BoletoNumbers {
  if (!/^\d{3}$/.test(bank)) throw new Error('a bank code has three digits');
  if (!/^\d{25}$/.test(freeField)) throw new Error('the free field has 25 digits');
  if (!Number.isSafeInteger(cents) || cents < 0 || cents > BOLETO_MAX_CENTS)
    throw new Error(`a boleto cannot carry ${cents} cents`);
  const factor = String(dueDateFactor(dueDate)).padStart(4, '0');
  const amount = String(cents).padStart(10, '0');
  // Bank, currency 9 (real), then the general check digit's place.
  const withoutDv = `${bank}9${factor}${amount}${freeField}`;
  const barcode = `${withoutDv.slice(0, 4)}${mod11(withoutDv)}${withoutDv.slice(4)}`;
  return { barcode, digitableLine: digitableLineOf(barcode) };
}

/** `00190.00009 01234.567890 12345.678901 2 12340000019750`: how a linha digitável is printed. */
export function formatDigitableLine(line: string): string {
  if (!/^\d{47}$/.test(line)) return line;
  return `${line.slice(0, 5)}.${line.slice(5, 10)} ${line.slice(10, 15)}.${line.slice(15, 21)} ${line.slice(21, 26)}.${line.slice(26, 32)} ${line.slice(32, 33)} ${line.slice(33)}`;
}
