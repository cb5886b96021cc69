/**
 * `cli credentials reseal`: every sealed credential (gateway tokens, integrations' custom headers and
 * secrets, pending OAuth verifiers) opened with whichever key of the ring sealed it and sealed again
 * under the newest, while the service runs (docs/operations.md, "Rotating the credentials key"). One
 * short transaction per row, under that row's lock, in batches by id: a running token refresh or
 * integration edit waits for one row at most, and a reseal stopped half-way is run again from the start
 * (values already under the newest key are skipped).
 */
import type { AppContext } from '../shared/context.js';
import { CredentialUnreadableError } from '../shared/credentials.js';
import { accountIdsAfter, resealAccount } from './gateway-accounts.js';
import { resealStateVerifier } from './gateway-connection.js';
import { resealValues } from './kinds/sealed.js';
import { lockIntegration, sealedIntegrationIdsAfter, setSealedColumns } from './repository.js';
import type { Executor } from '../shared/db/index.js';

type Deps = Pick<AppContext, 'db' | 'config'>;

/** Where one table's reseal stands: rows read, rows written, and rows whose values no key opened. */
export interface ResealProgress {
  table: 'gateway_accounts' | 'integrations';
  checked: number;
  resealed: number;
  unreadable: number[];
}

/** One integration's sealed columns under the newest key, under its lock; whether it wrote anything. */
async function resealIntegration(deps: Deps, tx: Executor, id: number): Promise<boolean> {
  const row = await lockIntegration(tx, id);
  if (!row) return false;
  const key = deps.config.credentialsKey;
  const headers = resealValues(key, id, 'headers', row.headers);
  const secrets = resealValues(key, id, 'secrets', row.secrets);
  const verifier =
    row.oauthState !== null && row.oauthCodeVerifier !== null
      ? resealStateVerifier(deps, row.oauthState, row.oauthCodeVerifier)
      : undefined;
  if (!headers && !secrets && verifier === undefined) return false;
  await setSealedColumns(tx, id, {
    ...(headers ? { headers } : {}),
    ...(secrets ? { secrets } : {}),
    ...(verifier === undefined ? {} : { oauthCodeVerifier: verifier }),
  });
  return true;
}

async function resealTable(
  deps: Deps,
  table: ResealProgress['table'],
  batch: number,
  onBatch: (progress: ResealProgress) => void,
): Promise<ResealProgress> {
  const progress: ResealProgress = { table, checked: 0, resealed: 0, unreadable: [] };
  const idsAfter = table === 'gateway_accounts' ? accountIdsAfter : sealedIntegrationIdsAfter;
  for (let after = 0; ;) {
    const ids = await idsAfter(deps.db, after, batch);
    for (const id of ids) {
      try {
        const wrote = await deps.db.transaction((tx) =>
          table === 'gateway_accounts'
            ? resealAccount(tx, deps.config.credentialsKey, id)
            : resealIntegration(deps, tx, id),
        );
        if (wrote) progress.resealed += 1;
      } catch (err) {
        // A value no key of the ring opens stays as it is, and is reported: the others go on.
        if (!(err instanceof CredentialUnreadableError)) throw err;
        progress.unreadable.push(id);
      }
      progress.checked += 1;
    }
    onBatch({ ...progress, unreadable: [...progress.unreadable] });
    const last = ids.at(-1);
    if (ids.length < batch || last === undefined) return progress;
    after = last;
  }
}

/** Reseals both tables, calling `onBatch` after each batch; answers each table's final count. */
export async function resealCredentials(
  deps: Deps,
  batch: number,
  onBatch: (progress: ResealProgress) => void,
): Promise<ResealProgress[]> {
  return [
    await resealTable(deps, 'gateway_accounts', batch, onBatch),
    await resealTable(deps, 'integrations', batch, onBatch),
  ];
}
