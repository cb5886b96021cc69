import type { AppContext } from '../shared/context.js';
import { onEachConnection } from '../shared/db/index.js';
import { recordAttempts } from './repository/attempts.js';
import { fanOutEvents, vacuumOutbox } from './repository/fan-out.js';
import { readLaneBatch } from './repository/lanes.js';

/**
 * Readies a worker's database connections before it takes jobs: opens `connections` of its pool at
 * once and runs the engine's hot statements (fan-out, lane read, attempt record) on each with nothing
 * to do: no event asked, no lane held, no attempt given, so nothing is written. PostgreSQL then has
 * started the sessions, loaded the tables' descriptions and prepared the statements. A fresh worker
 * without it paid all of that, connection by connection, in its first seconds of traffic, while
 * events waited (docs/webhooks.md, "A worker's first seconds"). It also vacuums the outbox. Returns
 * how long it took, in ms.
 */
export async function warmUpEngine(
  ctx: Pick<AppContext, 'db' | 'pool' | 'config'>,
  connections: number,
): Promise<number> {
  const started = performance.now();
  await onEachConnection(ctx, connections, async (db) => {
    await fanOutEvents(db, [], 1);
    await readLaneBatch(db, 0, '', 0, [], 1);
    await recordAttempts(db, [], ctx.config.webhooks.breakerThreshold);
  });
  // The outbox as the workers before this one left it: the dead rows of their claims since the last
  // sweep, which this worker's first claims would otherwise walk.
  await vacuumOutbox(ctx.db);
  return performance.now() - started;
}
