/**
 * The means of payment as the stand-in makes and reads them: card brands from a BIN, Luhn, MP's date
 * format, and Pix and boleto numbers that real validators accept (built with the service's own
 * EMV and FEBRABAN code: the stand-in's tests check them with independent libraries).
 */
import { createHash } from 'node:crypto';
import { isValidCnpj, isValidCpf } from '@brazilian-utils/brazilian-utils';
import { boletoNumbers, type BoletoNumbers } from '../../../src/gateways/boleto.js';
import { staticPixBrCode } from '../../../src/gateways/pix.js';
import type { MpPaymentMethod } from './wire.js';

/** True when `digits` passes the Luhn check every card number carries. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export type CardBrand = 'visa' | 'master' | 'amex' | 'elo';

/**
 * Elo's BIN ranges (six digits), checked before Visa and Mastercard: some Elo BINs start with 4 or
 * 5. From Elo's published table, cut to the ranges Brazilian cards commonly carry.
 */
const ELO_RANGES: Array<[number, number]> = [
  [401178, 401179],
  [431274, 431274],
  [438935, 438935],
  [451416, 451416],
  [457393, 457393],
  [457631, 457632],
  [504175, 504175],
  [506699, 506778],
  [509000, 509999],
  [627780, 627780],
  [636297, 636297],
  [636368, 636368],
  [650031, 650051],
  [650405, 650439],
  [650485, 650538],
  [650541, 650598],
  [650700, 650727],
  [650901, 650920],
  [651652, 651679],
  [655000, 655058],
];

/** The brand MP would infer from a card number's first six digits, or null for one it does not take. */
export function brandOf(digits: string): CardBrand | null {
  if (!/^\d{6}/.test(digits)) return null;
  const six = Number(digits.slice(0, 6));
  if (ELO_RANGES.some(([from, to]) => six >= from && six <= to)) return 'elo';
  if (digits.startsWith('4')) return 'visa';
  if (/^3[47]/.test(digits)) return 'amex';
  // MP takes any other BIN that starts with 5 as Mastercard (its own test Mastercard is 5031…).
  const four = Number(digits.slice(0, 4));
  if (digits.startsWith('5') || (four >= 2221 && four <= 2720)) return 'master';
  return null;
}

/** Digits of a card number, of its CVV, by brand. */
export const CARD_SHAPES: Record<CardBrand, { numberLength: number; cvvLength: number }> = {
  visa: { numberLength: 16, cvvLength: 3 },
  master: { numberLength: 16, cvvLength: 3 },
  amex: { numberLength: 15, cvvLength: 4 },
  elo: { numberLength: 16, cvvLength: 3 },
};

/** Issuer ids the stand-in gives each brand's cards (MP's own ids vary by bank; these are fixed). */
export const ISSUER_IDS: Record<CardBrand, number> = { visa: 25, master: 24, amex: 310, elo: 687 };

const NAMES: Record<CardBrand, string> = {
  visa: 'Visa',
  master: 'Mastercard',
  amex: 'American Express',
  elo: 'Elo',
};
const BIN_PATTERNS: Record<CardBrand, string> = {
  visa: '^4',
  master: '^(5|2(22[1-9]|2[3-9]|[3-6]|7[01]|720))',
  amex: '^3[47]',
  elo: '^(401178|401179|431274|438935|451416|457393|45763[12]|504175|5067|509|627780|636297|636368|65)',
};

function cardMethod(brand: CardBrand): MpPaymentMethod {
  const shape = CARD_SHAPES[brand];
  return {
    id: brand,
    name: NAMES[brand],
    payment_type_id: 'credit_card',
    status: 'active',
    secure_thumbnail: `https://www.mercadopago.com/org-img/MP3/API/logos/${brand}.gif`,
    thumbnail: `http://img.mlstatic.com/org-img/MP3/API/logos/${brand}.gif`,
    deferred_capture: 'supported',
    settings: [
      {
        card_number: { length: shape.numberLength, validation: 'standard' },
        bin: {
          pattern: BIN_PATTERNS[brand],
          installments_pattern: BIN_PATTERNS[brand],
          exclusion_pattern: null,
        },
        security_code: {
          length: shape.cvvLength,
          card_location: brand === 'amex' ? 'front' : 'back',
          mode: 'mandatory',
        },
      },
    ],
    additional_info_needed: [
      'cardholder_name',
      'cardholder_identification_type',
      'cardholder_identification_number',
    ],
    min_allowed_amount: 0.5,
    max_allowed_amount: 60000,
    accreditation_time: 2880,
    financial_institutions: [],
    processing_modes: ['aggregator'],
  };
}

function offlineMethod(id: 'pix' | 'bolbradesco'): MpPaymentMethod {
  return {
    id,
    name: id === 'pix' ? 'PIX' : 'Boleto',
    payment_type_id: id === 'pix' ? 'bank_transfer' : 'ticket',
    status: 'active',
    secure_thumbnail: `https://www.mercadopago.com/org-img/MP3/API/logos/${id}.gif`,
    thumbnail: `http://img.mlstatic.com/org-img/MP3/API/logos/${id}.gif`,
    deferred_capture: 'unsupported',
    settings: [],
    additional_info_needed: id === 'bolbradesco' ? ['identification_type', 'identification_number'] : [],
    min_allowed_amount: id === 'pix' ? 0.01 : 3,
    max_allowed_amount: id === 'pix' ? 10_000_000 : 100_000,
    accreditation_time: id === 'pix' ? 0 : 4320,
    financial_institutions: [],
    processing_modes: ['aggregator'],
  };
}

export const CARD_BRANDS: CardBrand[] = ['visa', 'master', 'amex', 'elo'];

/** `GET /v1/payment_methods` for a Brazilian (MLB) account: the cards, Pix and Bradesco's boleto. */
export const PAYMENT_METHODS: MpPaymentMethod[] = [
  ...CARD_BRANDS.map(cardMethod),
  offlineMethod('pix'),
  offlineMethod('bolbradesco'),
];

/** The search result for a card number's first digits (`bins`): the brand's method with its issuer. */
export function paymentMethodForBin(bin: string): MpPaymentMethod | null {
  const brand = brandOf(bin);
  if (!brand) return null;
  return { ...cardMethod(brand), issuer: { id: ISSUER_IDS[brand], name: NAMES[brand], default: true } };
}

/**
 * A CPF or CNPJ with valid check digits (punctuation allowed, as MP takes it). A CNPJ may be the
 * alphanumeric form the Receita Federal issues since July 2026 (IN RFB 2.229/2024), still of type
 * `CNPJ` in MP's `GET /v1/identification_types`.
 */
export function validDocument(type: string, number: string): boolean {
  if (type === 'CPF') return isValidCpf(number);
  if (type === 'CNPJ') return isValidCnpj(number, { version: 2 });
  return false;
}

/**
 * MP's date-time format: milliseconds and the offset of its servers (-04:00), whatever the
 * account's country. A client that parses these as UTC, or as Brasília time, gets them wrong.
 */
export function mpDate(instant: Date): string {
  return new Date(instant.getTime() - 4 * 3600_000).toISOString().replace('Z', '-04:00');
}

/** The Brasília calendar day of an instant (a boleto's due date is a day, in Brazil). */
export function brasiliaDay(instant: Date): string {
  return new Date(instant.getTime() - 3 * 3600_000).toISOString().slice(0, 10);
}

const snake = (key: string): string => key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

function snakeValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeValue);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [snake(key), snakeValue(inner)]));
}

/** MP's metadata rule: each key turned into snake_case (`orderCode` → `order_code`), recursively. */
export function snakeKeys(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).map(([key, inner]) => [snake(key), snakeValue(inner)]));
}

/** An EVP (random) Pix key, fixed per seller, as MP's collection codes carry. */
export function pixKeyOf(userId: number): string {
  const hex = createHash('sha256').update(`mp stand-in pix key ${userId}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The Pix copia e cola of a payment: a BR Code with the seller's key, the amount and the txid
 * `mpqrinter<payment id>` (how MP's codes name the payment they collect).
 */
export function pixCode(args: {
  key: string;
  name: string;
  city: string;
  amount: number;
  paymentId: number;
}): string {
  return staticPixBrCode({
    key: args.key,
    merchantName: args.name,
    merchantCity: args.city,
    amount: args.amount.toFixed(2),
    txid: `mpqrinter${args.paymentId}`,
  });
}

/** Bradesco's COMPE code: MP's boletos (`bolbradesco`) are issued through it. */
export const BRADESCO = '237';

/**
 * A Bradesco boleto's numbers: the free field is agency (4), carteira (2), nosso número (11, the
 * payment id), account (7) and a zero, as Bradesco lays it out.
 */
export function bradescoBoleto(paymentId: number, amount: number, dueDay: string): BoletoNumbers {
  const nossoNumero = String(paymentId % 10 ** 11).padStart(11, '0');
  const freeField = `3381` + `09` + nossoNumero + `0001234` + `0`;
  return boletoNumbers(BRADESCO, Math.round(amount * 100), dueDay, freeField);
}

/**
 * MP's own fee on an approved payment, at the rates MP publishes for Brazil's Checkout Transparente
 * ("Tarifas do Mercado Pago": Pix 0.99 %, boleto R$ 3.49, a card paid at once 4.98 %); only the
 * shape matters to the service, which reads whatever `fee_details` lists.
 */
export function mercadoPagoFee(paymentTypeId: string, amount: number): number {
  if (paymentTypeId === 'ticket') return Math.min(3.49, amount);
  const rate = paymentTypeId === 'bank_transfer' ? 0.0099 : 0.0498;
  return Math.round(amount * rate * 100) / 100;
}
