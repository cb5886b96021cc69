/**
 * The Mercado Pago adapter for one company's connected account (docs/mercadopago.md): charges with
 * `POST /v1/payments` (the order code as `X-Idempotency-Key` and `external_reference`), reads
 * payments back, follows chargebacks, refunds. MP's statuses are mapped onto the order's lifecycle
 * here and nowhere else.
 */
import type { AppContext } from '../../shared/context.js';
import { addDays, brazilDate } from '../../shared/brazil-time.js';
import type { PaymentMethod } from '../../shared/enums/payment-methods.js';
import {
  ChargeRefusedError,
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

/** Brasília has kept UTC-03:00 all year since 2019; MP reads `date_of_expiration` with its offset. */
const brasiliaIso = (instant: Date): string =>
  new Date(instant.getTime() - 3 * 3600_000).toISOString().replace('Z', '-03:00');

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

function paymentBody(deps: Deps, request: ChargeRequest): Record<string, unknown> {
  const common = {
    transaction_amount: reais(request.amount),
    description: request.description.slice(0, 250),
    external_reference: request.orderCode,
    notification_url: `${deps.config.urls.checkout}${MP_NOTIFICATIONS_PATH}`,
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
        date_of_expiration: brasiliaIso(
          new Date(request.createdAt.getTime() + request.pixExpiresInSeconds * 1000),
        ),
      };
    case 'boleto':
      return {
        ...common,
        payment_method_id: MP_BOLETO,
        date_of_expiration: `${boletoDueDate(request)}T23:59:59.000-03:00`,
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
function chargeOf(request: ChargeRequest, payment: MpPayment): Charge {
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
        expiresAt: expiresAt ?? new Date(request.createdAt.getTime() + request.pixExpiresInSeconds * 1000),
      },
      boleto: null,
    };
  }
  if (request.method === 'boleto') {
    const line = payment.digitableLine?.replace(/\D/g, '') ?? '';
    const barcode = payment.barcode?.replace(/\D/g, '') ?? '';
    if (line.length !== 47 || barcode.length !== 44)
      throw new ChargeRefusedError('Mercado Pago gave no boleto numbers for the payment');
    return {
      status: 'pending',
      reference,
      pix: null,
      boleto: {
        digitableLine: line,
        barcode,
        dueDate: expiresAt === null ? boletoDueDate(request) : brazilDate(expiresAt),
        url: payment.ticketUrl ?? request.boletoPageUrl,
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

/** The adapter for one gateway_accounts row (its public key is the browser SDK's). */
export function mercadoPagoGateway(deps: Deps, account: { id: number; publicKey: string }): PaymentGateway {
  const sdkUrl = deps.config.mercadoPago?.sdkUrl ?? '';
  return {
    provider: 'mercadopago',
    accountId: account.id,
    checkout: { boletoPayer: true, cardTokenizer: { sdkUrl, publicKey: account.publicKey } },
    async createCharge(request) {
      const body = paymentBody(deps, request);
      const payment = await withAccount(deps, account.id, (call) =>
        createPayment(call, body, request.orderCode),
      ).catch((err: unknown) => {
        if (err instanceof MpRefusedError)
          throw new ChargeRefusedError(`Mercado Pago refused the payment: ${err.message}`, refusedField(err));
        throw err;
      });
      // The fees ride along whatever the outcome: the platform's as sent, MP's once it lists them.
      const fees = { platformFee: request.platformFee ?? null, gatewayFee: gatewayFeeOf(payment) };
      return { ...chargeOf(request, payment), ...fees };
    },
    readPayment: async (reference) =>
      toPspPayment(await withAccount(deps, account.id, (call) => getPayment(call, reference))),
    async findPayment(orderCode) {
      const found = await withAccount(deps, account.id, (call) => searchPayments(call, orderCode));
      const ours = found.filter((p) => p.externalReference === orderCode);
      return ours.length === 0 ? undefined : toPspPayment(ours[0] as MpPayment);
    },
    readDisputedPayments: (disputeId) =>
      withAccount(deps, account.id, (call) => getChargebackPayments(call, disputeId)),
    async refund(reference, refundKey) {
      await withAccount(deps, account.id, (call) => refundPayment(call, reference, refundKey)).catch(
        (err: unknown) => {
          if (err instanceof MpRefusedError) throw new RefundRefusedError(err.message);
          throw err;
        },
      );
    },
  };
}
