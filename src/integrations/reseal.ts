/**
 * The integrations' part of `cli credentials reseal`: each integration's sealed groups (a webhook's
 * custom headers, any other kind's secrets) opened with whichever key of the ring sealed them and
 * sealed again under the newest (the walk: src/shared/reseal.ts).
 */
import type { AppContext } from '../shared/context.js';
import type { Executor } from '../shared/db/index.js';
import { resealTable, type ResealProgress, type SealedTable } from '../shared/reseal.js';
import { resealValues } from './kinds/sealed.js';
import { lockIntegration, sealedIntegrationIdsAfter, setSealedColumns } from './repository.js';

type Deps = Pick<AppContext, 'db' | 'config'>;

/** One integration's sealed columns under the newest key, under its lock; whether it wrote anything. */
async function resealIntegration(deps: Deps, tx: Executor, id: number): Promise<boolean> {
  const row = await lockIntegration(tx, id);
  if (!row) return false;
  const key = deps.config.credentialsKey;
  const headers = resealValues(key, id, 'headers', row.headers);
  const secrets = resealValues(key, id, 'secrets', row.secrets);
  if (!headers && !secrets) return false;
  await setSealedColumns(tx, id, { ...(headers ? { headers } : {}), ...(secrets ? { secrets } : {}) });
  return true;
}

/** Reseals the integrations table, calling `onBatch` after each batch; answers its final count. */
export function resealIntegrations(
  deps: Deps,
  batch: number,
  onBatch: (progress: ResealProgress) => void,
): Promise<ResealProgress> {
  const table: SealedTable = {
    table: 'integrations',
    idsAfter: sealedIntegrationIdsAfter,
    reseal: (tx, id) => resealIntegration(deps, tx, id),
  };
  return resealTable(deps.db, table, batch, onBatch);
}
