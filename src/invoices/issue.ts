/**
 * Moving one order's service invoice forward (the `invoices` job; docs/invoices.md). Each run reads
 * the invoice, makes at most one kind of provider call outside any transaction, and records what
 * came of it under the invoice's row lock, with its event. The order code is the provider's
 * reference, so a run repeated after a lost answer finds the invoice already submitted instead of
 * issuing a second one. A run of an older `round` (a retry or a cancel started a newer job) stops.
 */
import { isInvoiceEventKind, type InvoiceEventKind } from '../events/kinds.js';
import { findIntegration, type IntegrationRow } from '../integrations/repository.js';
import {
  describe,
  invoiceProviderOf,
  issuerSettings,
  ProviderRefusedError,
  type InvoiceAnswer,
  type InvoiceProvider,
  type IssuerSettings,
} from '../integrations/kinds/invoice/index.js';
import type { AppContext } from '../shared/context.js';
import { recordInvoiceEvent } from './events.js';
import { ensureHook } from './hook-registration.js';
import {
  invoicedOrder,
  lockInvoice,
  updateInvoice,
  type InvoiceChanges,
  type InvoiceRow,
} from './repository.js';

/** What a run did: `later` asks for another run at that time (a due date, the next read). */
export interface InvoiceStep {
  outcome: string;
  later?: Date;
  eventIds: string[];
}

/** The first read 1 s after the submission, then twice as long each time, at most 10 minutes apart. */
export const pollDelayMs = (polls: number): number => Math.min(1000 * 2 ** Math.min(polls, 20), 600_000);

const MAX_MESSAGE = 1000;
const clip = (message: string): string => message.slice(0, MAX_MESSAGE);

type Deps = Pick<AppContext, 'db' | 'config' | 'logger'>;

/**
 * Records `changes` (and the event of `event`, if any) under the row lock, unless a newer round took
 * the invoice over, it is canceled already, or its status moved since it was read (the provider's
 * webhook and a poll answering the same thing: the first records it, the other changes nothing).
 */
async function commit(
  ctx: Deps,
  invoice: InvoiceRow,
  changes: InvoiceChanges,
  event?: InvoiceEventKind,
  later?: Date,
): Promise<InvoiceStep> {
  return ctx.db.transaction(async (tx) => {
    const current = await lockInvoice(tx, invoice.id);
    if (
      !current ||
      current.round !== invoice.round ||
      current.status === 'canceled' ||
      current.status !== invoice.status
    )
      return { outcome: 'superseded', eventIds: [] };
    const updated = await updateInvoice(tx, invoice.id, changes);
    const eventIds = event && isInvoiceEventKind(event) ? [await recordInvoiceEvent(tx, event, updated)] : [];
    return { outcome: updated.status, eventIds, ...(later ? { later } : {}) };
  });
}

const authorized = (answer: Extract<InvoiceAnswer, { state: 'authorized' }>): InvoiceChanges => ({
  status: 'issued',
  number: answer.number,
  pdfUrl: answer.pdfUrl,
  xmlUrl: answer.xmlUrl,
  message: null,
});

/** What the provider's answer about a submitted invoice means for it. */
async function answered(ctx: Deps, invoice: InvoiceRow, answer: InvoiceAnswer): Promise<InvoiceStep> {
  switch (answer.state) {
    case 'processing': {
      const polls = invoice.polls + 1;
      return commit(ctx, invoice, { polls }, undefined, new Date(Date.now() + pollDelayMs(invoice.polls)));
    }
    case 'authorized':
      return commit(ctx, invoice, authorized(answer), 'invoice.issued');
    case 'refused':
      return commit(ctx, invoice, { status: 'failed', message: clip(answer.message) }, 'invoice.failed');
    case 'canceled':
      return commit(ctx, invoice, { status: 'canceled' }, 'invoice.canceled');
    case 'not_found':
      // Accepted once, unknown now: submitted again under the same reference, at once.
      return commit(ctx, invoice, { submittedAt: null, polls: 0 }, undefined, new Date());
  }
}

/** Submits the invoice; the buyer data the municipality needs must be there first. */
async function submit(
  ctx: Deps,
  provider: InvoiceProvider,
  settings: IssuerSettings,
  invoice: InvoiceRow,
  integration: IntegrationRow,
): Promise<InvoiceStep> {
  const { config } = integration;
  const order = await invoicedOrder(ctx.db, invoice.orderId);
  if (!order)
    return commit(ctx, invoice, { status: 'failed', message: 'the order is missing' }, 'invoice.failed');
  const document = order.customer?.document ?? null;
  if (!document)
    return commit(ctx, invoice, {
      status: 'needs_data',
      message: "customer.document: the buyer's CPF or CNPJ is missing",
    });
  // The provider's webhook, when the integration asked for it, before the first answer can come.
  await ensureHook(ctx, provider, settings, integration);
  let answer: InvoiceAnswer;
  try {
    answer = await provider.submit(settings, invoice.orderCode, {
      issuedAt: order.paidAt ?? new Date(),
      buyer: { name: order.customer?.name ?? 'Consumidor', email: order.customer?.email ?? null, document },
      amount: order.amount,
      description: describe(config, order.productName, order.code),
    });
  } catch (err) {
    if (!(err instanceof ProviderRefusedError)) throw err;
    if (err.field)
      return commit(ctx, invoice, { status: 'needs_data', message: clip(`${err.field}: ${err.message}`) });
    return commit(ctx, invoice, { status: 'failed', message: clip(err.message) }, 'invoice.failed');
  }
  if (answer.state === 'processing')
    return commit(
      ctx,
      invoice,
      { submittedAt: new Date(), polls: 0 },
      undefined,
      new Date(Date.now() + pollDelayMs(0)),
    );
  return answered(ctx, invoice, answer);
}

/** A refund or chargeback: the authorised invoice is canceled at the provider; one never issued, here. */
async function cancel(
  ctx: Deps,
  provider: InvoiceProvider,
  settings: IssuerSettings | undefined,
  invoice: InvoiceRow,
  reason: string,
): Promise<InvoiceStep> {
  let issued = invoice.status === 'issued';
  let issuedChanges: InvoiceChanges = {};
  if (!issued && invoice.status === 'pending' && invoice.submittedAt && settings) {
    // Submitted: the provider may be authorising it right now.
    const answer = await provider.read(settings, invoice.orderCode);
    if (answer.state === 'processing')
      return commit(
        ctx,
        invoice,
        { polls: invoice.polls + 1 },
        undefined,
        new Date(Date.now() + pollDelayMs(invoice.polls)),
      );
    if (answer.state === 'authorized') {
      issued = true;
      issuedChanges = authorized(answer);
    }
  }
  if (!issued)
    return commit(
      ctx,
      invoice,
      { status: 'canceled', message: 'the order was refunded before the invoice was issued' },
      'invoice.canceled',
    );
  if (!settings)
    return commit(ctx, invoice, {
      ...issuedChanges,
      message: 'could not cancel: the API token did not decrypt',
    });
  const answer = await provider.cancel(settings, invoice.orderCode, reason);
  if (answer.state === 'canceled')
    return commit(ctx, invoice, { ...issuedChanges, status: 'canceled', message: null }, 'invoice.canceled');
  const message = answer.state === 'refused' ? answer.message : answer.state;
  return commit(ctx, invoice, {
    ...issuedChanges,
    message: clip(`the provider refused to cancel it: ${message}`),
  });
}

/** One run of an invoice's job. Throws when the provider did not answer: the job tries again. */
export async function advanceInvoice(
  ctx: Deps,
  invoiceId: number,
  round: number,
  provider: InvoiceProvider = invoiceProviderOf(ctx.config),
): Promise<InvoiceStep> {
  const invoice = await ctx.db.transaction((tx) => lockInvoice(tx, invoiceId));
  if (!invoice) return { outcome: 'missing', eventIds: [] };
  if (invoice.round !== round) return { outcome: 'superseded', eventIds: [] };
  if (invoice.status === 'canceled') return { outcome: 'canceled', eventIds: [] };
  const integration =
    invoice.integrationId === null
      ? undefined
      : await findIntegration(ctx.db, invoice.companyId, invoice.integrationId);
  const settings = integration ? issuerSettings(ctx.config, integration) : undefined;
  if (invoice.cancelReason) return cancel(ctx, provider, settings, invoice, invoice.cancelReason);
  if (invoice.status !== 'pending') return { outcome: invoice.status, eventIds: [] };
  if (invoice.dueAt.getTime() > Date.now()) return { outcome: 'waiting', later: invoice.dueAt, eventIds: [] };
  if (!integration || !integration.isActive || integration.type !== 'invoice')
    return commit(
      ctx,
      invoice,
      { status: 'failed', message: 'the invoice integration was removed or deactivated' },
      'invoice.failed',
    );
  if (!settings)
    return commit(
      ctx,
      invoice,
      {
        status: 'failed',
        message: 'the API token did not decrypt (was CREDENTIALS_ENCRYPTION_KEY changed?)',
      },
      'invoice.failed',
    );
  if (!invoice.submittedAt) return submit(ctx, provider, settings, invoice, integration);
  let answer: InvoiceAnswer;
  try {
    answer = await provider.read(settings, invoice.orderCode);
  } catch (err) {
    // The provider refuses to say (a token revoked since): shown, and retried after a settings fix.
    if (!(err instanceof ProviderRefusedError)) throw err;
    return commit(ctx, invoice, { status: 'failed', message: clip(err.message) }, 'invoice.failed');
  }
  return answered(ctx, invoice, answer);
}

/**
 * The provider's webhook told where a submitted invoice stands: recorded exactly as a poll would
 * record the same answer, so a notice sent twice, or a notice and a poll, change it once. An invoice
 * not waiting for that answer (issued already, canceling, retried since) is left to its job.
 */
export async function applyNotice(
  ctx: Deps,
  invoice: InvoiceRow,
  answer: InvoiceAnswer,
): Promise<InvoiceStep> {
  if (invoice.status !== 'pending' || !invoice.submittedAt || invoice.cancelReason)
    return { outcome: invoice.status, eventIds: [] };
  if (answer.state !== 'authorized' && answer.state !== 'refused')
    return { outcome: 'pending', eventIds: [] };
  return answered(ctx, invoice, answer);
}
