import type { SimulateResult } from '../../queues/index.js';
import type { AppContext } from '../shared/context.js';
import type { Executor } from '../shared/db/index.js';
import { relayEvent } from '../webhooks/relay.js';
import { firstAttemptsOf } from '../webhooks/repository.js';

/**
 * The simulate job: fan the simulated event out and make every first attempt now, in this job, so
 * the waiting request can report them. Failed deliveries keep retrying in the background.
 */
export async function dispatchSimulation(ctx: AppContext, eventId: string): Promise<SimulateResult> {
  await relayEvent(ctx, eventId);
  return simulationReport(ctx.db, eventId);
}

/** The `simulation.webhooks` array: one entry per delivery of the event, with its first outcome. */
export async function simulationReport(db: Executor, eventId: string): Promise<SimulateResult> {
  const attempts = await firstAttemptsOf(db, eventId);
  return {
    webhooks: attempts.map((a) => ({
      integration_id: a.integrationId,
      destination: a.destination ?? '',
      success: a.status === 'succeeded',
      status: a.statusCode ?? 0,
    })),
  };
}
