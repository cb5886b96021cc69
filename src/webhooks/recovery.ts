import { jobIds } from '../../queues/index.js';
import type { AppContext } from '../shared/context.js';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import { findOwnIntegration, insertRecovery, recoverPage } from './repository.js';
import { ensureJob } from './sweep.js';

/** How far back a bulk recovery may reach (decisions, "Bulk recovery"). */
export const RECOVERY_WINDOW_DAYS = 14;
const RECOVERY_PAGE = 500;

/**
 * Bulk recovery (decisions, "Webhook operations"): every failed or skipped delivery of the
 * integration created since `since` gets one more attempt. The answer counts them at the moment of
 * the request; a worker job reopens them page by page in the background.
 */
export async function requestRecovery(
  ctx: AppContext,
  companyId: number,
  integrationId: number,
  since: string,
): Promise<{ recovered: number }> {
  const integration = await findOwnIntegration(ctx.db, companyId, integrationId);
  if (!integration) throw new NotFoundError(`No integration ${integrationId} in this company`);
  const from = new Date(since);
  const earliest = Date.now() - RECOVERY_WINDOW_DAYS * 86_400_000;
  if (from.getTime() < earliest || from.getTime() > Date.now()) {
    throw ValidationError.field('since', `must be in the last ${RECOVERY_WINDOW_DAYS} days`);
  }
  if (!integration.isActive) {
    throw new ConflictError(
      'The integration is inactive; re-enable it (PATCH is_active true) before recovering its deliveries',
    );
  }
  const recovery = await insertRecovery(ctx.db, integrationId, from);
  if (recovery.requested > 0) {
    // If Redis is down this add fails and the request with it (503): nothing was reopened yet, and
    // the recovery row, never started, only records the request.
    await ctx.producers.add('deliveryRecovery', jobIds.deliveryRecovery(recovery.id), {
      recoveryId: recovery.id,
    });
  }
  return { recovered: recovery.requested };
}

export interface RecoveryRunOptions {
  pageSize?: number;
  /** Stop after this many pages, as a worker killed midway would (tests of resumption). */
  maxPages?: number;
  onPage?: (recovered: number) => Promise<void>;
}

/**
 * The recovery job: reopens a page, then enqueues its next attempts, until none are left. A
 * reopened delivery whose job is lost (crash between the two) is pending and overdue, so the outbox
 * sweep enqueues it.
 */
export async function runRecovery(
  ctx: AppContext,
  recoveryId: number,
  options: RecoveryRunOptions = {},
): Promise<{ recovered: number }> {
  let recovered = 0;
  for (let pages = 0; options.maxPages === undefined || pages < options.maxPages; pages += 1) {
    const page = await recoverPage(ctx.db, recoveryId, options.pageSize ?? RECOVERY_PAGE);
    for (const { deliveryId, attempts } of page.reopened) {
      const attempt = attempts + 1;
      await ensureJob(ctx.producers, 'deliveries', jobIds.deliveries(deliveryId, attempt), {
        deliveryId,
        attempt,
      });
    }
    recovered += page.reopened.length;
    await options.onPage?.(recovered);
    if (page.finished) break;
  }
  return { recovered };
}
