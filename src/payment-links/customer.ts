/**
 * Buyer contact data (a link's prefill, the checkout form): Brazilian tax documents (CPF, CNPJ),
 * phone numbers and e-mail, accepted with the usual separators and stored in one canonical form.
 */
import { isValidCnpj, isValidCpf } from '@brazilian-utils/brazilian-utils';
import type { CustomHelpers, ErrorReport } from 'joi';
import { v } from '../shared/validation/typed.js';

const onlyDigits = (value: string): string => value.replace(/\D/g, '');

export type Normalized = { ok: true; value: string } | { ok: false; message: string };

/** Separators allowed in a typed document: dots, dashes, slashes and spaces ("123.456.789-09"). */
const SEPARATORS = /[.\-/\s]/g;
/** Digits and letters (a 2026 CNPJ carries letters) with those separators between them. */
const DOCUMENT_INPUT = /^[\dA-Za-z.\-/\s]+$/;
/**
 * The same, with the shapes stated, so the OpenAPI document can say them too: a CPF (11 digits),
 * or a CNPJ, 12 characters of 0-9/A-Z (letters since July 2026; lower case accepted on input) then
 * 2 numeric check digits.
 */
const DOCUMENT_SHAPE = /^[.\-/\s]*(?:(?:\d[.\-/\s]*){11}|(?:[\dA-Za-z][.\-/\s]*){12}(?:\d[.\-/\s]*){2})$/;

const DOCUMENT_SHAPE_MESSAGE =
  'must be a CPF (11 digits) or a CNPJ (14 characters: 12 digits or letters, then 2 digits)';

/**
 * CPF (11 digits) or CNPJ (14 characters, numeric or the alphanumeric 2026 form) with valid check
 * digits, returned without separators and upper-cased. The check digits are brazilian-utils' (the
 * Receita Federal's rule, which the alphanumeric form extends by reading each character as its
 * ASCII code minus 48); its version 2 also refuses the never-issued numeric runs (000…, 111…).
 */
export function normalizeDocument(input: string): Normalized {
  if (!DOCUMENT_INPUT.test(input))
    return { ok: false, message: 'must contain only digits, letters and . - / separators' };
  const value = input.replace(SEPARATORS, '').toUpperCase();
  if (/^\d{11}$/.test(value)) {
    return isValidCpf(value) ? { ok: true, value } : { ok: false, message: 'is not a valid CPF' };
  }
  if (/^[\dA-Z]{12}\d{2}$/.test(value)) {
    return isValidCnpj(value, { version: 2 })
      ? { ok: true, value }
      : { ok: false, message: 'is not a valid CNPJ' };
  }
  return { ok: false, message: DOCUMENT_SHAPE_MESSAGE };
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
    normalizedField(DOCUMENT_SHAPE, normalizeDocument, DOCUMENT_SHAPE_MESSAGE).description(
      'CPF (11 digits) or CNPJ (14 characters: 12 digits or letters, then 2 check digits) with valid check digits; separators allowed; returned without them, letters upper-cased',
    ),
};
