import { jobIds } from '../../queues/index.js';
import type { AppContext } from '../shared/context.js';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import { wakeAndEnqueue } from './lanes.js';
import { findOwnIntegration } from './repository/delivery-log.js';
import { insertRecovery, recoverPage } from './repository/recovery.js';

/** How far back a bulk recovery may reach. */
export const RECOVERY_WINDOW_DAYS = 14;
const RECOVERY_PAGE = 500;

/**
 * Bulk recovery: every failed or skipped delivery of the
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
 * The recovery job: reopens a page, then wakes the integration's lane, which sends them oldest first
 * within the integration's limits, until none are left. A lane woken too late (a crash between the
 * two) finds the reopened deliveries overdue in the sweep.
 */
export async function runRecovery(
  ctx: AppContext,
  recoveryId: number,
  options: RecoveryRunOptions = {},
): Promise<{ recovered: number }> {
  let recovered = 0;
  for (let pages = 0; options.maxPages === undefined || pages < options.maxPages; pages += 1) {
    const page = await recoverPage(ctx.db, recoveryId, options.pageSize ?? RECOVERY_PAGE);
    if (page.reopened.length > 0) await wakeAndEnqueue(ctx, [page.integrationId]);
    recovered += page.reopened.length;
    await options.onPage?.(recovered);
    if (page.finished) break;
  }
  return { recovered };
}
