/**
 * The payment gateway as the orders see it: one interface, so the service can take payments through
 * a real PSP by adding an adapter (docs/architecture.md, "Writing a gateway adapter"). An adapter does two things:
 * it creates a charge for an order, answering with what the buyer pays with; and it verifies and reads
 * the PSP's callbacks, answering with what happened to which order. Adapters live in `src/gateways/`;
 * the orders never know which one runs.
 */
import type { PaymentMethod } from '../shared/enums/payment-methods.js';

/** What the service asks a gateway to charge: one order, made at the checkout's pay step. */
export interface ChargeRequest {
  orderCode: string;
  companyId: number;
  /** The seller, as the buyer's bank app shows it (Pix merchant name, boleto beneficiary). */
  merchantName: string;
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
 * The gateway's answer: the charge is `paid` at once (a card approved while the buyer waited) or
 * `pending` until a callback says how it ended; with the instructions the buyer pays with (null
 * when the method needs none, or the gateway gives none).
 */
export interface Charge {
  status: 'pending' | 'paid';
  pix: PixInstructions | null;
  boleto: BoletoInstructions | null;
}

/** A charge the gateway will not make (an amount a boleto cannot carry, a zero-amount Pix…). */
export class ChargeRefusedError extends Error {
  override name = 'ChargeRefusedError';
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
  /** Short name, for logs. */
  readonly name: string;
  /** Makes the charge of an order; throws ChargeRefusedError for one it will not make. */
  createCharge(request: ChargeRequest): Promise<Charge>;
  /**
   * Verifies a callback's authenticity (throwing AuthenticationError) and reads it (throwing
   * ValidationError for a body it cannot read). Absent: this gateway sends no callbacks here.
   */
  readCallback?: (callback: GatewayCallback) => GatewayReport;
}
