/**
 * The Mercado Pago adapter for one company's connected account (docs/mercadopago.md): charges with
 * `POST /v1/payments` (the order code as `X-Idempotency-Key` and `external_reference`), reads
 * payments back, follows chargebacks, refunds. MP's statuses are mapped onto the order's lifecycle
 * here and nowhere else.
 */
import type { AppContext } from '../../shared/context.js';
import { addDays, brazilDate, brazilIso, startOfBrazilDay } from '../../shared/brazil-time.js';
import type { PaymentMethod } from '../../shared/enums/payment-methods.js';
import { nameUuid } from '../../shared/ids.js';
import { barcodeOfLine, digitableLineOf } from '../boleto.js';
import {
  ChargeRefusedError,
  NotFoundAtGatewayError,
  RefundRefusedError,
  type Charge,
  type ChargeRequest,
  type DeclineReason,
  type PaymentGateway,
  type PspPayment,
} from '../port.js';
import {
  createPayment,
  getChargebackPayments,
  getPayment,
  MpRefusedError,
  refundPayment,
  searchPayments,
  type MpPayment,
} from './api.js';
import { withAccount } from './tokens.js';

type Deps = Pick<AppContext, 'db' | 'config' | 'logger'>;

/** Where MP sends its notifications: the buyer pages' MP endpoint. */
export const MP_NOTIFICATIONS_PATH = '/gateway/mercadopago/notifications';

/** MP's `payment_method_id` of each of our methods (a card's is its brand, from the browser SDK). */
const MP_BOLETO = 'bolbradesco';
const MP_PIX = 'pix';

/**
 * MP accepts a Pix `date_of_expiration` only between 30 minutes and 30 days after it receives the
 * request ("Receiving payment by Pix" guide): a minute more than the least, for the request's transit
 * and the clocks' skew, and a day less than the most.
 */
export const MP_PIX_MIN_SECONDS = 1860;
const MP_PIX_MAX_SECONDS = 29 * 86_400;

/** The Pix deadline MP is told, counted from the moment the request leaves (`sentAt`). */
export function pixExpiryOf(request: Pick<ChargeRequest, 'pixExpiresInSeconds'>, sentAt: Date): Date {
  const seconds = Math.min(Math.max(request.pixExpiresInSeconds, MP_PIX_MIN_SECONDS), MP_PIX_MAX_SECONDS);
  return new Date(sentAt.getTime() + seconds * 1000);
}

const reais = (amount: string): number => Math.round(Number.parseFloat(amount) * 100) / 100;

const amountOf = (value: number): string => value.toFixed(2);

function splitName(name: string | null): { first_name?: string; last_name?: string } {
  if (name === null) return {};
  const parts = name.trim().split(/\s+/);
  const first = parts.shift() ?? '';
  return parts.length > 0 ? { first_name: first, last_name: parts.join(' ') } : { first_name: first };
}

function payerOf(request: ChargeRequest): Record<string, unknown> {
  const { payer } = request;
  const document = payer.document;
  const address = payer.address;
  return {
    email: payer.email,
    ...splitName(payer.name),
    ...(document === null
      ? {}
      : // A CNPJ, numeric or alphanumeric (2026), has 14 characters; MP's type is CNPJ for both.
        { identification: { type: document.length === 14 ? 'CNPJ' : 'CPF', number: document } }),
    ...(address === null
      ? {}
      : {
          address: {
            zip_code: address.zipCode,
            street_name: address.streetName,
            street_number: address.streetNumber,
            neighborhood: address.neighborhood,
            city: address.city,
            federal_unit: address.state,
          },
        }),
  };
}

/** The boleto's due date: the link's boletoDueDays after the order, the end of that day in Brasília. */
const boletoDueDate = (request: ChargeRequest): string =>
  addDays(brazilDate(request.createdAt), request.boletoDueDays);

function paymentBody(deps: Deps, request: ChargeRequest, sentAt: Date): Record<string, unknown> {
  const common = {
    transaction_amount: reais(request.amount),
    description: request.description.slice(0, 250),
    external_reference: request.orderCode,
    // `source_news=webhooks`: MP sends this URL its signed webhooks only, not the unsigned IPN calls
    // it also sends a notification_url without it (Webhooks guide, "Configuration when creating payments").
    notification_url: `${deps.config.urls.checkout}${MP_NOTIFICATIONS_PATH}?source_news=webhooks`,
    payer: payerOf(request),
    metadata: { order_code: request.orderCode },
    // The platform's share, split off by MP for the application that holds the seller's OAuth grant
    // (MP's marketplace model); sent only when there is one.
    ...(request.platformFee ? { application_fee: reais(request.platformFee) } : {}),
  };
  switch (request.method) {
    case 'pix':
      return {
        ...common,
        payment_method_id: MP_PIX,
        date_of_expiration: brazilIso(pixExpiryOf(request, sentAt)),
      };
    case 'boleto':
      return {
        ...common,
        payment_method_id: MP_BOLETO,
        // The last millisecond of the due date in Brasília.
        date_of_expiration: brazilIso(
          new Date(startOfBrazilDay(addDays(boletoDueDate(request), 1)).getTime() - 1),
        ),
      };
    case 'credit_card': {
      if (!request.card) throw new ChargeRefusedError('a card payment needs the card token', 'card');
      return {
        ...common,
        payment_method_id: request.card.paymentMethodId,
        token: request.card.token,
        installments: request.installments ?? 1,
        ...(request.card.issuerId === null ? {} : { issuer_id: request.card.issuerId }),
      };
    }
  }
}

const DECLINES: Record<string, DeclineReason> = {
  cc_rejected_insufficient_amount: 'insufficient_funds',
  cc_rejected_bad_filled_security_code: 'security_code',
  cc_rejected_call_for_authorize: 'call_issuer',
};

/**
 * The boleto's line and barcode: MP's barcode when it gives one, else the barcode the 47-digit line
 * carries (FEBRABAN's layout), and the line from the barcode when only that came; null with neither.
 */
export function boletoNumbersOf(
  payment: Pick<MpPayment, 'digitableLine' | 'barcode'>,
): { digitableLine: string; barcode: string } | null {
  const line = payment.digitableLine?.replace(/\D/g, '') ?? '';
  const barcode = payment.barcode?.replace(/\D/g, '') ?? '';
  const goodLine = line.length === 47;
  const goodBarcode = barcode.length === 44;
  if (goodLine && goodBarcode) return { digitableLine: line, barcode };
  if (goodLine) return { digitableLine: line, barcode: barcodeOfLine(line) };
  if (goodBarcode) return { digitableLine: digitableLineOf(barcode), barcode };
  return null;
}

/**
 * What MP kept of an approved payment as its own fee: its `fee_details` paid by the seller
 * (`collector`), less the platform's `application_fee`. Null before approval (MP lists fees then).
 */
function gatewayFeeOf(payment: MpPayment): string | null {
  return listedFee(payment, (type) => type !== 'application_fee');
}

/** The application's share MP split off an approved payment (its `application_fee` entries). */
const platformFeeOf = (payment: MpPayment): string | null =>
  listedFee(payment, (type) => type === 'application_fee');

function listedFee(payment: MpPayment, counts: (type: string) => boolean): string | null {
  if (payment.status !== 'approved' && payment.status !== 'refunded' && payment.status !== 'charged_back')
    return null;
  const sum = payment.feeDetails
    .filter((f) => counts(f.type) && (f.feePayer ?? 'collector') === 'collector')
    .reduce((total, f) => total + Math.round(f.amount * 100), 0);
  return amountOf(sum / 100);
}

/** A payment MP just created, as the pay step's charge. */
function chargeOf(request: ChargeRequest, payment: MpPayment, sentAt: Date): Charge {
  const reference = payment.id;
  if (payment.status === 'approved') return { status: 'paid', reference, pix: null, boleto: null };
  if (payment.status === 'rejected' || payment.status === 'cancelled')
    return {
      status: 'declined',
      reference,
      pix: null,
      boleto: null,
      declineReason: DECLINES[payment.statusDetail ?? ''] ?? 'other',
    };
  const expiresAt = payment.dateOfExpiration === null ? null : new Date(payment.dateOfExpiration);
  if (request.method === 'pix') {
    if (payment.qrCode === null)
      throw new ChargeRefusedError('Mercado Pago gave no Pix code for the payment');
    return {
      status: 'pending',
      reference,
      pix: {
        copyPaste: payment.qrCode,
        // MP's own word (it echoes what the first request of this key told it), else what it was told.
        expiresAt: expiresAt ?? pixExpiryOf(request, sentAt),
      },
      boleto: null,
    };
  }
  if (request.method === 'boleto') {
    // MP made the boleto: it is the buyer's to pay whatever numbers came with the answer (never
    // refused here), its page MP's when the numbers cannot be read.
    const numbers = boletoNumbersOf(payment);
    const url = payment.ticketUrl ?? request.boletoPageUrl;
    return {
      status: 'pending',
      reference,
      pix: null,
      boleto:
        numbers === null
          ? null
          : {
              ...numbers,
              dueDate: expiresAt === null ? boletoDueDate(request) : brazilDate(expiresAt),
              url,
            },
    };
  }
  return { status: 'pending', reference, pix: null, boleto: null };
}

/** Which form field a refusal is about, from MP's words (its cause codes vary by country and version). */
function refusedField(err: MpRefusedError): ChargeRefusedError['field'] {
  const text = [err.message, ...err.causes.map((c) => c.description)].join(' ').toLowerCase();
  if (/identification|cpf|cnpj|document/.test(text)) return 'document';
  if (/address|zip|street|federal_unit|neighborhood|city/.test(text)) return 'address';
  if (/token|card|security|expiration|issuer|installment/.test(text)) return 'card';
  return undefined;
}

const METHOD_OF: Record<string, PaymentMethod> = { pix: 'pix', bolbradesco: 'boleto', pec: 'boleto' };

function methodOf(payment: MpPayment): PaymentMethod | null {
  const method = METHOD_OF[payment.paymentMethodId ?? ''];
  if (method) return method;
  return payment.paymentTypeId === 'credit_card' || payment.paymentTypeId === 'debit_card'
    ? 'credit_card'
    : null;
}

/** MP's status → the order's: approved paid; rejected and cancelled failed; the rest say nothing yet. */
function statusOf(payment: MpPayment): PspPayment['status'] {
  switch (payment.status) {
    case 'approved':
      return 'paid';
    case 'rejected':
    case 'cancelled':
      return 'failed';
    case 'refunded':
      return 'refunded';
    case 'charged_back':
      return 'charged_back';
    default:
      // pending, in_process, authorized, in_mediation: nothing conclusive.
      return 'pending';
  }
}

export function toPspPayment(payment: MpPayment): PspPayment {
  return {
    reference: payment.id,
    orderCode: payment.externalReference,
    status: statusOf(payment),
    amount: amountOf(payment.transactionAmount),
    method: methodOf(payment),
    paidAt: payment.dateApproved === null ? null : new Date(payment.dateApproved),
    gatewayFee: gatewayFeeOf(payment),
    platformFee: platformFeeOf(payment),
  };
}

/** MP's 404: not this account's payment (or dispute), in the port's words. */
function notFound(err: unknown): never {
  if (err instanceof MpRefusedError && err.status === 404) throw new NotFoundAtGatewayError(err.message);
  throw err;
}

/** The adapter for one gateway_accounts row (its public key is the browser SDK's). */
export function mercadoPagoGateway(deps: Deps, account: { id: number; publicKey: string }): PaymentGateway {
  const sdkUrl = deps.config.mercadoPago?.sdkUrl ?? '';
  return {
    provider: 'mercadopago',
    accountId: account.id,
    checkout: { boletoPayer: true, cardTokenizer: { sdkUrl, publicKey: account.publicKey } },
    async createCharge(request) {
      // Dated when it leaves (again after a token refresh), so MP reads a deadline still in its range.
      let sentAt = new Date();
      const payment = await withAccount(deps, account.id, (call) => {
        sentAt = new Date();
        return createPayment(call, paymentBody(deps, request, sentAt), request.orderCode);
      }).catch((err: unknown) => {
        if (err instanceof MpRefusedError)
          throw new ChargeRefusedError(`Mercado Pago refused the payment: ${err.message}`, refusedField(err));
        throw err;
      });
      // The fees ride along whatever the outcome: the platform's as sent, MP's once it lists them.
      const fees = { platformFee: request.platformFee ?? null, gatewayFee: gatewayFeeOf(payment) };
      return { ...chargeOf(request, payment, sentAt), ...fees };
    },
    readPayment: async (reference) =>
      toPspPayment(
        await withAccount(deps, account.id, (call) => getPayment(call, reference)).catch(notFound),
      ),
    async findPayment(orderCode) {
      const found = await withAccount(deps, account.id, (call) => searchPayments(call, orderCode));
      const ours = found.filter((p) => p.externalReference === orderCode);
      return ours.length === 0 ? undefined : toPspPayment(ours[0] as MpPayment);
    },
    readDisputedPayments: (disputeId) =>
      withAccount(deps, account.id, (call) => getChargebackPayments(call, disputeId)).catch(notFound),
    async refund(reference, refundKey) {
      // MP types X-Idempotency-Key a UUID (mercadopago/openapi by-site/MLB/spec3.yaml, createRefund):
      // one named by the refund key, the same on every retry.
      const key = nameUuid(refundKey);
      await withAccount(deps, account.id, (call) => refundPayment(call, reference, key)).catch(
        (err: unknown) => {
          if (err instanceof MpRefusedError) throw new RefundRefusedError(err.message);
          throw err;
        },
      );
    },
  };
}
