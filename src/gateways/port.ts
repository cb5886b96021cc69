/**
 * The payment gateway as the orders see it: one interface, so the service takes payments through a
 * real PSP by adding an adapter (docs/architecture.md, "Writing a gateway adapter"). An adapter creates
 * a charge for an order, answering with what the buyer pays with; reads a payment's state back from
 * the PSP (or verifies and reads the PSP's callbacks); and refunds. Each company charges through its
 * own gateway (`gatewayOfCompany`); the orders never know which one runs.
 */
import type { GatewayProvider } from '../shared/db/schema.js';
import type { PaymentMethod } from '../shared/enums/payment-methods.js';

/** The buyer as the gateway needs them (a PSP may require a document and an address for a boleto). */
export interface Payer {
  name: string | null;
  email: string | null;
  /** `+` and digits. */
  phone: string | null;
  /** CPF (11 digits) or CNPJ (14 characters, letters upper-case since 2026), no separators. */
  document: string | null;
  address: PayerAddress | null;
}

/** A Brazilian address, as a boleto's payer needs it. */
export interface PayerAddress {
  /** CEP, 8 digits. */
  zipCode: string;
  streetName: string;
  streetNumber: string;
  neighborhood: string;
  city: string;
  /** The federal unit, two letters (SP, RJ…). */
  state: string;
}

/** A card the PSP's browser script tokenized: its number never reaches this service. */
export interface CardToken {
  token: string;
  /** The PSP's brand id (`visa`, `master`…). */
  paymentMethodId: string;
  issuerId: string | null;
}

/** What the service asks a gateway to charge: one order, made at the checkout's pay step or a renewal. */
export interface ChargeRequest {
  /** Also the idempotency key: asking again with the same code never makes a second payment. */
  orderCode: string;
  companyId: number;
  /** The seller, as the buyer's bank app shows it (Pix merchant name, boleto beneficiary). */
  merchantName: string;
  /** What is sold, as the PSP's statement shows it (the product's name). */
  description: string;
  /** Reais with two decimals ("197.50"). */
  amount: string;
  method: PaymentMethod;
  /** Card instalments (1–12), without interest; null for Pix and boleto. */
  installments: number | null;
  /** The moment of the order: expiries and due dates count from it. */
  createdAt: Date;
  /** The link's options (the defaults for a checkout opened without a link). */
  pixExpiresInSeconds: number;
  boletoDueDays: number;
  /** Where this service shows the printable boleto; an adapter may answer with the PSP's own page. */
  boletoPageUrl: string;
  payer: Payer;
  /** The tokenized card, for a gateway that tokenizes in the browser; null otherwise. */
  card: CardToken | null;
  /**
   * The deployment's share of this charge (reais, two decimals), for a PSP that splits it off at the
   * payment (a marketplace fee); null or absent: none is taken.
   */
  platformFee?: string | null;
}

export interface PixInstructions {
  /** The BR Code (EMV "copia e cola"), also what the QR code encodes. */
  copyPaste: string;
  expiresAt: Date;
}

export interface BoletoInstructions {
  /** 47 digits, no separators. */
  digitableLine: string;
  /** 44 digits. */
  barcode: string;
  /** `YYYY-MM-DD`, a calendar date in Brazil. */
  dueDate: string;
  url: string;
}

/**
 * The gateway's answer: the charge is `paid` at once (a card approved while the buyer waited),
 * `declined` (a card the issuer refused: the order fails, the link stays payable) or `pending` until
 * a callback, a notification or a reconciliation says how it ended; with the instructions the buyer
 * pays with (null when the method needs none, or the gateway gives none).
 */
export interface Charge {
  status: 'pending' | 'paid' | 'declined';
  pix: PixInstructions | null;
  boleto: BoletoInstructions | null;
  /** The PSP's id of the payment; null for a gateway that has none (the dev gateway). */
  reference: string | null;
  /** Why a card was declined, in the buyer's terms (`declined` only). */
  declineReason?: DeclineReason;
  /** What the PSP keeps as its own fee (reais, two decimals), when it says; null or absent: unknown. */
  gatewayFee?: string | null;
  /** The platform fee the PSP was asked to split off (the request's `platformFee`, where it takes one). */
  platformFee?: string | null;
}

/** Why an issuer declined a card, as the buyer page words it. */
export const DECLINE_REASONS = ['insufficient_funds', 'security_code', 'call_issuer', 'other'] as const;
export type DeclineReason = (typeof DECLINE_REASONS)[number];

/**
 * A charge the gateway will not make (an amount a boleto cannot carry, a zero-amount Pix, a payer the
 * PSP does not accept…). `field` names the form field at fault when the PSP said which.
 */
export class ChargeRefusedError extends Error {
  override name = 'ChargeRefusedError';
  constructor(
    message: string,
    readonly field?: 'document' | 'address' | 'card',
  ) {
    super(message);
  }
}

/**
 * The PSP could not be reached, did not answer in time, or answered with a server error: nothing is
 * known to be charged, and asking again (with the same order code) is safe.
 */
export class GatewayUnavailableError extends Error {
  override name = 'GatewayUnavailableError';
}

/**
 * The company's PSP account cannot be used until the company connects it again (its grant was
 * revoked or refused a refresh): nothing is charged through it meanwhile.
 */
export class AccountDisconnectedError extends GatewayUnavailableError {
  override name = 'AccountDisconnectedError';
}

/** The PSP has no such payment or dispute for this account (another account's, or none at all). */
export class NotFoundAtGatewayError extends Error {
  override name = 'NotFoundAtGatewayError';
}

/** What a verified PSP notification asks the service to look at (read back from the PSP, never believed). */
export interface GatewayNotice {
  provider: 'mercadopago';
  topic: 'payment' | 'chargebacks';
  /** The payment's (or dispute's) id at the PSP. */
  resourceId: string;
  /** The PSP account the notification names: a hint for a payment the service does not know yet. */
  accountId: string | null;
}

/** A PSP's notifications endpoint: where it posts, and how a request there is verified and read. */
export interface GatewayNotifications {
  /** Under `{checkout_url}`. */
  path: string;
  /**
   * Verifies a notification (throwing AuthenticationError before anything is read) and says what it
   * is about; undefined for a topic the service does not follow (answered 200 and dropped).
   */
  read(
    secret: string,
    request: { query: Record<string, unknown>; rawBody: Buffer; header(name: string): string | undefined },
  ): GatewayNotice | undefined;
}

/** The PSP refused a refund (already refunded there, too old, a balance too low…), in its words. */
export class RefundRefusedError extends Error {
  override name = 'RefundRefusedError';
}

/** What the checkout must ask the buyer for, for this gateway. */
export interface CheckoutNeeds {
  /** A boleto needs the payer's CPF/CNPJ and address. */
  boletoPayer: boolean;
  /**
   * The card is tokenized in the browser by the PSP's script, loaded from `sdkUrl` with the
   * company's `publicKey`; null when the card form posts no card data (the dev gateway).
   */
  cardTokenizer: { sdkUrl: string; publicKey: string } | null;
}

/** A payment as the PSP reports it now, mapped onto the order's lifecycle. */
export interface PspPayment {
  reference: string;
  /** The order code the payment was made for (its external reference), if any. */
  orderCode: string | null;
  /** `pending`: nothing conclusive yet (pending, in process, authorized). */
  status: 'pending' | 'paid' | 'failed' | 'refunded' | 'charged_back';
  /** Reais with two decimals. */
  amount: string;
  method: PaymentMethod | null;
  paidAt: Date | null;
  /** What the PSP keeps as its own fee (reais, two decimals), when it says; null or absent: unknown. */
  gatewayFee?: string | null;
  /** The platform fee the PSP split off (reais, two decimals), when it says; null or absent: unknown. */
  platformFee?: string | null;
}

/** What a gateway callback may report about an order. */
export const GATEWAY_REPORT_STATUSES = ['paid', 'failed', 'refunded', 'chargeback'] as const;
export type GatewayReportStatus = (typeof GATEWAY_REPORT_STATUSES)[number];

export type GatewayReport =
  | { status: 'paid'; orderCode: string; paymentMethod: PaymentMethod; paidAt: Date }
  | { status: Exclude<GatewayReportStatus, 'paid'>; orderCode: string };

/** A callback as it arrived: its raw body (signatures cover the bytes) and its headers. */
export interface GatewayCallback {
  rawBody: Buffer;
  header(name: string): string | undefined;
  receivedAt: Date;
}

export interface PaymentGateway {
  /** Which gateway this is, as stored with each charge. */
  readonly provider: GatewayProvider;
  /** The PSP account charges are made into (a gateway_accounts row); null for the local gateways. */
  readonly accountId: number | null;
  readonly checkout: CheckoutNeeds;
  /**
   * Makes the charge of an order; throws ChargeRefusedError for one it will not make and
   * GatewayUnavailableError when the PSP could not say.
   */
  createCharge(request: ChargeRequest): Promise<Charge>;
  /** Reads a payment's state now (notifications, reconciliation). Absent: this gateway reports by callback. */
  readPayment?: (reference: string) => Promise<PspPayment>;
  /** The payment made for an order whose answer was lost, if the PSP made one. */
  findPayment?: (orderCode: string) => Promise<PspPayment | undefined>;
  /** The payments a dispute (chargeback) is about. */
  readDisputedPayments?: (disputeId: string) => Promise<string[]>;
  /**
   * Refunds a paid charge in full at the PSP, once per `refundKey` (throws RefundRefusedError or
   * GatewayUnavailableError). Absent: the refund happens elsewhere and is only recorded here.
   */
  refund?: (reference: string, refundKey: string) => Promise<void>;
  /**
   * Verifies a callback's authenticity (throwing AuthenticationError) and reads it (throwing
   * ValidationError for a body it cannot read). Absent: this gateway sends no callbacks here.
   */
  readCallback?: (callback: GatewayCallback) => GatewayReport;
}
