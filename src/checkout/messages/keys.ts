/** What the buyer pages say, by key: the shape every language's words fill. */
import type { BillingCycle } from '../../shared/enums/billing-cycles.js';
import type { LinkStatus } from '../../shared/enums/link-statuses.js';
import type { PaymentMethod } from '../../shared/enums/payment-methods.js';
import type { DeclineReason } from '../../gateways/port.js';
import type { CopyMessages, LanguageMessages } from '../../ui/messages.js';

/** Why a link's page shows a notice instead of its form or buttons. */
export type NoticeKey =
  | 'link_canceled'
  | 'link_expired'
  | 'link_paid'
  | 'offer_unavailable'
  | 'plan_unavailable'
  | `test_link_${Exclude<LinkStatus, 'active'>}`;

/** What an error page of the buyer pages says, beyond its status. */
export type ErrorKey =
  | 'link_not_found'
  | 'offer_not_found'
  | 'page_not_found'
  | 'link_of_other_item'
  | 'link_not_payable'
  | 'payment_in_progress'
  | 'unknown_outcome'
  | 'order_not_found'
  | 'method_not_offered'
  | 'installments_not_offered'
  | 'method_unavailable'
  | 'gateway_unavailable';

export type SentenceKey = NoticeKey | ErrorKey;

/** What is wrong with one field of the pay form, in the buyer's terms. */
export const FIELD_PROBLEMS = [
  'name_required',
  'name_too_long',
  'name_invalid',
  'name_full_required',
  'email_required',
  'email_invalid',
  'phone_invalid',
  'document_shape',
  'cpf_invalid',
  'cnpj_invalid',
  'payment_method_invalid',
  'installments_invalid',
  'unexpected_field',
  'document_required',
  'document_refused',
  'zip_code_required',
  'zip_code_invalid',
  'street_name_required',
  'street_number_required',
  'neighborhood_required',
  'city_required',
  'address_field_invalid',
  'state_invalid',
  'address_refused',
  'card_incomplete',
  'card_refused',
] as const;

export type FieldProblem = (typeof FIELD_PROBLEMS)[number];

/** Error pages by HTTP status; any other status reads as `other`. */
export type StatusKey = 400 | 404 | 405 | 408 | 409 | 413 | 415 | 429 | 500 | 503 | 'other';

export interface Messages extends LanguageMessages {
  cycles: Record<BillingCycle, string>;
  paymentMethods: Record<PaymentMethod, string>;
  linkStatuses: Record<LinkStatus, string>;
  sentences: Record<SentenceKey, string>;
  problems: Record<FieldProblem, string>;
  statusTitles: Record<StatusKey, string>;
  statusMessages: Record<StatusKey, string>;
  internalErrorReference: (requestId: string) => string;

  price: {
    listPrice: string;
    discount: (couponCode: string) => string;
    total: string;
    firstPayment: string;
    planAfterCoupon: (price: string, cycle: string) => string;
  };

  checkout: {
    titleSuffix: string;
    detailsHeading: string;
    requiredNote: string;
    requiredMark: string;
    name: string;
    email: string;
    phone: string;
    phoneHint: string;
    document: string;
    documentHint: string;
    paymentMethod: string;
    pay: (amount: string) => string;
    errorSummary: string;
    privacyNote: string;
    installments: string;
    installmentsHint: string;
    /** One option of the instalments list: `n` payments of `each` (the first `first` when uneven). */
    installmentOption: (n: number, each: string, first: string) => string;
    /** The boleto payer's address, asked by a company whose gateway needs it. */
    documentHintBoleto: string;
    addressHeading: string;
    addressHint: string;
    zipCode: string;
    zipCodeHint: string;
    streetName: string;
    streetNumber: string;
    neighborhood: string;
    city: string;
    state: string;
    stateChoose: string;
    /** The card, in the PSP's secure fields. */
    cardHeading: string;
    cardHint: (psp: string) => string;
    cardNumber: string;
    cardExpiration: string;
    cardSecurityCode: string;
    cardholderName: string;
    cardNoScript: string;
    cardUnreadable: string;
  };

  /** The page of a pay step the gateway did not answer: nothing was charged, post it again. */
  retry: {
    title: string;
    heading: string;
    tryAgain: string;
    other: string;
  };

  thanks: {
    paidTitle: string;
    paidHeading: string;
    pendingTitle: string;
    pendingHeading: string;
    paidLead: string;
    pendingLead: string;
    orderSummary: string;
    item: string;
    amount: string;
    paymentMethod: string;
    orderCode: string;
    status: string;
    statusPaid: string;
    statusPending: string;
    nextHeading: string;
    paidEmail: (product: string) => string;
    paidSubscription: (price: string, cycle: string) => string;
    pendingByMethod: Record<PaymentMethod, string>;
    pendingEmail: string;
    noNeedToPayAgain: string;
    keepCode: string;
    spamHint: string;
    /** The payment method line of the summary for a card in `n` instalments of `each`. */
    cardInstallments: (n: number, each: string) => string;
  };

  /** The order page after the pay step, and the printable boleto. */
  order: {
    brasiliaTime: string;
    autoUpdate: string;
    copy: CopyMessages & { pix: string; boleto: string };
    pixTitle: string;
    pixHeading: string;
    pixLead: (until: string) => string;
    pixScanHeading: string;
    pixScanHint: string;
    pixQrAlt: (amount: string) => string;
    pixCopyLabel: string;
    pixCopyHint: string;
    pixExpires: string;
    pixExpiredTitle: string;
    pixExpiredLead: string;
    boletoTitle: string;
    boletoHeading: (due: string) => string;
    boletoLead: string;
    boletoLineLabel: string;
    boletoBarcodeAlt: string;
    boletoDue: string;
    boletoPrint: string;
    boletoClearing: string;
    failedTitle: string;
    failedLead: string;
    abandonedTitle: string;
    abandonedLead: string;
    refundedTitle: string;
    refundedLead: string;
    chargedBackTitle: string;
    chargedBackLead: string;
    tryAgain: string;
    statuses: { failed: string; abandoned: string; refunded: string; charged_back: string };
    /** Why the card was declined, when the gateway said. */
    declined: Record<DeclineReason, string>;
  };

  boletoPage: {
    title: (item: string) => string;
    heading: string;
    beneficiary: string;
    howToPay: string;
    print: string;
    back: string;
    paid: string;
    closed: string;
  };

  simulation: {
    title: (item: string) => string;
    testBanner: string;
    linkLine: string;
    statusLabel: string;
    actionsHeading: string;
    outcomes: { paid: string; failed: string; expired: string };
    resultTitle: string;
    resultBanner: string;
    eventSent: string;
    linkNowIs: string;
    deliveriesCaption: string;
    destination: string;
    success: string;
    httpStatus: string;
    yes: string;
    no: string;
    noResponse: string;
    noWebhooks: string;
    back: string;
  };
}

export const isFieldProblem = (value: string): value is FieldProblem =>
  (FIELD_PROBLEMS as readonly string[]).includes(value);
