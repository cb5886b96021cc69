/**
 * A notice of the provider's webhook (docs/invoices.md, "The provider's webhook"): authenticated by
 * the secret the integration's hook was registered with (its SHA-256 compared in constant time; an
 * integration without a hook reads as a wrong secret; a path naming no integration is a 404), read by the provider's adapter, and applied to the
 * integration's invoice of that reference exactly as a poll applies the same answer.
 */
import { timingSafeEqual } from 'node:crypto';
import { invoiceProviderOf } from '../integrations/kinds/invoice/index.js';
import { publishAfterCommit } from '../events/publish.js';
import type { AppContext } from '../shared/context.js';
import { AuthenticationError, NotFoundError, ValidationError } from '../shared/errors.js';
import { secretDigest } from './hook-registration.js';
import { findInvoiceHook } from './hooks-repository.js';
import { applyNotice } from './issue.js';
import { findInvoiceOfOrder } from './repository.js';

const INTEGRATION_ID = /^[1-9]\d{0,8}$/;
const ORDER_CODE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Compared with when there is no hook: the same work, whatever the answer. */
const NO_HOOK = Buffer.alloc(32);

export interface NoticeReceipt {
  received: true;
  /** Whether the notice changed the invoice (false: it was known already, or is not an answer yet). */
  applied: boolean;
}

export async function receiveNotice(
  ctx: Pick<AppContext, 'db' | 'config' | 'logger' | 'producers'>,
  input: { integration: string; authorization: string | undefined; rawBody: Buffer },
): Promise<NoticeReceipt> {
  // A path that names no integration is no notice address at all.
  if (!INTEGRATION_ID.test(input.integration)) throw new NotFoundError('No notice address here');
  const hook = await findInvoiceHook(ctx.db, Number(input.integration));
  const matches = timingSafeEqual(
    secretDigest(input.authorization ?? ''),
    hook?.authorizationHash ?? NO_HOOK,
  );
  if (!hook || !matches || !input.authorization)
    throw new AuthenticationError(
      'The notice does not carry the authorization this hook was registered with',
    );
  let body: unknown;
  try {
    body = JSON.parse(input.rawBody.toString('utf8'));
  } catch {
    throw new ValidationError('The notice is not JSON');
  }
  const notice = invoiceProviderOf(ctx.config).readNotice(body);
  if (!notice) throw new ValidationError('The notice names no reference or no known NFS-e status');
  const invoice = ORDER_CODE.test(notice.ref)
    ? await findInvoiceOfOrder(ctx.db, hook.companyId, notice.ref)
    : undefined;
  if (invoice?.integrationId !== hook.integrationId)
    throw new NotFoundError('No invoice of this integration has that reference');
  const step = await applyNotice(ctx, invoice, notice.answer);
  publishAfterCommit(ctx, step.eventIds);
  ctx.logger.info(
    { invoiceId: invoice.id, orderCode: invoice.orderCode, outcome: step.outcome },
    "invoice provider's notice received",
  );
  return { received: true, applied: step.eventIds.length > 0 };
}
