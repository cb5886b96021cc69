import type { AppContext } from '../shared/context.js';
import { wakeAndEnqueue } from './lanes.js';
import { makeDueNow, pendingDeliveryIntegration } from './repository/attempts.js';

/**
 * One more attempt of a delivery, now (a retry started from Bull Board): a failed or skipped
 * delivery is reopened, a pending one is brought forward, and its lane sends it next, within the
 * integration's limits. A delivery that succeeded meanwhile is left alone.
 */
export async function requestAnotherAttempt(ctx: AppContext, deliveryId: number): Promise<string> {
  const due = await makeDueNow(ctx.db, deliveryId);
  if (!due) return 'stale';
  await wakeAndEnqueue(ctx, [due.integrationId]);
  return 'requeued';
}

/** Wakes the lane of a delivery still pending (its own time decides when it goes). */
export async function wakeDeliveryLane(ctx: AppContext, deliveryId: number): Promise<string> {
  const integrationId = await pendingDeliveryIntegration(ctx.db, deliveryId);
  if (integrationId === undefined) return 'stale';
  await wakeAndEnqueue(ctx, [integrationId]);
  return 'woken';
}
