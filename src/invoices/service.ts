/**
 * What the panel and the dashboard do with invoices: show an order's, retry one that failed or
 * waited for data (after the seller fixed the settings or the buyer's data), and ask the provider
 * whether an integration's settings can issue ("check settings").
 */
import { findIntegration } from '../integrations/repository.js';
import {
  invoiceProviderOf,
  issuerSettings,
  type SettingsCheck,
} from '../integrations/kinds/invoice/index.js';
import type { OrderInvoicesOf, OrderInvoiceWire } from '../orders/mappers.js';
import { findOrderByCode } from '../orders/repository.js';
import type { AppContext } from '../shared/context.js';
import type { Executor } from '../shared/db/index.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import { UpstreamUnavailableError } from '../shared/http/json-client.js';
import { enqueueInvoice } from './feed.js';
import { toOrderInvoiceWire } from './payload.js';
import { findInvoiceOfOrder, invoicesOfOrders, lockInvoice, updateInvoice } from './repository.js';

/** The invoices of a company's orders, by order code (the panel's orders, the dashboard's order page). */
export function orderInvoicesOf(db: Executor): OrderInvoicesOf {
  return async (companyId, codes) =>
    new Map(
      (await invoicesOfOrders(db, companyId, codes)).map((row) => [row.orderCode, toOrderInvoiceWire(row)]),
    );
}

/**
 * Submits a failed or `needs_data` invoice again, under the same reference (the provider accepts a
 * refused one again; an authorised one is never issued twice). 409 for an invoice in another state.
 */
export async function retryInvoice(
  ctx: Pick<AppContext, 'db' | 'producers' | 'logger'>,
  companyId: number,
  orderCode: string,
): Promise<OrderInvoiceWire> {
  const found = await findInvoiceOfOrder(ctx.db, companyId, orderCode);
  if (!found) {
    // The company's order without an invoice is a state to change (link an invoice integration), not a missing order.
    const order = await findOrderByCode(ctx.db, orderCode);
    if (order?.companyId !== companyId) throw new NotFoundError(`No order ${orderCode} in this company`);
    throw new ConflictError(`Order ${orderCode} has no invoice: no active invoice integration covered it`);
  }
  const retried = await ctx.db.transaction(async (tx) => {
    const invoice = await lockInvoice(tx, found.id);
    if (!invoice) throw new NotFoundError(`Order ${orderCode} has no invoice`);
    if (invoice.status !== 'failed' && invoice.status !== 'needs_data')
      throw new ConflictError(
        `The invoice is ${invoice.status}: only a failed or needs_data invoice is retried`,
      );
    return updateInvoice(tx, invoice.id, {
      status: 'pending',
      message: null,
      submittedAt: null,
      polls: 0,
      round: invoice.round + 1,
    });
  });
  enqueueInvoice(ctx, retried);
  return toOrderInvoiceWire(retried);
}

/** Asks the provider about an invoice integration's settings; its answer in words for the seller. */
export async function checkInvoiceSettings(
  ctx: Pick<AppContext, 'db' | 'config'>,
  companyId: number,
  integrationId: number,
): Promise<SettingsCheck> {
  const integration = await findIntegration(ctx.db, companyId, integrationId);
  if (!integration) throw new NotFoundError(`No integration ${integrationId} in this company`);
  if (integration.type !== 'invoice')
    throw new ConflictError(`Integration ${integrationId} is not an invoice integration`);
  const settings = issuerSettings(ctx.config, integration);
  if (!settings)
    return { ok: false, message: 'The API token did not decrypt (was CREDENTIALS_ENCRYPTION_KEY changed?)' };
  try {
    return await invoiceProviderOf(ctx.config).checkSettings(settings);
  } catch (err) {
    if (!(err instanceof UpstreamUnavailableError)) throw err;
    return { ok: false, message: 'Focus NFe did not answer in time; try again in a moment' };
  }
}
