/**
 * Buyer contact data (a link's prefill, the checkout form): Brazilian tax documents (CPF, CNPJ),
 * phone numbers and e-mail, accepted with the usual separators and stored in one canonical form.
 */
import type { CustomHelpers, ErrorReport } from 'joi';
import { v } from '../shared/validation/typed.js';

const onlyDigits = (value: string): string => value.replace(/\D/g, '');

/** Mod-11 check digit as CPF and CNPJ define it: remainder < 2 gives 0, otherwise 11 - remainder. */
function checkDigit(digits: string, weights: number[]): number {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) sum += Number(digits[i]) * (weights[i] ?? 0);
  const remainder = sum % 11;
  return remainder < 2 ? 0 : 11 - remainder;
}

// A run of one repeated digit passes the arithmetic but is never issued.
const isRepeated = (digits: string): boolean => /^(\d)\1*$/.test(digits);

export function isValidCpf(digits: string): boolean {
  if (!/^\d{11}$/.test(digits) || isRepeated(digits)) return false;
  const first = checkDigit(digits, [10, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = checkDigit(digits, [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
  return Number(digits[9]) === first && Number(digits[10]) === second;
}

export function isValidCnpj(digits: string): boolean {
  if (!/^\d{14}$/.test(digits) || isRepeated(digits)) return false;
  const first = checkDigit(digits, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = checkDigit(digits, [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  return Number(digits[12]) === first && Number(digits[13]) === second;
}

export type Normalized = { ok: true; value: string } | { ok: false; message: string };

/** Separators allowed in a typed document: dots, dashes, slashes and spaces ("123.456.789-09"). */
const DOCUMENT_INPUT = /^[\d.\-/\s]+$/;
/** The same, with the digit count (11 or 14) stated, so the OpenAPI document can say it too. */
const DOCUMENT_SHAPE = /^[.\-/\s]*(?:\d[.\-/\s]*){11}(?:(?:\d[.\-/\s]*){3})?$/;

/** CPF (11 digits) or CNPJ (14 digits) with valid check digits, returned as digits only. */
export function normalizeDocument(input: string): Normalized {
  if (!DOCUMENT_INPUT.test(input))
    return { ok: false, message: 'must contain only digits and . - / separators' };
  const digits = onlyDigits(input);
  if (digits.length === 11) {
    return isValidCpf(digits) ? { ok: true, value: digits } : { ok: false, message: 'is not a valid CPF' };
  }
  if (digits.length === 14) {
    return isValidCnpj(digits) ? { ok: true, value: digits } : { ok: false, message: 'is not a valid CNPJ' };
  }
  return { ok: false, message: 'must be a CPF (11 digits) or a CNPJ (14 digits)' };
}

/** An optional leading plus, then digits with spaces, dots, dashes or parentheses between them. */
const PHONE_INPUT = /^\+?[\d\s.\-()]+$/;
/** The same, with the digit count (10 to 15) stated, so the OpenAPI document can say it too. */
const PHONE_SHAPE = /^\+?[\s.\-()]*(?:\d[\s.\-()]*){10,15}$/;

/** Country code + area code + number, 10–15 digits, returned as `+` and the digits. */
export function normalizePhone(input: string): Normalized {
  if (!PHONE_INPUT.test(input)) {
    return {
      ok: false,
      message: 'must be digits (country code, area code, number), optionally with + and separators',
    };
  }
  const digits = onlyDigits(input);
  if (digits.length < 10 || digits.length > 15) {
    return { ok: false, message: 'must have 10 to 15 digits: country code, area code and number' };
  }
  return { ok: true, value: `+${digits}` };
}

/** Domains are case-insensitive, local parts are not: only the domain is lower-cased. */
export function normalizeEmail(input: string): string {
  const at = input.lastIndexOf('@');
  return at < 0 ? input : input.slice(0, at) + input.slice(at).toLowerCase();
}

/** Runs a normalizer inside Joi so the caller receives canonical values and errors name the field. */
const normalized =
  (fn: (input: string) => Normalized) =>
  (value: string, helpers: CustomHelpers): string | ErrorReport => {
    const result = fn(value);
    return result.ok ? result.value : helpers.message({ custom: result.message });
  };

/** A typed value with separators: its shape states the digit count, its normalizer the canonical form. */
const normalizedField = (shape: RegExp, normalize: (input: string) => Normalized, shapeMessage: string) =>
  v
    .string()
    .trim()
    .max(40)
    .pattern(shape)
    .custom(normalized(normalize))
    .messages({ 'string.pattern.base': shapeMessage });

/** PostgreSQL text cannot hold U+0000, so free text refuses it, as a 400 naming the field. */
export const text = () =>
  v
    .string()
    .pattern(/\u0000/, { invert: true, name: 'NUL' })
    .messages({ 'string.pattern.invert.name': 'must not contain the NUL character (U+0000)' });

export const CUSTOMER_LIMITS = { name: 200, email: 254 } as const;

/** The buyer's fields, as a link's prefill and the checkout form take them. */
export const customerFields = {
  name: () => text().trim().min(1).max(CUSTOMER_LIMITS.name),
  email: () => v.string().trim().max(CUSTOMER_LIMITS.email).email({ tlds: false }).custom(normalizeEmail),
  phone: () =>
    normalizedField(
      PHONE_SHAPE,
      normalizePhone,
      'must have 10 to 15 digits: country code, area code and number',
    )
      .description(
        'Country code + area code + number, 10–15 digits; separators allowed; returned as `+digits`',
      )
      .example('+55 (11) 98765-4321'),
  document: () =>
    normalizedField(
      DOCUMENT_SHAPE,
      normalizeDocument,
      'must be a CPF (11 digits) or a CNPJ (14 digits)',
    ).description(
      'CPF (11 digits) or CNPJ (14 digits) with valid check digits; separators allowed; returned as digits only',
    ),
};
