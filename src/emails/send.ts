/**
 * Sending one message (the `emails` job): recorded before the SMTP hand-off (`sending`, the attempt
 * counted) and after it (`sent` with the server's answer, `bounced`, or back to `queued` for a
 * retry). A message found `sending` was handed off by an attempt whose outcome was never recorded
 * (a worker killed mid-send): the one case it is sent again, possibly twice, and that is logged.
 */
import type { AppContext } from '../shared/context.js';
import { findOrderByCode } from '../orders/repository.js';
import { findSubscription } from '../orders/subscription-repository.js';
import { findItemById } from '../catalog/repository.js';
import type { EmailKind, MessageData } from './kinds.js';
import {
  databaseNow,
  issuedInvoiceOf,
  isUnsubscribed,
  lockMessage,
  nextFreeSlot,
  messageData,
  receiptCarriedInvoice,
  updateMessage,
  type MessageRow,
} from './repository.js';
import { sellerOf, type Seller } from './settings.js';
import { signInOutgoing, signInStillDue } from './sign-in.js';
import { oneLine, renderMessage, unsubscribeUrl } from './templates.js';
import { classifySmtpError, type Mailer, type Outgoing } from './transport.js';
import type { Executor } from '../shared/db/index.js';

export type SendOutcome =
  | { kind: 'sent' | 'bounced' | 'skipped' | 'failed' | 'done' | 'missing' }
  /** Not now: its time has not come (by PostgreSQL's clock), or the company's hourly limit is reached. */
  | { kind: 'later'; at: Date; why: 'not_due' | 'rate_limited' };

/** A retryable failure: the job throws it, and BullMQ tries again after its backoff. */
export class SendFailedError extends Error {
  override name = 'SendFailedError';
}

const MAX_ERROR_TEXT = 500;

/**
 * Whether a message is still worth sending now, and what it says now: a reminder only for an order
 * still pending, a renewal notice only for a subscription that will renew at the end it announced
 * (at the plan's price then), the pay-now message only while the renewal is unpaid, a recovery
 * message only to an address that did not unsubscribe and for an order still unpaid.
 */
async function stillDue(
  db: Executor,
  message: MessageRow,
  data: MessageData,
): Promise<MessageData | undefined> {
  switch (message.kind) {
    case 'reminder': {
      const order = message.orderCode ? await findOrderByCode(db, message.orderCode) : undefined;
      return order?.status === 'pending' ? data : undefined;
    }
    case 'recovery': {
      const order = message.orderCode ? await findOrderByCode(db, message.orderCode) : undefined;
      if (order?.status !== 'abandoned') return undefined;
      return (await isUnsubscribed(db, message.companyId, message.recipient)) ? undefined : data;
    }
    case 'renewal_notice':
    case 'renewal_failed': {
      const subscription =
        message.subscriptionId === null ? undefined : await findSubscription(db, message.subscriptionId);
      if (!subscription) return undefined;
      if (message.kind === 'renewal_failed') return subscription.status === 'past_due' ? data : undefined;
      const announced = data.subscription ? Date.parse(data.subscription.currentPeriodEnd) : Number.NaN;
      if (
        subscription.status !== 'active' ||
        subscription.cancelAtPeriodEnd ||
        subscription.currentPeriodEnd.getTime() !== announced
      )
        return undefined;
      const plan = await findItemById(db, 'plan', subscription.planId);
      const first = message.orderCode ? await findOrderByCode(db, message.orderCode) : undefined;
      return { ...data, amount: plan?.price ?? data.amount, method: first?.paymentMethod ?? data.method };
    }
    case 'receipt':
      return receiptNow(db, message, data);
    default:
      return data;
  }
}

/**
 * A receipt carries the order's service invoice once it is issued: the receipt itself when the
 * invoice was issued before it went out; else the receipt sent again when it is (`notice`), unless
 * the invoice was canceled since or another receipt of the order carried it already.
 */
async function receiptNow(
  db: Executor,
  message: MessageRow,
  data: MessageData,
): Promise<MessageData | undefined> {
  if (!message.orderCode) return data;
  const invoice = await issuedInvoiceOf(db, message.companyId, message.orderCode);
  if (!data.invoice?.notice) return invoice ? { ...data, invoice: { ...invoice, notice: false } } : data;
  if (!invoice || (await receiptCarriedInvoice(db, message.companyId, message.orderCode, message.id)))
    return undefined;
  return { ...data, invoice: { ...invoice, notice: true } };
}

type Reserved =
  | { kind: 'go'; message: MessageRow; build: () => Promise<Outgoing>; unknownBefore: boolean }
  | Exclude<SendOutcome, { kind: 'sent' | 'bounced' | 'failed' }>;

/** Step 1, in one transaction under the message's row lock: decide, and record the hand-off to come. */
async function reserve(ctx: AppContext, messageId: number): Promise<Reserved> {
  return ctx.db.transaction(async (tx): Promise<Reserved> => {
    const message = await lockMessage(tx, messageId);
    if (!message) return { kind: 'missing' };
    if (message.state !== 'queued' && message.state !== 'sending') return { kind: 'done' };
    const now = await databaseNow(tx);
    if (message.sendAt.getTime() > now.getTime())
      return { kind: 'later', at: message.sendAt, why: 'not_due' };
    // A sign-in link: no seller's setting or hourly limit (the buyer's page limits its requests);
    // worth sending only while the link is valid.
    const { kind } = message;
    if (kind === 'sign_in') {
      if (!signInStillDue(message.data, now)) {
        await updateMessage(tx, message.id, { state: 'skipped', data: {} });
        return { kind: 'skipped' };
      }
      await updateMessage(tx, message.id, { state: 'sending', attempt: true });
      const build = () => Promise.resolve(signInOutgoing(ctx, message));
      return { kind: 'go', message, build, unknownBefore: message.state === 'sending' };
    }
    const seller = await sellerOf(tx, message.companyId);
    const data = seller?.messages[kind] ? await stillDue(tx, message, messageData(message)) : undefined;
    if (!seller || !data) {
      await updateMessage(tx, message.id, { state: 'skipped' });
      return { kind: 'skipped' };
    }
    const slot = await nextFreeSlot(tx, message.companyId, message.id, ctx.config.email.perCompanyPerHour);
    if (slot) {
      ctx.logger.warn(
        { messageId, companyId: message.companyId, until: slot.toISOString() },
        'e-mail held back: its company reached EMAIL_RATE_LIMIT_PER_HOUR',
      );
      return { kind: 'later', at: slot, why: 'rate_limited' };
    }
    // A receipt records what it says now (whether it carries the invoice: the other receipt reads it).
    await updateMessage(tx, message.id, {
      state: 'sending',
      attempt: true,
      ...(kind === 'receipt' ? { data } : {}),
    });
    const build = () => outgoing(ctx, { ...message, kind }, data, seller);
    return { kind: 'go', message, build, unknownBefore: message.state === 'sending' };
  });
}

/** The message as it leaves: rendered, addressed to its one recipient, headers one line each. */
async function outgoing(
  ctx: AppContext,
  message: MessageRow & { kind: EmailKind },
  data: MessageData,
  seller: Seller,
): Promise<Outgoing> {
  const input = {
    kind: message.kind,
    language: message.language,
    data,
    seller: { name: seller.senderName, cnpj: seller.cnpj },
    checkoutUrl: ctx.config.urls.checkout,
    token: message.token,
  };
  const rendered = await renderMessage(input);
  const headers: Record<string, string> = { 'Auto-Submitted': 'auto-generated' };
  if (message.kind === 'recovery') {
    // RFC 2369 and RFC 8058: a mailto and an https address, the latter one POST away from done.
    const mailto = `mailto:${ctx.config.email.from}?subject=${encodeURIComponent(`unsubscribe ${message.token}`)}`;
    headers['List-Unsubscribe'] = `<${mailto}>, <${unsubscribeUrl(input)}>`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  }
  return {
    messageId: message.messageId,
    from: { name: oneLine(seller.senderName), address: ctx.config.email.from },
    to: message.recipient,
    replyTo: seller.replyTo,
    subject: rendered.subject,
    text: rendered.text,
    html: rendered.html,
    attachments: rendered.attachments,
    headers,
  };
}

/**
 * Sends one message if it is due. `final` says this is the job's last attempt: a failure then is
 * recorded as `failed` rather than left for a retry.
 */
export async function sendEmail(
  ctx: AppContext,
  mailer: Mailer,
  messageId: number,
  { final }: { final: boolean },
): Promise<SendOutcome> {
  const reserved = await reserve(ctx, messageId);
  if (reserved.kind !== 'go') return reserved;
  const { message } = reserved;
  // A sign-in message forgets its link once it is out of the queue's hands, whatever became of it.
  const forget = message.kind === 'sign_in' ? { data: {} } : {};
  const log = { messageId, kind: message.kind, companyId: message.companyId };
  if (reserved.unknownBefore)
    ctx.logger.warn(
      { ...log, attempts: message.attempts },
      'e-mail sent again after an attempt whose outcome was not recorded: the buyer may receive it twice',
    );
  let built: Outgoing;
  try {
    built = await reserved.build();
  } catch (err) {
    // A message that cannot be rendered never will be: recorded failed, not retried.
    await ctx.db.transaction((tx) =>
      updateMessage(tx, message.id, { state: 'failed', lastError: 'could not be rendered', ...forget }),
    );
    ctx.logger.error({ ...log, err }, 'e-mail could not be rendered');
    return { kind: 'failed' };
  }
  try {
    const response = await mailer.send(built);
    await ctx.db.transaction((tx) =>
      updateMessage(tx, message.id, {
        state: 'sent',
        sentAt: true,
        smtpResponse: response.slice(0, MAX_ERROR_TEXT),
        lastError: null,
        ...forget,
      }),
    );
    ctx.logger.info(log, 'e-mail sent');
    return { kind: 'sent' };
  } catch (err) {
    const failure = classifySmtpError(err);
    const lastError = (err instanceof Error ? err.message : String(err)).slice(0, MAX_ERROR_TEXT);
    if (failure.kind === 'bounced') {
      await ctx.db.transaction((tx) =>
        updateMessage(tx, message.id, { state: 'bounced', lastError, ...forget }),
      );
      ctx.logger.warn(
        { ...log, smtp: failure.detail },
        'e-mail bounced: the SMTP server refused it for good',
      );
      return { kind: 'bounced' };
    }
    const state = final ? 'failed' : 'queued';
    await ctx.db.transaction((tx) =>
      updateMessage(tx, message.id, { state, lastError, ...(final ? forget : {}) }),
    );
    if (failure.unknown)
      ctx.logger.warn(
        { ...log, smtp: failure.detail },
        'the SMTP server may have taken the e-mail before the connection was lost: its retry may deliver it twice',
      );
    ctx.logger.warn(
      { ...log, smtp: failure.detail, final },
      final ? 'e-mail failed for good' : 'e-mail attempt failed',
    );
    if (final) return { kind: 'failed' };
    throw new SendFailedError(`e-mail ${message.id}: ${failure.detail}`);
  }
}
