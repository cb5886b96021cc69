/**
 * The dev gateway (DEV_GATEWAY, on outside production): a stand-in PSP that charges nothing but makes
 * payment instructions real tools accept, so the checkout can be tried end to end on a laptop. A card
 * is approved at once; a Pix is a valid static BR Code for the company's (made-up) Pix key; a boleto
 * has a valid barcode and linha digitável of bank 999, which no bank uses, so no real bank takes it.
 * Pix and boleto stay pending until a signed callback says they were paid.
 */
import { createHash } from 'node:crypto';
import {
  ChargeRefusedError,
  type Charge,
  type ChargeRequest,
  type CheckoutNeeds,
  type GatewayCallback,
  type PaymentGateway,
} from './port.js';
import { addDays, brazilDate } from '../shared/brazil-time.js';
import { BOLETO_MAX_CENTS, boletoNumbers } from './boleto.js';
import { staticPixBrCode } from './pix.js';
import { readSignedCallback } from './signed-callback.js';

/** No bank has this COMPE code: a dev boleto can be validated, never paid at a real bank. */
export const DEV_BOLETO_BANK = '999';
export const DEV_MERCHANT_CITY = 'SAO PAULO';

const cents = (amount: string): number => Math.round(Number.parseFloat(amount) * 100);

/** The company's static Pix key in the dev gateway: a random-looking EVP key fixed per company. */
export function devPixKey(companyId: number): string {
  const hex = createHash('sha256').update(`dev-gateway pix key ${companyId}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The Pix txid of an order: its code's first 25 hex digits (what the seller's statement shows). */
export const pixTxid = (orderCode: string): string => orderCode.replace(/-/g, '').slice(0, 25);

/** The boleto's free field (the bank's own 25 digits): the order code as a number, cut to 25 digits. */
export const boletoFreeField = (orderCode: string): string =>
  (BigInt(`0x${orderCode.replace(/-/g, '')}`) % 10n ** 25n).toString().padStart(25, '0');

function pixCharge(request: ChargeRequest): Charge {
  if (cents(request.amount) <= 0) throw new ChargeRefusedError('a Pix charge needs an amount above zero');
  return {
    status: 'pending',
    reference: null,
    pix: {
      copyPaste: staticPixBrCode({
        key: devPixKey(request.companyId),
        merchantName: request.merchantName,
        merchantCity: DEV_MERCHANT_CITY,
        amount: (cents(request.amount) / 100).toFixed(2),
        txid: pixTxid(request.orderCode),
      }),
      expiresAt: new Date(request.createdAt.getTime() + request.pixExpiresInSeconds * 1000),
    },
    boleto: null,
  };
}

function boletoCharge(request: ChargeRequest): Charge {
  const amount = cents(request.amount);
  if (amount <= 0 || amount > BOLETO_MAX_CENTS)
    throw new ChargeRefusedError(`a boleto cannot carry ${request.amount}`);
  const dueDate = addDays(brazilDate(request.createdAt), request.boletoDueDays);
  const numbers = boletoNumbers(DEV_BOLETO_BANK, amount, dueDate, boletoFreeField(request.orderCode));
  return {
    status: 'pending',
    reference: null,
    pix: null,
    boleto: { ...numbers, dueDate, url: request.boletoPageUrl },
  };
}

/** A gateway that charges nothing itself: the checkout posts no card data and asks for no address. */
export const LOCAL_CHECKOUT: CheckoutNeeds = { boletoPayer: false, cardTokenizer: null };

/** The dev gateway; `callbackSecret` signs its callbacks (none: it takes no callbacks). */
export function devGateway(callbackSecret: string | undefined): PaymentGateway {
  return {
    provider: 'dev',
    accountId: null,
    checkout: LOCAL_CHECKOUT,
    // Async, so a refusal is a rejected promise like any gateway's.
    async createCharge(request) {
      switch (request.method) {
        case 'credit_card':
          return { status: 'paid', reference: null, pix: null, boleto: null };
        case 'pix':
          return pixCharge(request);
        case 'boleto':
          return boletoCharge(request);
      }
    },
    ...(callbackSecret === undefined
      ? {}
      : { readCallback: (callback: GatewayCallback) => readSignedCallback(callbackSecret, callback) }),
  };
}
