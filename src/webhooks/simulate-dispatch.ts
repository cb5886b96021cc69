import { sql } from 'drizzle-orm';
import type { Producers, SimulateResult } from '../../queues/index.js';
import type { AppContext } from '../shared/context.js';
import type { Executor } from '../shared/db/index.js';
import { relayEvent } from '../events/relay.js';

/**
 * The simulate job: fan the simulated event out and make every first attempt now, in this job, so
 * the waiting request can report them. Failed deliveries keep retrying in the background.
 */
export async function dispatchSimulation(ctx: AppContext, producers: Producers, eventId: string): Promise<SimulateResult> {
  await relayEvent(ctx, producers, eventId);
  return simulationReport(ctx.db, eventId);
}

/** The `simulation.webhooks` array: one entry per delivery of the event, with its first outcome. */
export async function simulationReport(db: Executor, eventId: string): Promise<SimulateResult> {
  const rows = await db.execute<{
    integration_id: number;
    destination: string | null;
    status: string;
    status_code: number | null;
  }>(sql`
    SELECT d.integration_id, i.config->>'url' AS destination, d.status,
           (SELECT a.status_code FROM delivery_attempts a WHERE a.delivery_id = d.id ORDER BY a.attempt LIMIT 1) AS status_code
      FROM deliveries d JOIN integrations i ON i.id = d.integration_id
     WHERE d.event_id = ${eventId}
     ORDER BY d.integration_id`);
  return {
    webhooks: rows.rows.map((r) => ({
      integration_id: r.integration_id,
      destination: r.destination ?? '',
      success: r.status === 'succeeded',
      status: r.status_code ?? 0,
    })),
  };
}
