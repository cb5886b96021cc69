/**
 * The gateways' part of `cli credentials reseal`: the PSP accounts' tokens and the pending
 * authorizations' PKCE verifiers opened with whichever key of the ring sealed them and sealed again
 * under the newest (the walk: src/shared/reseal.ts).
 */
import type { AppContext } from '../../shared/context.js';
import type { Executor } from '../../shared/db/index.js';
import { resealTable, type ResealProgress, type SealedTable } from '../../shared/reseal.js';
import { lockAuthorization, sealedAuthorizationIdsAfter, setState } from './authorizations.js';
import { resealStateVerifier } from './connection.js';
import { accountIdsAfter, resealAccount } from './repository.js';

type Deps = Pick<AppContext, 'db' | 'config'>;

/** A pending authorization's verifier under the newest key, under its lock; whether it wrote anything. */
async function resealAuthorization(deps: Deps, tx: Executor, integrationId: number): Promise<boolean> {
  const row = await lockAuthorization(tx, integrationId);
  if (!row || row.state === null || row.codeVerifier === null) return false;
  const verifier = resealStateVerifier(deps, row.state, row.codeVerifier);
  if (verifier === undefined) return false;
  await setState(tx, integrationId, { codeVerifier: verifier });
  return true;
}

/** Reseals both tables, calling `onBatch` after each batch; answers each table's final count. */
export async function resealGatewayCredentials(
  deps: Deps,
  batch: number,
  onBatch: (progress: ResealProgress) => void,
): Promise<ResealProgress[]> {
  const tables: SealedTable[] = [
    {
      table: 'gateway_accounts',
      idsAfter: accountIdsAfter,
      reseal: (tx, id) => resealAccount(tx, deps.config.credentialsKey, id),
    },
    {
      table: 'gateway_authorizations',
      idsAfter: sealedAuthorizationIdsAfter,
      reseal: (tx, id) => resealAuthorization(deps, tx, id),
    },
  ];
  const done: ResealProgress[] = [];
  for (const table of tables) done.push(await resealTable(deps.db, table, batch, onBatch));
  return done;
}
