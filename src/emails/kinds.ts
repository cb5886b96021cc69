/**
 * What the service mails a buyer, and about which events (docs/email.md). One module, so the relay,
 * the sender, the settings and the migration's index agree.
 */
import { SUBSCRIPTION_EVENT_KINDS, type EventKind } from '../events/kinds.js';
import { EMAIL_KINDS, EMAIL_STATES, MESSAGE_KINDS } from '../shared/db/schema.js';
import type { PaymentMethod } from '../shared/enums/payment-methods.js';
import type { Language } from '../ui/language.js';

export { EMAIL_KINDS, EMAIL_STATES, MESSAGE_KINDS };
/** A kind of message a seller sends; each is also the name of the setting that turns it on or off. */
export type EmailKind = (typeof EMAIL_KINDS)[number];
/** Every kind of message: the sellers' and the buyer's page's sign-in link. */
export type MessageKind = (typeof MESSAGE_KINDS)[number];
export type EmailState = (typeof EMAIL_STATES)[number];

/** The states the panel and the dashboard show (`sending` reads as queued; `skipped` ones are not listed). */
export const SHOWN_EMAIL_STATES = ['queued', 'sent', 'failed', 'bounced'] as const;
export type ShownEmailState = (typeof SHOWN_EMAIL_STATES)[number];

/**
 * The event kinds that can mail a buyer. The same list, word for word, is the predicate of the index
 * the sweep reads (migration 0951, which replaced 0921) and of the repository's statements.
 */
export const EMAILED_EVENT_KINDS = [
  ...(['order.created', 'order.paid', 'order.refunded', 'order.abandoned'] as const),
  ...SUBSCRIPTION_EVENT_KINDS,
  // The order's service invoice, once issued: its PDF, to the buyer (docs/invoices.md).
  'invoice.issued',
] as const satisfies readonly EventKind[];
export type EmailedEventKind = (typeof EMAILED_EVENT_KINDS)[number];

/**
 * What a message says, taken from its event when it was queued (the event may be pruned before a
 * timed message is due). Everything about the buyer's purchase, nothing about anybody else's.
 */
export interface MessageData {
  buyerName: string | null;
  product: string;
  /** The offer's or the plan's name. */
  item: string;
  /** Reais with two decimals. */
  amount: string;
  method: PaymentMethod | null;
  installments: number | null;
  orderCode: string | null;
  pix: { copyPaste: string; expiresAt: string } | null;
  boleto: { digitableLine: string; dueDate: string; url: string } | null;
  plan: { cycle: string } | null;
  subscription: { id: number; currentPeriodEnd: string } | null;
  /** Why a subscription ended (`requested`, `payment_failed`), for the canceled notice. */
  cancelReason: string | null;
  /** Where the buyer can buy again (recovery: the link or the offer's checkout). */
  checkoutPath: string | null;
  /**
   * The order's service invoice (NFS-e) once issued: its number and PDF. `notice`: the receipt sent
   * when the invoice was issued (after the first receipt); absent in messages queued before invoices.
   */
  invoice?: MessageInvoice | null;
}

export interface MessageInvoice {
  number: string | null;
  pdfUrl: string;
  notice: boolean;
}

/** A message planned by the relay, before it is written. */
export interface PlannedMessage {
  companyId: number;
  eventId: string;
  kind: EmailKind;
  recipient: string;
  language: Language;
  orderCode: string | null;
  subscriptionId: number | null;
  data: MessageData;
  sendAt: Date;
}
