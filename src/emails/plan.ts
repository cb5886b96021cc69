/**
 * Which messages an event asks for (docs/email.md, "Which messages, when"): read from the event's own
 * `data` (each message carries its own buyer's purchase and nothing else) and from the few facts its
 * event does not carry (the checkout's language, the buyer's consent, whether an order renews a
 * subscription).
 */
import Joi from 'joi';
import { addDays, startOfBrazilDay } from '../shared/brazil-time.js';
import type { Executor } from '../shared/db/index.js';
import type { PaymentMethod } from '../shared/enums/payment-methods.js';
import { DEFAULT_LANGUAGE, type Language } from '../ui/language.js';
import type { EmailKind, MessageData, MessageInvoice, PlannedMessage } from './kinds.js';
import {
  isUnsubscribed,
  orderFacts,
  recoveredRecently,
  subscriptionOrder,
  type ClaimedEvent,
  type OrderFacts,
} from './repository.js';
import type { Seller } from './settings.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** A renewal is announced this long before it is charged. */
export const RENEWAL_NOTICE_BEFORE_MS = 3 * DAY_MS;
/** A boleto's reminder goes out at 09:00 in Brasília the day before it is due. */
const BOLETO_REMINDER_HOUR = 9;
/** One recovery message per address and company in this many days, however many carts it leaves. */
export const RECOVERY_QUIET_DAYS = 7;

/** One address, as a mailbox takes it: no display name, no list, no header-breaking characters. */
const ADDRESS = Joi.string().max(254).email({ tlds: false, multiple: false });

export function validRecipient(value: unknown): string | undefined {
  if (typeof value !== 'string' || /[\s,;<>"]/.test(value)) return undefined;
  return ADDRESS.validate(value).error ? undefined : value;
}

type Json = Record<string, unknown>;
const obj = (value: unknown): Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** An issued invoice of an `invoice.issued` event's `data`, with a PDF a browser opens (http or https). */
function issuedInvoiceOf(data: Json): MessageInvoice | null {
  const invoice = obj(data.invoice);
  const pdfUrl = str(invoice.pdf_url);
  if (invoice.status !== 'issued' || !pdfUrl || !/^https?:\/\//i.test(pdfUrl)) return null;
  return { number: str(invoice.number), pdfUrl, notice: true };
}

/** What a message says, from the `data` of its event (an order event's, or a subscription event's). */
export function messageDataOf(data: Json, order: Json | null): MessageData {
  const sold = obj(data.offer ?? data.plan);
  const plan = data.plan === undefined ? null : obj(data.plan);
  const pix = order ? obj(order.pix) : {};
  const boleto = order ? obj(order.boleto) : {};
  const subscription = obj(data.subscription);
  const link = obj(obj(data.purchase).payment_link);
  const itemCode = str(sold.code);
  const linkId = str(link.code);
  const installments = order?.installments;
  return {
    buyerName: str(obj(data.customer).name),
    product: str(obj(data.product).name) ?? '',
    item: str(sold.name) ?? '',
    amount: str(order?.amount) ?? str(sold.price) ?? '0.00',
    method: (str(order?.payment_method) as PaymentMethod | null) ?? null,
    installments: typeof installments === 'number' ? installments : null,
    orderCode: str(order?.code),
    pix:
      str(pix.copy_paste) && str(pix.expires_at)
        ? { copyPaste: str(pix.copy_paste) ?? '', expiresAt: str(pix.expires_at) ?? '' }
        : null,
    boleto:
      str(boleto.digitable_line) && str(boleto.due_date) && str(boleto.url)
        ? {
            digitableLine: str(boleto.digitable_line) ?? '',
            dueDate: str(boleto.due_date) ?? '',
            url: str(boleto.url) ?? '',
          }
        : null,
    plan: plan ? { cycle: str(plan.billing_cycle) ?? '' } : null,
    subscription:
      typeof subscription.id === 'number' && str(subscription.current_period_end)
        ? { id: subscription.id, currentPeriodEnd: str(subscription.current_period_end) ?? '' }
        : null,
    cancelReason: str(subscription.cancel_reason),
    checkoutPath: itemCode
      ? linkId
        ? `${encodeURIComponent(itemCode)}?plink=${encodeURIComponent(linkId)}`
        : encodeURIComponent(itemCode)
      : null,
    invoice: issuedInvoiceOf(data),
  };
}

/** When an unpaid Pix or boleto order's reminder is due; undefined when it gets none. */
export function reminderAt(data: MessageData, createdAt: Date): Date | undefined {
  if (data.boleto) {
    const dayBefore = addDays(data.boleto.dueDate, -1);
    return new Date(startOfBrazilDay(dayBefore).getTime() + BOLETO_REMINDER_HOUR * HOUR_MS);
  }
  if (data.pix) {
    const expiresAt = new Date(data.pix.expiresAt);
    // Only a Pix that lives longer than a day: a shorter one is still fresh from the instructions.
    if (expiresAt.getTime() - createdAt.getTime() <= DAY_MS) return undefined;
    return new Date(expiresAt.getTime() - DAY_MS);
  }
  return undefined;
}

/** The relay's view of one company while it plans: its settings, read once per relay. */
export type SellerLookup = (companyId: number) => Promise<Seller | undefined>;

/** The messages `event` asks for, each to its own buyer. */
export async function planMessages(
  db: Executor,
  event: ClaimedEvent,
  sellerOf: SellerLookup,
  now: Date,
): Promise<PlannedMessage[]> {
  const data = obj(event.payload.data);
  const recipient = validRecipient(obj(data.customer).email);
  const seller = await sellerOf(event.companyId);
  if (!recipient || !seller) return [];
  const on = (kind: EmailKind): boolean => seller.messages[kind];
  const planned: PlannedMessage[] = [];
  const add = (
    kind: EmailKind,
    facts: { language: Language; orderCode: string | null; subscriptionId: number | null; data: MessageData },
    sendAt = now,
  ): void => {
    planned.push({ companyId: event.companyId, eventId: event.id, kind, recipient, sendAt, ...facts });
  };

  // An issued invoice's event carries its order's `data`: the receipt again, with the invoice's PDF.
  if (event.type.startsWith('order.') || event.type === 'invoice.issued') {
    const order = obj(data.order);
    const code = str(order.code);
    const facts = code ? await orderFacts(db, code) : undefined;
    if (!code || !facts) return [];
    const language = await languageOf(db, facts);
    const message = {
      language,
      orderCode: code,
      subscriptionId: facts.subscriptionId,
      data: messageDataOf(data, order),
    };
    switch (event.type) {
      case 'order.created': {
        if (!message.data.pix && !message.data.boleto) break;
        if (on('instructions')) add('instructions', message);
        // Timed: planned whatever the setting says now, and checked again when due.
        const at = reminderAt(message.data, event.createdAt);
        if (at && at.getTime() > now.getTime()) add('reminder', message, at);
        break;
      }
      case 'order.paid':
        // A renewal's receipt goes with its `subscription.renewed`, which follows.
        if (on('receipt') && !facts.renewal) add('receipt', message);
        break;
      case 'invoice.issued':
        // The receipt is rarely held until the prefecture authorises: the PDF follows it (docs/api.md).
        if (on('receipt') && message.data.invoice) add('receipt', message);
        break;
      case 'order.refunded':
        if (on('refund')) add('refund', message);
        break;
      case 'order.abandoned':
        if (
          on('recovery') &&
          facts.recoveryConsent &&
          message.data.checkoutPath !== null &&
          !(await isUnsubscribed(db, event.companyId, recipient)) &&
          !(await recoveredRecently(db, event.companyId, recipient, RECOVERY_QUIET_DAYS))
        )
          add('recovery', message);
        break;
    }
    return planned;
  }

  const subscription = obj(data.subscription);
  const subscriptionId = typeof subscription.id === 'number' ? subscription.id : null;
  if (subscriptionId === null) return [];
  const first = await subscriptionOrder(db, subscriptionId, { first: true });
  const language = first?.language ?? DEFAULT_LANGUAGE;
  const about = (order: Json | null, orderCode: string | null) => ({
    language,
    orderCode,
    subscriptionId,
    data: messageDataOf(data, order),
  });
  const notice = (): void => {
    const periodEnd = Date.parse(str(subscription.current_period_end) ?? '');
    const at = new Date(periodEnd - RENEWAL_NOTICE_BEFORE_MS);
    if (Number.isFinite(periodEnd) && at.getTime() > now.getTime())
      add('renewal_notice', about(null, first?.code ?? null), at);
  };
  switch (event.type) {
    case 'subscription.created':
      notice();
      break;
    case 'subscription.renewed': {
      const paid = await subscriptionOrder(db, subscriptionId, { latest: 'paid' });
      if (on('receipt') && paid) add('receipt', about(orderJson(paid), paid.code));
      notice();
      break;
    }
    case 'subscription.past_due': {
      const failed = await subscriptionOrder(db, subscriptionId, { latest: 'failed' });
      if (on('renewal_failed'))
        add('renewal_failed', about(failed ? orderJson(failed) : null, failed?.code ?? null));
      break;
    }
    case 'subscription.canceled':
      // A chargeback is the buyer's dispute with the card issuer: nothing is mailed about it.
      if (on('canceled') && subscription.cancel_reason !== 'chargeback')
        add('canceled', about(null, first?.code ?? null));
      break;
  }
  return planned;
}

/** An order row in the `data.order` shape of events, for the messages a subscription event sends. */
function orderJson(order: {
  code: string;
  amount: string;
  paymentMethod: string | null;
  installments: number | null;
}): Json {
  return {
    code: order.code,
    amount: order.amount,
    payment_method: order.paymentMethod,
    installments: order.installments,
  };
}

/** The language the buyer checked out in; a renewal's, the subscription's first order's. */
async function languageOf(db: Executor, facts: OrderFacts): Promise<Language> {
  if (facts.language) return facts.language;
  if (facts.subscriptionId === null) return DEFAULT_LANGUAGE;
  return (await subscriptionOrder(db, facts.subscriptionId, { first: true }))?.language ?? DEFAULT_LANGUAGE;
}
